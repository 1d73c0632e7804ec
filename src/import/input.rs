//! Reading input files safely: a UTF-8 byte order mark is dropped, and no importer buffers
//! more than a bounded amount for one record. A line longer than [`MAX_LINE_BYTES`], or a CSV
//! row longer than [`MAX_RECORD_BYTES`] (its quoted fields may span lines), stops the read
//! with an error naming where it starts; a field longer than [`MAX_FIELD_BYTES`] is a problem
//! naming its line and column.

use std::io::{self, BufRead, BufReader, Read};

use super::Problem;

/// The longest line an input file may have (1 MiB): far beyond any real abstract, and it
/// bounds what is buffered for a JSONL or TREC record (one a line).
pub const MAX_LINE_BYTES: usize = 1 << 20;

/// The longest CSV row (1 MiB, as a line): a row is a record however many lines its quoted
/// fields span, so without this bound one open quote would have the importer buffer the rest
/// of the file as one field.
pub const MAX_RECORD_BYTES: usize = MAX_LINE_BYTES;

/// The longest field (64 KiB): the longest abstracts run to a few KB. A rating page repeats
/// the title and abstract of every pooled paper, so a field may not weigh megabytes.
pub const MAX_FIELD_BYTES: usize = 64 << 10;

/// How much the CSV parser reads ahead of the record it is parsing (its buffer). A record is
/// known to be too long once this much more than the limit has been read since it started.
const CSV_BUFFER_BYTES: usize = 64 << 10;

const UTF8_BOM: &[u8] = b"\xEF\xBB\xBF";

/// The error an [`InputReader`] returns for a line or a CSV row that is too long.
#[derive(Debug)]
pub enum TooLong {
    Line { line: u64 },
    Row { line: u64 },
}

impl std::fmt::Display for TooLong {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            TooLong::Line { .. } => write!(
                f,
                "line is longer than {MAX_LINE_BYTES} bytes (the limit is 1 MiB); is this the \
                 right file?"
            ),
            TooLong::Row { .. } => write!(
                f,
                "the row starting on this line is longer than {MAX_RECORD_BYTES} bytes (the \
                 limit is 1 MiB); is a quote left open?"
            ),
        }
    }
}

impl std::error::Error for TooLong {}

pub struct InputReader<R> {
    inner: R,
    at_start: bool,
    line: u64,
    line_bytes: usize,
    /// Bytes handed out so far.
    read: u64,
    /// CSV only: where the row being parsed starts (byte, line), as the parser reported it.
    row_start: Option<(u64, u64)>,
}

impl<R: Read> InputReader<R> {
    pub fn new(inner: R) -> InputReader<R> {
        InputReader {
            inner,
            at_start: true,
            line: 1,
            line_bytes: 0,
            read: 0,
            row_start: None,
        }
    }

    /// The CSV parser starts a row at this byte offset and line.
    fn start_row(&mut self, byte: u64, line: u64) {
        self.row_start = Some((byte, line));
    }

    fn drop_byte_order_mark(&mut self, buf: &mut [u8], read: usize) -> io::Result<usize> {
        let mut read = read;
        // Make sure three bytes are in hand before deciding (short reads are allowed).
        while read < UTF8_BOM.len() && read < buf.len() {
            let more = self.inner.read(&mut buf[read..])?;
            if more == 0 {
                break;
            }
            read += more;
        }
        if buf[..read].starts_with(UTF8_BOM) {
            buf.copy_within(UTF8_BOM.len()..read, 0);
            read -= UTF8_BOM.len();
        }
        Ok(read)
    }
}

impl<R: Read> Read for InputReader<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let mut read = self.inner.read(buf)?;
        if self.at_start && read > 0 {
            self.at_start = false;
            read = self.drop_byte_order_mark(buf, read)?;
        }
        for &byte in &buf[..read] {
            if byte == b'\n' {
                self.line += 1;
                self.line_bytes = 0;
            } else {
                self.line_bytes += 1;
                if self.line_bytes > MAX_LINE_BYTES {
                    return Err(too_long(TooLong::Line { line: self.line }));
                }
            }
        }
        self.read += read as u64;
        if let Some((start, line)) = self.row_start {
            if self.read - start > (MAX_RECORD_BYTES + CSV_BUFFER_BYTES) as u64 {
                return Err(too_long(TooLong::Row { line }));
            }
        }
        Ok(read)
    }
}

fn too_long(error: TooLong) -> io::Error {
    io::Error::new(io::ErrorKind::InvalidData, error)
}

/// Turns a read error into the problem to report; `line` is used when the error has none.
pub(crate) fn read_problem(error: &io::Error, line: u64) -> Problem {
    match error
        .get_ref()
        .and_then(|inner| inner.downcast_ref::<TooLong>())
    {
        Some(too_long @ (TooLong::Line { line } | TooLong::Row { line })) => {
            Problem::at(*line, None, too_long.to_string())
        }
        None => Problem::at(line, None, format!("could not read the file: {error}")),
    }
}

/// A problem unless a field's text fits [`MAX_FIELD_BYTES`].
pub(crate) fn check_field_size(text: &str, field: &str, line: u64) -> Result<(), Problem> {
    if text.len() <= MAX_FIELD_BYTES {
        Ok(())
    } else {
        Err(Problem::at(
            line,
            Some(field),
            format!(
                "the field holds {} bytes, more than the {MAX_FIELD_BYTES} (64 KiB) a field may \
                 hold",
                text.len()
            ),
        ))
    }
}

/// A JSONL or TREC file read one line at a time.
pub(crate) struct Lines<R> {
    reader: BufReader<InputReader<R>>,
    buffer: Vec<u8>,
    line: u64,
}

impl<R: Read> Lines<R> {
    pub(crate) fn new(reader: R) -> Lines<R> {
        Lines {
            reader: BufReader::with_capacity(1 << 16, InputReader::new(reader)),
            buffer: Vec::new(),
            line: 0,
        }
    }

    /// Reads the next line that is not blank: its 1-based number, or `Ok(None)` at the end;
    /// `Err` for a problem that stops the reading. The line is then [`Lines::current`].
    pub(crate) fn advance(&mut self) -> Result<Option<u64>, Problem> {
        loop {
            self.buffer.clear();
            self.line += 1;
            match self.reader.read_until(b'\n', &mut self.buffer) {
                Ok(0) => return Ok(None),
                Ok(_) => {}
                Err(error) => return Err(read_problem(&error, self.line)),
            }
            if !self.buffer.iter().all(u8::is_ascii_whitespace) {
                return Ok(Some(self.line));
            }
        }
    }

    /// The line [`Lines::advance`] read last.
    pub(crate) fn current(&self) -> &[u8] {
        &self.buffer
    }
}

/// The whitespace-separated fields of a line of a TREC file: exactly `N` of them, laid out as
/// `layout` says (`target Q0 paper rank score model`), or the problem of the line.
pub(crate) fn trec_fields<'a, const N: usize>(
    bytes: &'a [u8],
    line: u64,
    layout: &str,
) -> Result<[&'a str; N], Problem> {
    let text = utf8_line(bytes, line)?;
    let mut fields = [""; N];
    let mut count = 0;
    for field in text.split_whitespace() {
        if let Some(slot) = fields.get_mut(count) {
            *slot = field;
        }
        count += 1;
    }
    if count != N {
        return Err(Problem::at(
            line,
            None,
            format!("expected {N} fields `{layout}`, found {count}"),
        ));
    }
    Ok(fields)
}

/// A line of a JSONL or TREC file as text.
pub(crate) fn utf8_line(bytes: &[u8], line: u64) -> Result<&str, Problem> {
    std::str::from_utf8(bytes).map_err(|error| {
        Problem::at(
            line,
            None,
            format!(
                "not valid UTF-8 (byte {} of the line); save the file as UTF-8",
                error.valid_up_to() + 1
            ),
        )
    })
}

/// A CSV reader that keeps going over rows of the wrong length (we report them ourselves).
pub fn open_csv<R: Read>(reader: R) -> csv::Reader<InputReader<R>> {
    csv::ReaderBuilder::new()
        .has_headers(false)
        .flexible(true)
        .buffer_capacity(CSV_BUFFER_BYTES)
        .from_reader(InputReader::new(reader))
}

/// Reads the next CSV row into `record`, bounded by [`MAX_RECORD_BYTES`]: `Ok(false)` at the
/// end of the file.
fn read_row<R: Read>(
    reader: &mut csv::Reader<InputReader<R>>,
    record: &mut csv::ByteRecord,
) -> Result<bool, Problem> {
    let start = reader.position().clone();
    reader.get_mut().start_row(start.byte(), start.line());
    let read = reader
        .read_byte_record(record)
        .map_err(|error| csv_problem(&error))?;
    if read && record.as_slice().len() > MAX_RECORD_BYTES {
        return Err(read_problem(
            &too_long(TooLong::Row { line: start.line() }),
            start.line(),
        ));
    }
    Ok(read)
}

/// The columns of a CSV header, located by name.
pub(crate) struct Header {
    names: Vec<String>,
}

impl Header {
    /// Reads the header row; `None` (with the problem recorded) if there is none.
    pub(crate) fn read<R: Read>(
        reader: &mut csv::Reader<InputReader<R>>,
        expected: &str,
    ) -> Result<Header, Problem> {
        let mut record = csv::ByteRecord::new();
        if !read_row(reader, &mut record)? {
            return Err(Problem::whole_file(format!(
                "the file is empty; expected a header row: {expected}"
            )));
        }
        let mut names: Vec<String> = Vec::with_capacity(record.len());
        for field in record.iter() {
            let name = match std::str::from_utf8(field) {
                Ok(name) => name.trim().to_ascii_lowercase(),
                Err(_) => {
                    return Err(Problem::at(
                        1,
                        None,
                        "the header row is not valid UTF-8; save the file as UTF-8",
                    ))
                }
            };
            // Two columns of one name: which one holds the values is anyone's guess.
            if let Some(first) = names.iter().position(|column| column == &name) {
                if !name.is_empty() {
                    return Err(Problem::at(
                        1,
                        Some(&name),
                        format!(
                            "the header names this column twice (columns {} and {}); name each \
                             column once",
                            first + 1,
                            names.len() + 1
                        ),
                    ));
                }
            }
            names.push(name);
        }
        Ok(Header { names })
    }

    /// The index of a column, or a problem naming what is missing and what was found.
    pub(crate) fn require(&self, name: &str, expected: &str) -> Result<usize, Problem> {
        self.optional(name).ok_or_else(|| {
            Problem::at(
                1,
                Some(name),
                format!(
                    "required column is missing from the header (found: {}; expected: {expected})",
                    self.names.join(",")
                ),
            )
        })
    }

    pub(crate) fn optional(&self, name: &str) -> Option<usize> {
        self.names.iter().position(|column| column == name)
    }

    pub(crate) fn len(&self) -> usize {
        self.names.len()
    }
}

/// A CSV parse error as a problem with its line.
pub(crate) fn csv_problem(error: &csv::Error) -> Problem {
    match error.kind() {
        csv::ErrorKind::Io(io_error) => {
            let line = error.position().map_or(0, |position| position.line());
            read_problem(io_error, line)
        }
        _ => {
            let line = error.position().map_or(0, |position| position.line());
            Problem::at(line, None, format!("malformed CSV: {error}"))
        }
    }
}

/// A problem unless the record has as many fields as the header.
pub(crate) fn check_field_count(
    record: &csv::ByteRecord,
    header_fields: usize,
    line: u64,
) -> Result<(), Problem> {
    if record.len() == header_fields {
        Ok(())
    } else {
        Err(Problem::at(
            line,
            None,
            format!(
                "expected {header_fields} fields as in the header, found {}",
                record.len()
            ),
        ))
    }
}

/// The text of a CSV field, or a problem if it is not UTF-8.
pub(crate) fn utf8_field<'r>(
    record: &'r csv::ByteRecord,
    index: usize,
    column: &str,
    line: u64,
) -> Result<&'r str, Problem> {
    let bytes = record.get(index).unwrap_or_default();
    let text = std::str::from_utf8(bytes).map_err(|error| {
        Problem::at(
            line,
            Some(column),
            format!(
                "not valid UTF-8 (byte {} of the field); save the file as UTF-8",
                error.valid_up_to() + 1
            ),
        )
    })?;
    check_field_size(text, column, line)?;
    Ok(text)
}

/// Reads the next CSV record; `Ok(None)` at the end, `Err` for a problem that stops reading.
pub(crate) fn next_record<R: Read>(
    reader: &mut csv::Reader<InputReader<R>>,
    record: &mut csv::ByteRecord,
) -> Result<Option<u64>, Problem> {
    if read_row(reader, record)? {
        Ok(Some(
            record.position().map_or(0, |position| position.line()),
        ))
    } else {
        Ok(None)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn drops_a_byte_order_mark_and_nothing_else() {
        let mut text = String::new();
        InputReader::new(&b"\xEF\xBB\xBFid,title\n"[..])
            .read_to_string(&mut text)
            .unwrap();
        assert_eq!(text, "id,title\n");
        let mut text = String::new();
        InputReader::new(&b"id"[..])
            .read_to_string(&mut text)
            .unwrap();
        assert_eq!(text, "id");
    }

    #[test]
    fn stops_at_an_overlong_line_and_names_it() {
        let mut input = b"a\nb\n".to_vec();
        input.extend(std::iter::repeat_n(b'x', MAX_LINE_BYTES + 1));
        let error = InputReader::new(&input[..])
            .read_to_end(&mut Vec::new())
            .unwrap_err();
        assert_eq!(read_problem(&error, 0).line, Some(3));
    }

    #[test]
    fn stops_at_an_overlong_row_of_short_lines_and_names_its_start() {
        let mut input = b"id,title\nP1,a\nP2,\"".to_vec();
        input.extend(b"x\n".repeat(MAX_RECORD_BYTES));
        let mut reader = open_csv(&input[..]);
        let mut record = csv::ByteRecord::new();
        let mut problem = None;
        for _ in 0..3 {
            if let Err(found) = read_row(&mut reader, &mut record) {
                problem = Some(found);
                break;
            }
        }
        let problem = problem.expect("the long row is refused");
        assert_eq!(problem.line, Some(3));
        assert!(
            problem.message.contains("is a quote left open?"),
            "{problem:?}"
        );
    }

    #[test]
    fn a_header_naming_a_column_twice_is_refused() {
        let mut reader = open_csv(&b"id,Title,title\nP1,a,b\n"[..]);
        let problem = Header::read(&mut reader, "id,title")
            .err()
            .expect("refused");
        assert_eq!(problem.line, Some(1));
        assert_eq!(problem.field.as_deref(), Some("title"));
        assert_eq!(
            problem.message,
            "the header names this column twice (columns 2 and 3); name each column once"
        );
    }
}

//! Reading input files safely: a UTF-8 byte order mark is dropped, and no importer buffers
//! more than a bounded amount for one record. A line longer than [`MAX_LINE_BYTES`], or a CSV
//! row longer than [`MAX_RECORD_BYTES`] (its quoted fields may span lines), stops the read
//! with an error naming where it starts; a field longer than [`MAX_FIELD_BYTES`] is a problem
//! naming its line and column.

use std::collections::VecDeque;
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
    /// The last byte handed out was a line break (`\n`, or `\r`, which ends a CSV row), or
    /// none was handed out yet: the next byte that is none starts a line.
    after_line_break: bool,
    /// CSV only: the last byte handed out was a `\r`, counted as a line break of its own (as
    /// the CSV parser ends a row there, and classic Mac files end every line so); a `\n` right
    /// after it is the same break.
    after_carriage_return: bool,
    /// Bytes handed out so far.
    read: u64,
    /// CSV only: the row being parsed.
    row: Option<Row>,
    /// The last byte handed out that is no white space: at the end of a file, a `"` closes
    /// the quoted field a row may end with.
    last_visible: Option<u8>,
    /// The end of the file was reached: every byte has been handed out.
    ended: bool,
}

/// Where the CSV parser looks for the row it is parsing, and the line that row is on.
///
/// The parser's own position is no help for the line: it stands where the previous row ended,
/// before the line breaks it skips on the way to the next row (the `\n` of the previous row's
/// `\r\n`, and blank lines), so that it names a line too low after every CRLF. The row's line
/// is that of its first byte, the first byte from there on that is no line break.
struct Row {
    /// The byte the parser starts from.
    from: u64,
    /// `(byte, line)` of the first byte of every line from `from` on, where that byte is no
    /// line break. The parser reads ahead of the row it parses, so these are kept until it
    /// starts on a row beyond them.
    line_starts: VecDeque<(u64, u64)>,
}

impl<R: Read> InputReader<R> {
    pub fn new(inner: R) -> InputReader<R> {
        InputReader {
            inner,
            at_start: true,
            line: 1,
            line_bytes: 0,
            after_line_break: true,
            after_carriage_return: false,
            read: 0,
            row: None,
            last_visible: None,
            ended: false,
        }
    }

    /// A reader for the CSV parser, which keeps track of the row it parses.
    fn for_csv(inner: R) -> InputReader<R> {
        InputReader {
            row: Some(Row {
                from: 0,
                line_starts: VecDeque::new(),
            }),
            ..InputReader::new(inner)
        }
    }

    /// The CSV parser starts looking for a row at this byte offset.
    fn start_row(&mut self, from: u64) {
        if let Some(row) = &mut self.row {
            row.from = from;
            while row
                .line_starts
                .front()
                .is_some_and(|(start, _)| *start < from)
            {
                row.line_starts.pop_front();
            }
        }
    }

    /// The line of the row being parsed, once its first byte has been read.
    fn row_line(&self) -> Option<u64> {
        let row = self.row.as_ref()?;
        row.line_starts.front().map(|(_, line)| *line)
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
        if read == 0 && !buf.is_empty() {
            self.ended = true;
        }
        if self.at_start && read > 0 {
            self.at_start = false;
            read = self.drop_byte_order_mark(buf, read)?;
        }
        for (index, &byte) in buf[..read].iter().enumerate() {
            if !byte.is_ascii_whitespace() {
                self.last_visible = Some(byte);
            }
            let after_carriage_return = std::mem::take(&mut self.after_carriage_return);
            match byte {
                b'\n' => {
                    if !after_carriage_return {
                        self.line += 1;
                    }
                    self.line_bytes = 0;
                    self.after_line_break = true;
                    continue;
                }
                b'\r' if self.row.is_some() => {
                    self.line += 1;
                    self.line_bytes = 0;
                    self.after_line_break = true;
                    self.after_carriage_return = true;
                    continue;
                }
                b'\r' => self.after_line_break = true,
                _ if self.after_line_break => {
                    self.after_line_break = false;
                    if let Some(row) = &mut self.row {
                        let byte = self.read + index as u64;
                        row.line_starts.push_back((byte, self.line));
                    }
                }
                _ => {}
            }
            self.line_bytes += 1;
            if self.line_bytes > MAX_LINE_BYTES {
                return Err(too_long(TooLong::Line { line: self.line }));
            }
        }
        self.read += read as u64;
        if let Some(row) = &self.row {
            if self.read - row.from > (MAX_RECORD_BYTES + CSV_BUFFER_BYTES) as u64 {
                let line = self.row_line().unwrap_or(self.line);
                return Err(too_long(TooLong::Row { line }));
            }
        }
        Ok(read)
    }
}

fn too_long(error: TooLong) -> io::Error {
    io::Error::new(io::ErrorKind::InvalidData, error)
}

/// Turns a read error into the problem to report: a line or row too long names its line;
/// any other error is the whole file's (a directory, a failing disk), with no line to name.
pub(crate) fn read_problem(error: &io::Error) -> Problem {
    match error
        .get_ref()
        .and_then(|inner| inner.downcast_ref::<TooLong>())
    {
        Some(too_long @ (TooLong::Line { line } | TooLong::Row { line })) => {
            Problem::at(*line, None, too_long.to_string())
        }
        None => Problem::whole_file(format!("could not read the file: {error}")),
    }
}

/// A problem unless a field's text fits [`MAX_FIELD_BYTES`].
pub fn check_field_size(text: &str, field: &str, line: u64) -> Result<(), Problem> {
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
                Err(error) => return Err(read_problem(&error)),
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
/// `layout` says (`target 0 paper grade`), or the problem of the line.
pub(crate) fn trec_fields<'a, const N: usize>(
    bytes: &'a [u8],
    line: u64,
    layout: &str,
) -> Result<[&'a str; N], Problem> {
    let (fields, count) = trec_fields_up_to::<N>(bytes, line)?;
    if count != N {
        return Err(Problem::at(
            line,
            None,
            format!("expected {N} fields `{layout}`, found {count}"),
        ));
    }
    Ok(fields)
}

/// The first `N` whitespace-separated fields of a line of a TREC file (the others empty), and
/// how many fields the line has, for a layout whose last fields may be missing.
pub(crate) fn trec_fields_up_to<const N: usize>(
    bytes: &[u8],
    line: u64,
) -> Result<([&str; N], usize), Problem> {
    let text = utf8_line(bytes, line)?;
    let mut fields = [""; N];
    let mut count = 0;
    for field in text.split_whitespace() {
        if let Some(slot) = fields.get_mut(count) {
            *slot = field;
        }
        count += 1;
    }
    Ok((fields, count))
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
        .from_reader(InputReader::for_csv(reader))
}

/// Reads the next CSV row into `record`, bounded by [`MAX_RECORD_BYTES`]: its line, or
/// `Ok(None)` at the end of the file; `Err` for a problem that stops the reading.
pub fn next_record<R: Read>(
    reader: &mut csv::Reader<InputReader<R>>,
    record: &mut csv::ByteRecord,
) -> Result<Option<u64>, Problem> {
    let start = reader.position().clone();
    reader.get_mut().start_row(start.byte());
    let read = reader
        .read_byte_record(record)
        .map_err(|error| csv_problem(&error))?;
    if !read {
        return Ok(None);
    }
    // A row has a byte that is no line break (the parser skips blank lines), so its line is
    // known once it is read; the parser's line is the fallback.
    let line = reader.get_ref().row_line().unwrap_or(start.line());
    if record.as_slice().len() > MAX_RECORD_BYTES {
        return Err(read_problem(&too_long(TooLong::Row { line })));
    }
    if quote_left_open(reader, record) {
        return Err(Problem::at(
            line,
            None,
            "a quote opened in this row is never closed, so the rest of the file was read \
             into one field: close it (a quote inside a quoted field is written twice, \"\")",
        ));
    }
    Ok(Some(line))
}

/// Whether the row just read ran to the end of the file inside a quoted field: the end of
/// the file was reached while it was read (the parser asks for more only once it has parsed
/// every byte it had), its last field spans lines (only a quoted field can), and the file
/// does not end with the `"` that would close that field. (The CSV parser takes the end of
/// the file for the end of an open field without a word.)
fn quote_left_open<R: Read>(
    reader: &csv::Reader<InputReader<R>>,
    record: &csv::ByteRecord,
) -> bool {
    let input = reader.get_ref();
    let spans_lines = (record.iter().next_back())
        .is_some_and(|field| field.contains(&b'\n') || field.contains(&b'\r'));
    input.ended && spans_lines && input.last_visible != Some(b'"')
}

/// The columns of a CSV header, located by name.
pub struct Header {
    names: Vec<String>,
    /// The line the header is on.
    line: u64,
}

impl Header {
    /// Reads the header row; `None` (with the problem recorded) if there is none.
    pub fn read<R: Read>(
        reader: &mut csv::Reader<InputReader<R>>,
        expected: &str,
    ) -> Result<Header, Problem> {
        let mut record = csv::ByteRecord::new();
        let Some(line) = next_record(reader, &mut record)? else {
            return Err(Problem::whole_file(format!(
                "the file is empty; expected a header row: {expected}"
            )));
        };
        let mut names: Vec<String> = Vec::with_capacity(record.len());
        for field in record.iter() {
            let name = match std::str::from_utf8(field) {
                Ok(name) => name.trim().to_ascii_lowercase(),
                Err(_) => {
                    return Err(Problem::at(
                        line,
                        None,
                        "the header row is not valid UTF-8; save the file as UTF-8",
                    ))
                }
            };
            // Two columns of one name: which one holds the values is anyone's guess.
            if let Some(first) = names.iter().position(|column| column == &name) {
                if !name.is_empty() {
                    return Err(Problem::at(
                        line,
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
        Ok(Header { names, line })
    }

    /// The index of a column, or a problem naming what is missing and what was found.
    pub fn require(&self, name: &str, expected: &str) -> Result<usize, Problem> {
        self.optional(name).ok_or_else(|| {
            Problem::at(
                self.line,
                Some(name),
                format!(
                    "required column is missing from the header (found: {}; expected: {expected})",
                    excerpt(&self.names.join(","))
                ),
            )
        })
    }

    pub fn optional(&self, name: &str) -> Option<usize> {
        self.names.iter().position(|column| column == name)
    }

    /// How many columns the header names.
    pub fn columns(&self) -> usize {
        self.names.len()
    }
}

/// The most characters of a file's text a problem quotes.
const EXCERPT_CHARACTERS: usize = 100;

/// `text` as a problem quotes it: whole when short, else its first `EXCERPT_CHARACTERS`
/// characters and how many more there are (a header of a megabyte of NUL bytes is no message).
pub fn excerpt(text: &str) -> String {
    let characters = text.chars().count();
    if characters <= EXCERPT_CHARACTERS {
        return text.to_owned();
    }
    let shown: String = text.chars().take(EXCERPT_CHARACTERS).collect();
    format!(
        "{shown}… ({} more characters)",
        characters - EXCERPT_CHARACTERS
    )
}

/// A CSV parse error as a problem, with its line if it has one.
pub fn csv_problem(error: &csv::Error) -> Problem {
    match (error.kind(), error.position()) {
        (csv::ErrorKind::Io(io_error), _) => read_problem(io_error),
        (_, Some(position)) => {
            Problem::at(position.line(), None, format!("malformed CSV: {error}"))
        }
        (_, None) => Problem::whole_file(format!("malformed CSV: {error}")),
    }
}

/// A problem unless the record has as many fields as the header.
pub fn check_field_count(
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
pub fn utf8_field<'r>(
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
        assert_eq!(read_problem(&error).line, Some(3));
    }

    #[test]
    fn stops_at_an_overlong_row_of_short_lines_and_names_its_start() {
        let mut input = b"id,title\nP1,a\nP2,\"".to_vec();
        input.extend(b"x\n".repeat(MAX_RECORD_BYTES));
        let mut reader = open_csv(&input[..]);
        let mut record = csv::ByteRecord::new();
        let mut problem = None;
        for _ in 0..3 {
            if let Err(found) = next_record(&mut reader, &mut record) {
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

    /// Hands out at most `chunk` bytes a read, so that lines and line breaks fall across
    /// reads (a `\r` in one, its `\n` in the next).
    struct Chunked<'a> {
        bytes: &'a [u8],
        chunk: usize,
    }

    impl Read for Chunked<'_> {
        fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
            let n = self.chunk.min(buf.len()).min(self.bytes.len());
            buf[..n].copy_from_slice(&self.bytes[..n]);
            self.bytes = &self.bytes[n..];
            Ok(n)
        }
    }

    /// The line of every row of `text`, the header's first, read `chunk` bytes at a time.
    fn row_lines(text: &str, chunk: usize) -> Vec<u64> {
        let bytes = text.as_bytes();
        let mut reader = open_csv(Chunked { bytes, chunk });
        let mut record = csv::ByteRecord::new();
        let mut lines = Vec::new();
        while let Some(line) = next_record(&mut reader, &mut record).expect("a row") {
            lines.push(line);
        }
        lines
    }

    #[test]
    fn a_row_is_on_the_line_of_its_first_byte_whatever_the_line_breaks() {
        for chunk in [1, 2, 3, 7, 1 << 16] {
            for ending in ["\n", "\r\n", "\r"] {
                let text =
                    ["id,title", "", "A,x", "B,\"two", "lines\"", "", "", "C,y"].join(ending);
                assert_eq!(
                    row_lines(&text, chunk),
                    [1, 3, 4, 8],
                    "{ending:?} by {chunk}"
                );
            }
        }
        // Rows enough that the parser reads far ahead of the row it parses.
        let rows = 50_000;
        for ending in ["\r\n", "\r"] {
            let text: String = (1..=rows)
                .map(|row| format!("P{row},title{ending}"))
                .collect();
            let lines: Vec<u64> = (1..=rows).collect();
            assert_eq!(row_lines(&text, 4096), lines, "{ending:?}");
        }
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

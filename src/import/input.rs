//! Reading input files safely: a UTF-8 byte order mark is dropped, and a line longer than
//! [`MAX_LINE_BYTES`] stops the read with an error naming it, so that a file without line
//! breaks cannot make an importer buffer gigabytes.

use std::io::{self, BufRead, BufReader, Read};

use super::Problem;

/// The longest line an input file may have (1 MiB): far beyond any real abstract.
pub const MAX_LINE_BYTES: usize = 1 << 20;

const UTF8_BOM: &[u8] = b"\xEF\xBB\xBF";

/// The error an [`InputReader`] returns for a line that is too long.
#[derive(Debug)]
pub struct LineTooLong {
    pub line: u64,
}

impl std::fmt::Display for LineTooLong {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "line is longer than {} bytes (the limit is 1 MiB); is this the right file?",
            MAX_LINE_BYTES
        )
    }
}

impl std::error::Error for LineTooLong {}

pub struct InputReader<R> {
    inner: R,
    at_start: bool,
    line: u64,
    line_bytes: usize,
}

impl<R: Read> InputReader<R> {
    pub fn new(inner: R) -> InputReader<R> {
        InputReader {
            inner,
            at_start: true,
            line: 1,
            line_bytes: 0,
        }
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
                    return Err(io::Error::new(
                        io::ErrorKind::InvalidData,
                        LineTooLong { line: self.line },
                    ));
                }
            }
        }
        Ok(read)
    }
}

/// Turns a read error into the problem to report; `line` is used when the error has none.
pub(crate) fn read_problem(error: &io::Error, line: u64) -> Problem {
    match error
        .get_ref()
        .and_then(|inner| inner.downcast_ref::<LineTooLong>())
    {
        Some(too_long) => Problem::at(too_long.line, None, too_long.to_string()),
        None => Problem::at(line, None, format!("could not read the file: {error}")),
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

    /// The next line that is not blank, with its 1-based number; `Ok(None)` at the end, `Err`
    /// for a problem that stops the reading.
    pub(crate) fn next_line(&mut self) -> Result<Option<(u64, &[u8])>, Problem> {
        loop {
            self.buffer.clear();
            self.line += 1;
            match self.reader.read_until(b'\n', &mut self.buffer) {
                Ok(0) => return Ok(None),
                Ok(_) => {}
                Err(error) => return Err(read_problem(&error, self.line)),
            }
            if !self.buffer.iter().all(u8::is_ascii_whitespace) {
                return Ok(Some((self.line, &self.buffer)));
            }
        }
    }
}

/// A CSV reader that keeps going over rows of the wrong length (we report them ourselves).
pub fn open_csv<R: Read>(reader: R) -> csv::Reader<InputReader<R>> {
    csv::ReaderBuilder::new()
        .has_headers(false)
        .flexible(true)
        .from_reader(InputReader::new(reader))
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
        match reader.read_byte_record(&mut record) {
            Ok(true) => {}
            Ok(false) => {
                return Err(Problem::whole_file(format!(
                    "the file is empty; expected a header row: {expected}"
                )))
            }
            Err(error) => return Err(csv_problem(&error)),
        }
        let mut names = Vec::with_capacity(record.len());
        for field in record.iter() {
            match std::str::from_utf8(field) {
                Ok(name) => names.push(name.trim().to_ascii_lowercase()),
                Err(_) => {
                    return Err(Problem::at(
                        1,
                        None,
                        "the header row is not valid UTF-8; save the file as UTF-8",
                    ))
                }
            }
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
    std::str::from_utf8(bytes).map_err(|error| {
        Problem::at(
            line,
            Some(column),
            format!(
                "not valid UTF-8 (byte {} of the field); save the file as UTF-8",
                error.valid_up_to() + 1
            ),
        )
    })
}

/// Reads the next CSV record; `Ok(None)` at the end, `Err` for a problem that stops reading.
pub(crate) fn next_record<R: Read>(
    reader: &mut csv::Reader<InputReader<R>>,
    record: &mut csv::ByteRecord,
) -> Result<Option<u64>, Problem> {
    match reader.read_byte_record(record) {
        Ok(true) => Ok(Some(
            record.position().map_or(0, |position| position.line()),
        )),
        Ok(false) => Ok(None),
        Err(error) => Err(csv_problem(&error)),
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
}

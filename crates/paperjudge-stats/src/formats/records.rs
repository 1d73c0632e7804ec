//! The one reader of records under every importer: a CSV, JSONL or TREC file becomes a stream
//! of rows, each with its line, whatever the importer makes of them.
//!
//! The reader owns what is the same for every importer: the byte limits of [`super::input`],
//! the CSV header and its columns, blank lines, the count of records read, and the problems
//! that stop the reading (a line over the limit, broken CSV). What a row holds is the
//! importer's, through its [`Parse`]: a record that does not parse is a problem of its line,
//! and reading goes on so that every problem of the file is reported at once.

use std::io::Read;

use super::input::{self, Header, InputReader, Lines};
use super::trec::RunLine;
use super::{Format, Problem, RowsRead};

/// How an importer turns records into its rows, format by format.
pub trait Parse {
    /// A parsed row; it may borrow from the record and from the parser.
    type Row<'r>
    where
        Self: 'r;

    /// What the rows are, for problems: "papers".
    const ITEMS: &'static str;

    /// The formats this importer reads.
    const FORMATS: &'static [Format];

    /// The header a CSV file needs, as problems show it: `id,title[,abstract,...]`.
    const CSV_HEADER: &'static str;

    /// Where the columns this importer reads are in a CSV file.
    type Columns;

    /// Finds the columns this importer reads in a CSV header.
    fn locate(&self, header: &Header) -> Result<Self::Columns, Problem>;

    fn csv<'r>(
        &'r self,
        columns: &Self::Columns,
        record: &'r csv::ByteRecord,
        line: u64,
    ) -> Result<Self::Row<'r>, Problem>;

    /// A JSONL line (never called unless [`Parse::FORMATS`] holds JSONL).
    fn json<'r>(&'r self, text: &'r [u8], line: u64) -> Result<Self::Row<'r>, Problem> {
        let _ = (text, line);
        Err(unreadable::<Self>(Format::Jsonl))
    }

    /// A line of a TREC run (never called unless [`Parse::FORMATS`] holds TREC).
    fn trec<'r>(&'r self, run: RunLine<'r>, line: u64) -> Result<Self::Row<'r>, Problem> {
        let _ = (run, line);
        Err(unreadable::<Self>(Format::Trec))
    }
}

fn unreadable<P: Parse + ?Sized>(format: Format) -> Problem {
    let formats: Vec<&str> = P::FORMATS.iter().map(|format| format.name()).collect();
    Problem::whole_file(format!(
        "{} cannot be read from a {} file; use {}",
        P::ITEMS,
        format.name(),
        formats.join(" or ")
    ))
}

enum Source<R: Read, C> {
    Csv {
        reader: csv::Reader<InputReader<R>>,
        columns: C,
        record: csv::ByteRecord,
    },
    Lines(Lines<R>),
}

/// A file being read, record by record.
pub struct Records<R: Read, P: Parse> {
    parser: P,
    format: Format,
    source: Source<R, P::Columns>,
    read: u64,
    /// Counts the records read, for whoever follows the import as it reads.
    rows: RowsRead,
    /// A problem stopped the reading: nothing more is read.
    stopped: bool,
}

impl<R: Read, P: Parse> Records<R, P> {
    /// Opens a file of `format`, reading its header if it is CSV; `Err` with the problem if
    /// the file cannot be read at all (a format the importer does not read, a bad header).
    /// Every record read is counted in `rows` too.
    pub fn open(reader: R, format: Format, parser: P, rows: &RowsRead) -> Result<Self, Problem> {
        if !P::FORMATS.contains(&format) {
            return Err(unreadable::<P>(format));
        }
        let source = match format {
            Format::Csv => {
                let mut reader = input::open_csv(reader);
                let header = Header::read(&mut reader, P::CSV_HEADER)?;
                Source::Csv {
                    columns: parser.locate(&header)?,
                    reader,
                    record: csv::ByteRecord::new(),
                }
            }
            Format::Jsonl | Format::Trec => Source::Lines(Lines::new(reader)),
        };
        Ok(Records {
            parser,
            format,
            source,
            read: 0,
            rows: rows.clone(),
            stopped: false,
        })
    }

    /// Records read so far (those that did not parse included).
    pub fn read(&self) -> u64 {
        self.read
    }

    /// The next record, parsed, with its line; `None` at the end of the file. A record that
    /// does not parse is `Err` with its problem, and reading goes on; a problem that stops the
    /// reading (a line over the limit, broken CSV) is the last `Err`. (Not an `Iterator`: a
    /// row borrows the reader's buffer until the next is read.)
    #[allow(clippy::should_implement_trait)]
    pub fn next(&mut self) -> Option<Result<(u64, P::Row<'_>), Problem>> {
        if self.stopped {
            return None;
        }
        let line = match self.advance() {
            Ok(Some(line)) => line,
            Ok(None) => {
                self.stopped = true;
                return None;
            }
            Err(problem) => {
                self.stopped = true;
                return Some(Err(problem));
            }
        };
        self.read += 1;
        self.rows.count_one();
        Some(self.parse(line).map(|row| (line, row)))
    }

    /// Reads the next record into the buffer; its line, or `None` at the end.
    fn advance(&mut self) -> Result<Option<u64>, Problem> {
        match &mut self.source {
            Source::Csv { reader, record, .. } => input::next_record(reader, record),
            Source::Lines(lines) => lines.advance(),
        }
    }

    fn parse(&self, line: u64) -> Result<P::Row<'_>, Problem> {
        match &self.source {
            Source::Csv {
                columns, record, ..
            } => self.parser.csv(columns, record, line),
            Source::Lines(lines) => match self.format {
                Format::Jsonl => self.parser.json(lines.current(), line),
                _ => self
                    .parser
                    .trec(super::trec::run_line(lines.current(), line)?, line),
            },
        }
    }
}

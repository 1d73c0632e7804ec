//! Importing files: the command that writes the files of one import in one transaction, or (on
//! any problem or error) nothing at all; and the bundled demo study.
//!
//! Each file is read and checked before it is written. The first file is read before the
//! study's write lock is taken, so that an import of one file (every import of the command line)
//! keeps raters waiting only while it writes. Papers and lists are written on a connection of
//! the import's own ([`db::direct::open_writer`]), in the process's turn of the write queue:
//! their hot loops step SQLite directly. The files after the first are read and written one
//! after the other inside that transaction, so that one file's rows at a time are held in
//! memory (eight runs of study L at once would be the whole 6.4 M rows). Ratings files, small,
//! are all read first, then written as the raters' ratings are, through the study's
//! connections. Any file with a problem writes nothing of any file, and every file is checked,
//! so that all their problems are reported at once. The study's revision is counted once per
//! import, if it changed anything: the evaluation kept in memory is out of date from then on,
//! and not before.

use super::Handle;
use std::io::Read;
use std::sync::Arc;

use rand::{Rng, SeedableRng};

use crate::blocking;
use crate::demo;
use crate::study::db::papers::PaperIndex;
use crate::study::db::{self, direct, Writer};
use crate::study::error::{Refusal, StudyError};
use crate::study::import::{
    self, judgments, ratings, Bulk, BulkKind, Format, InvalidInput, Kind, RowsRead, Summary,
};

/// One file to import: its name, as problems give it, and its bytes.
pub struct ImportFile {
    pub source: String,
    pub reader: Box<dyn Read + Send>,
}

impl ImportFile {
    pub fn new(source: impl Into<String>, reader: impl Read + Send + 'static) -> ImportFile {
        ImportFile {
            source: source.into(),
            reader: Box::new(reader),
        }
    }
}

/// What an import tells as it goes: the command line's progress bar, the browser's page of an
/// import. Files are counted from 0, in the order given.
pub trait ImportProgress: Send + Sync + 'static {
    /// Where the import counts the rows it reads.
    fn rows(&self) -> RowsRead {
        RowsRead::default()
    }

    /// File `file` is being read and checked.
    fn reading(&self, file: usize) {
        let _ = file;
    }

    /// File `file` is read and checked, and is being written.
    fn writing(&self, file: usize) {
        let _ = file;
    }
}

/// An import nobody follows.
impl ImportProgress for () {}

impl Handle<'_> {
    /// Imports `files`, all of `kind`, in one transaction: all of them, or nothing. Each file
    /// is written as an import of it alone would write it, after the ones before it; the
    /// summary adds up the files'.
    ///
    /// Each file's `source` names it in problems; `rng` draws the display keys of pairs
    /// entering the pool; `progress` hears how the import goes.
    pub async fn files(
        &self,
        kind: Kind,
        files: Vec<ImportFile>,
        rng: impl Rng + Send + 'static,
        progress: impl ImportProgress,
    ) -> Result<Summary, StudyError> {
        let mut files = files.into_iter();
        let first = files.next().ok_or(Refusal::NoFile)?;
        let progress = Arc::new(progress);
        let bulk = match kind {
            Kind::Papers(format) => BulkKind::Papers(format),
            Kind::Recommendations(options) => BulkKind::Recommendations(options),
            Kind::Ratings(options) => {
                let files = std::iter::once(first).chain(files).collect();
                return self.import_ratings(files, options, rng, progress).await;
            }
            Kind::Judgments(options) => {
                let files = std::iter::once(first).chain(files).collect();
                return self.import_judgments(files, options, progress).await;
            }
        };
        self.import_bulk(bulk, first, files, rng, progress).await
    }

    /// Papers or lists: the first file read before the turn, every later one read and written
    /// in the transaction.
    async fn import_bulk(
        &self,
        kind: BulkKind,
        first: ImportFile,
        later: impl Iterator<Item = ImportFile> + Send + 'static,
        mut rng: impl Rng + Send + 'static,
        progress: Arc<impl ImportProgress>,
    ) -> Result<Summary, StudyError> {
        let path = self.study.path().to_path_buf();
        let (reading, first_kind) = (progress.clone(), kind.clone());
        let (conn, first) = blocking::run(move || -> Result<_, StudyError> {
            let conn = direct::open_writer(&path, Writer::Import)?;
            let first = read_bulk(&first_kind, &conn, first, 0, &*reading)?;
            Ok((conn, first))
        })
        .await?;
        let first = match first {
            Ok(first) => first,
            Err(invalid) => {
                // Nothing will be written: the later files are only checked, without the turn.
                let checked = blocking::run(move || -> Result<_, StudyError> {
                    let mut invalid = vec![invalid];
                    for (index, file) in later.enumerate() {
                        let read = read_bulk(&kind, &conn, file, index + 1, &*progress)?;
                        invalid.extend(read.err());
                    }
                    Ok(invalid)
                });
                return Err(Refusal::Invalid(checked.await?.into()).into());
            }
        };
        progress.writing(0);
        self.study
            .db
            .write_directly_as(Writer::Import, conn, move |tx| {
                let mut summary = first.write(tx, &mut rng)?;
                let mut invalid = Vec::new();
                for (index, file) in later.enumerate() {
                    let index = index + 1;
                    match read_bulk(&kind, tx, file, index, &*progress)? {
                        Ok(bulk) if invalid.is_empty() => {
                            progress.writing(index);
                            summary += bulk.write(tx, &mut rng)?;
                        }
                        // A file before had a problem: nothing will be written.
                        Ok(_) => {}
                        Err(problems) => invalid.push(problems),
                    }
                }
                if !invalid.is_empty() {
                    return Err(Refusal::Invalid(invalid.into()).into());
                }
                if summary.changed() {
                    db::study::bump_revision_directly(tx)?;
                }
                Ok(summary)
            })
            .await
    }

    /// Ratings: every file read first (each rating's rater resolved against the study's),
    /// then all written as the raters' ratings are.
    async fn import_ratings(
        &self,
        files: Vec<ImportFile>,
        options: ratings::Options,
        mut rng: impl Rng + Send + 'static,
        progress: Arc<impl ImportProgress>,
    ) -> Result<Summary, StudyError> {
        let path = self.study.path().to_path_buf();
        let reading = progress.clone();
        let staged = blocking::run(move || -> Result<_, StudyError> {
            let conn = direct::open_writer(&path, Writer::Import)?;
            let papers = db::papers::index(&conn)?;
            let raters = db::raters::known_directly(&conn)?;
            let rows = reading.rows();
            let (mut staged, mut invalid) = (Vec::new(), Vec::new());
            for (index, file) in files.into_iter().enumerate() {
                reading.reading(index);
                let (reader, source) = (file.reader, &file.source);
                match ratings::stage(reader, &papers, &raters, &options, source, &rows) {
                    Ok(file) => staged.push(file),
                    Err(problems) => invalid.push(problems),
                }
            }
            match invalid.is_empty() {
                true => Ok(staged),
                false => Err(Refusal::Invalid(invalid.into()).into()),
            }
        })
        .await?;
        self.study
            .db
            .write_as(Writer::Import, async |conn| {
                let mut summary = Summary::new("ratings");
                for (index, file) in staged.into_iter().enumerate() {
                    progress.writing(index);
                    summary += file.write(conn, &mut rng).await?;
                }
                if summary.changed() {
                    db::study::bump_revision(conn).await?;
                }
                Ok(summary)
            })
            .await
    }

    /// A machine judge's grades: every file read first, then all written in one transaction
    /// on the import's own connection, apart from the ratings (see [`crate::study::judges`]): the
    /// study's revision does not move, since no number of the raters' changes.
    async fn import_judgments(
        &self,
        files: Vec<ImportFile>,
        options: judgments::Options,
        progress: Arc<impl ImportProgress>,
    ) -> Result<Summary, StudyError> {
        let path = self.study.path().to_path_buf();
        let reading = progress.clone();
        let (conn, staged) = blocking::run(move || -> Result<_, StudyError> {
            let conn = direct::open_writer(&path, Writer::Import)?;
            let papers = db::papers::index(&conn)?;
            let rows = reading.rows();
            let (mut staged, mut invalid) = (Vec::new(), Vec::new());
            for (index, file) in files.into_iter().enumerate() {
                reading.reading(index);
                match judgments::stage(file.reader, &papers, &file.source, &rows) {
                    Ok(file) => staged.push(file),
                    Err(problems) => invalid.push(problems),
                }
            }
            match invalid.is_empty() {
                true => Ok((conn, staged)),
                false => Err(Refusal::Invalid(invalid.into()).into()),
            }
        })
        .await?;
        self.study
            .db
            .write_directly_as(Writer::Import, conn, move |tx| {
                let mut summary = Summary::new("judgments");
                for (index, file) in staged.into_iter().enumerate() {
                    progress.writing(index);
                    summary += crate::study::judges::write_imported(
                        tx,
                        &options.judge,
                        &file.grades,
                        file.read,
                    )?;
                }
                Ok(summary)
            })
            .await
    }

    /// Loads the demo study into a study without papers, in one transaction; `None` (and
    /// nothing written) if the study holds papers.
    pub async fn load_demo_if_empty(&self) -> Result<Option<Summary>, StudyError> {
        let conn = self.study.db.open_directly(Writer::Import).await?;
        self.study
            .db
            .write_directly_as(Writer::Import, conn, |tx| {
                if db::papers::any(tx)? {
                    return Ok(None);
                }
                let mut rng = rand::rngs::StdRng::from_os_rng();
                let rows = RowsRead::default();
                let papers = import::papers::stage(
                    demo::PAPERS_CSV.as_bytes(),
                    Format::Csv,
                    "demo/papers.csv",
                    &rows,
                )?;
                Bulk::Papers(papers).write(tx, &mut rng)?;
                let options = import::recommendations::Options {
                    format: Format::Csv,
                    model: None,
                };
                let lists = import::recommendations::stage(
                    demo::RECOMMENDATIONS_CSV.as_bytes(),
                    &options,
                    db::papers::index(tx)?,
                    "demo/recommendations.csv",
                    &rows,
                )?;
                let summary = Bulk::Recommendations(lists).write(tx, &mut rng)?;
                db::study::bump_revision_directly(tx)?;
                Ok(Some(summary))
            })
            .await
    }
}

/// Reads and checks file `index` of papers or lists, resolving its ids against the papers
/// `conn` sees: the file, or its problems.
fn read_bulk(
    kind: &BulkKind,
    conn: &rusqlite::Connection,
    file: ImportFile,
    index: usize,
    progress: &impl ImportProgress,
) -> Result<Result<Bulk, InvalidInput>, StudyError> {
    let papers = match kind.resolves_ids() {
        true => db::papers::index(conn)?,
        false => PaperIndex::default(),
    };
    progress.reading(index);
    Ok(Bulk::read(
        kind,
        file.reader,
        papers,
        &file.source,
        &progress.rows(),
    ))
}

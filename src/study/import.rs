//! Importing a file: the command that writes a whole file in one transaction, or (on any
//! problem or error) nothing at all; and the bundled demo study.
//!
//! The file is read and checked first ([`Staged::read`]), before the study's write lock is
//! taken. Papers and lists are then written on a connection of the import's own
//! ([`db::direct::open_writer`]), in the process's turn of the write queue: their hot loops
//! step SQLite directly. Ratings are written as the raters' ratings are, through the study's
//! connections. Either way the study's revision is counted once per file, if the file changed
//! anything: the evaluation kept in memory is out of date from then on, and not before.

use std::io::Read;

use rand::{Rng, SeedableRng};

use super::{Study, StudyError};
use crate::blocking;
use crate::db::papers::PaperIndex;
use crate::db::{self, direct, Writer};
use crate::demo;
use crate::import::{self, Bulk, Format, Kind, Staged, Summary};

impl Study {
    /// Imports one file of `kind` in one transaction of its own: all of it, or nothing.
    ///
    /// `source` names the file in problems; `rng` draws the display keys of pairs entering
    /// the pool; `on_write` is called once the whole file is read and checked, as the write
    /// begins (a progress bar of the reading gives way to one of the writing).
    pub async fn import(
        &self,
        kind: Kind,
        reader: impl Read + Send + 'static,
        source: String,
        mut rng: impl Rng + Send + 'static,
        on_write: impl FnOnce(),
    ) -> Result<Summary, StudyError> {
        let path = self.path.to_path_buf();
        let (conn, staged) = blocking::run(move || -> Result<_, StudyError> {
            let conn = direct::open_writer(&path, Writer::Import)?;
            let papers = match kind.resolves_ids() {
                true => db::papers::index(&conn)?,
                false => PaperIndex::default(),
            };
            let raters = db::raters::known_directly(&conn)?;
            let staged = Staged::read(&kind, reader, papers, &raters, &source)?;
            Ok((conn, staged))
        })
        .await?;
        on_write();
        match staged {
            Staged::Bulk(bulk) => {
                self.write_directly(conn, move |tx| {
                    let summary = bulk.write(tx, &mut rng)?;
                    if summary.changed() {
                        db::study::bump_revision_directly(tx)?;
                    }
                    Ok(summary)
                })
                .await
            }
            Staged::Ratings(ratings) => {
                drop(conn);
                self.write_as(Writer::Import, async |conn| {
                    let summary = ratings.write(conn, &mut rng).await?;
                    if summary.changed() {
                        db::study::bump_revision(conn).await?;
                    }
                    Ok(summary)
                })
                .await
            }
        }
    }

    /// Loads the demo study into a study without papers, in one transaction; `None` (and
    /// nothing written) if the study holds papers.
    pub async fn load_demo_if_empty(&self) -> Result<Option<Summary>, StudyError> {
        self.write_directly(self.open_directly(Writer::Import).await?, |tx| {
            if db::papers::any(tx)? {
                return Ok(None);
            }
            let mut rng = rand::rngs::StdRng::from_os_rng();
            let papers =
                import::papers::stage(demo::PAPERS_CSV.as_bytes(), Format::Csv, "demo/papers.csv")?;
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
            )?;
            let summary = Bulk::Recommendations(lists).write(tx, &mut rng)?;
            db::study::bump_revision_directly(tx)?;
            Ok(Some(summary))
        })
        .await
    }
}

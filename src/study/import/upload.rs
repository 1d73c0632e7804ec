//! Imports from the browser, each a job of the study: an [`Upload`] streams the files to
//! temporary files beside the study, then [`Upload::start`] imports them as the command line
//! imports a file (one [`Study::import`] of all of them, all or nothing) while the browser
//! follows the job ([`Study::import_job`]).
//!
//! One job at a time: a second upload is refused ([`Refusal::ImportRunning`]) from its first
//! byte until the first job is done. Jobs live in memory, the last [`JOBS_KEPT`] of them, and
//! end with the process: after a restart a job's address finds nothing, and the study says
//! what it holds. A job's id is 128 random bits, which nobody guesses. The temporary files are
//! removed when the import ends, and at once when an upload ends before its last byte (the
//! connection closed, the upload was refused): nothing of it stays, in the study or beside it.

use super::Handle;
use std::collections::VecDeque;
use std::fmt;
use std::fs::File;
use std::io::{BufReader, Seek, Write};
use std::path::Path;
use std::sync::atomic::{AtomicU64, AtomicU8, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};

use rand::{Rng, SeedableRng};
use tempfile::TempPath;

use super::{ImportFile, ImportProgress};
use crate::blocking;
use crate::formats::{InvalidFiles, RowsRead};
use crate::study::error::{Refusal, StudyError};
use crate::study::import::{Kind, Summary};
use crate::study::Study;

/// How many jobs the study remembers (the one running among them): enough for the pages of
/// the imports of a session, little memory.
pub const JOBS_KEPT: usize = 32;

/// Bytes of an upload gathered in memory before they are written to its temporary file.
const WRITE_BUFFER_BYTES: usize = 1 << 20;

/// The jobs of a study, shared by its clones.
#[derive(Debug, Default)]
pub(in crate::study) struct ImportJobs(Mutex<Jobs>);

#[derive(Debug, Default)]
struct Jobs {
    /// The newest last.
    kept: VecDeque<Arc<Job>>,
    /// The job uploading or importing now.
    running: Option<JobId>,
}

impl ImportJobs {
    fn lock(&self) -> MutexGuard<'_, Jobs> {
        // A panic while the lock was held left at worst a job's state behind: used as is.
        self.0.lock().unwrap_or_else(PoisonError::into_inner)
    }

    fn release(&self, id: &JobId) {
        let mut jobs = self.lock();
        if jobs.running.as_ref() == Some(id) {
            jobs.running = None;
        }
    }
}

/// An import job's id: 128 random bits, in lowercase hex.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct JobId(String);

impl JobId {
    const BYTES: usize = 16;

    pub(in crate::study) fn random() -> JobId {
        JobId(hex::encode(rand::rng().random::<[u8; JobId::BYTES]>()))
    }

    /// The id `text` spells, if it spells one.
    pub fn parse(text: &str) -> Option<JobId> {
        let well_formed = text.len() == 2 * JobId::BYTES
            && (text.bytes()).all(|byte| byte.is_ascii_digit() || (b'a'..=b'f').contains(&byte));
        well_formed.then(|| JobId(text.to_owned()))
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl fmt::Display for JobId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

/// Where a job is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[repr(u8)]
pub enum JobState {
    /// The files are arriving.
    Uploading,
    /// A file is being read and checked.
    Reading,
    /// A file is being written to the study.
    Writing,
    Done,
    /// Nothing was imported.
    Failed,
}

impl JobState {
    const ALL: [JobState; 5] = [
        JobState::Uploading,
        JobState::Reading,
        JobState::Writing,
        JobState::Done,
        JobState::Failed,
    ];

    /// The state as the job's JSON names it.
    pub fn as_str(self) -> &'static str {
        match self {
            JobState::Uploading => "uploading",
            JobState::Reading => "reading",
            JobState::Writing => "writing",
            JobState::Done => "done",
            JobState::Failed => "failed",
        }
    }

    pub fn is_finished(self) -> bool {
        matches!(self, JobState::Done | JobState::Failed)
    }
}

/// Why a job imported nothing.
#[derive(Debug, Clone)]
pub enum JobFailure {
    /// The files have problems, each with its file, line and column.
    Invalid(InvalidFiles),
    /// The upload ended before its last byte: the connection closed, or the upload was
    /// refused (its answer said why).
    Interrupted,
    /// Another process (an import from the command line) held the study too long.
    Busy,
    DiskFull,
    /// Anything else; the cause is logged.
    Internal,
    /// Refused for another reason, said.
    Refused(String),
}

/// Why nothing was imported, in words: "3 problems in 2 files".
impl fmt::Display for JobFailure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            JobFailure::Invalid(invalid) => {
                let problems: u64 = (invalid.files().iter())
                    .map(|file| file.problems.len() as u64 + file.unreported)
                    .sum();
                let files = invalid.files().len();
                write!(
                    f,
                    "{problems} {} in {files} {}",
                    crate::words::plural(problems as usize, "problem", "problems"),
                    crate::words::plural(files, "file", "files")
                )
            }
            JobFailure::Interrupted => f.write_str(
                "the upload did not arrive whole (the connection closed, or the upload was \
                 refused)",
            ),
            JobFailure::Busy => f.write_str(
                "another program (an import from the command line?) held the study too long; \
                 import again once it has finished",
            ),
            JobFailure::DiskFull => f.write_str(
                "the server's disk is full; free some space on the server, then import again",
            ),
            JobFailure::Internal => {
                f.write_str("the import failed on the server; its log has the details")
            }
            JobFailure::Refused(why) => f.write_str(why),
        }
    }
}

impl From<StudyError> for JobFailure {
    fn from(error: StudyError) -> JobFailure {
        match error {
            StudyError::Refused(Refusal::Invalid(invalid)) => JobFailure::Invalid(invalid),
            StudyError::Refused(refusal) => JobFailure::Refused(refusal.to_string()),
            StudyError::Busy(_) => JobFailure::Busy,
            StudyError::DiskFull(_) => JobFailure::DiskFull,
            StudyError::Unreadable(cause) | StudyError::Internal(cause) => {
                tracing::error!(%cause, "an import from the browser failed");
                JobFailure::Internal
            }
        }
    }
}

/// How a job ended.
#[derive(Debug, Clone)]
pub enum Outcome {
    Done(Summary),
    Failed(JobFailure),
}

/// A job as it is now.
#[derive(Debug, Clone)]
pub struct JobReport {
    pub id: JobId,
    /// `papers`, `recommendations` or `ratings`, once the upload has arrived.
    pub kind: Option<&'static str>,
    pub state: JobState,
    /// The files' names as the browser gave them (shown, never used as paths).
    pub files: Vec<String>,
    /// The file being read or written (from 0).
    pub file: usize,
    /// Bytes of the files received so far.
    pub bytes: u64,
    /// Rows read so far, over all the files.
    pub rows: u64,
    /// Once the job has ended.
    pub outcome: Option<Outcome>,
}

/// One job, as the study keeps it.
#[derive(Debug)]
struct Job {
    id: JobId,
    state: AtomicU8,
    file: AtomicUsize,
    bytes: AtomicU64,
    rows: RowsRead,
    details: Mutex<Details>,
    /// Becomes `true` when the job has ended.
    ended: tokio::sync::watch::Sender<bool>,
}

#[derive(Debug, Default)]
struct Details {
    kind: Option<&'static str>,
    files: Vec<String>,
    outcome: Option<Outcome>,
}

impl Job {
    fn details(&self) -> MutexGuard<'_, Details> {
        self.details.lock().unwrap_or_else(PoisonError::into_inner)
    }

    fn state(&self) -> JobState {
        JobState::ALL[usize::from(self.state.load(Ordering::Relaxed))]
    }

    fn set_state(&self, state: JobState) {
        self.state.store(state as u8, Ordering::Relaxed);
    }

    fn report(&self) -> JobReport {
        let details = self.details();
        JobReport {
            id: self.id.clone(),
            kind: details.kind,
            state: self.state(),
            files: details.files.clone(),
            file: self.file.load(Ordering::Relaxed),
            bytes: self.bytes.load(Ordering::Relaxed),
            rows: self.rows.get(),
            outcome: details.outcome.clone(),
        }
    }

    /// Ends the job as `outcome` says (the first end counts).
    fn end(&self, outcome: Outcome) {
        let mut details = self.details();
        if details.outcome.is_some() {
            return;
        }
        self.set_state(match outcome {
            Outcome::Done(_) => JobState::Done,
            Outcome::Failed(_) => JobState::Failed,
        });
        details.outcome = Some(outcome);
        drop(details);
        self.ended.send_replace(true);
    }
}

/// A job follows its import.
impl ImportProgress for Arc<Job> {
    fn rows(&self) -> RowsRead {
        self.rows.clone()
    }

    fn reading(&self, file: usize) {
        self.file.store(file, Ordering::Relaxed);
        self.set_state(JobState::Reading);
    }

    fn writing(&self, file: usize) {
        self.file.store(file, Ordering::Relaxed);
        self.set_state(JobState::Writing);
    }
}

/// The files of an import arriving from the browser. Dropped before [`Upload::start`], it
/// ends its job as [`JobFailure::Interrupted`] and removes its temporary files.
pub struct Upload {
    study: Study,
    job: Arc<Job>,
    files: Vec<UploadedFile>,
    /// Bytes of the last file not written to it yet.
    buffer: Vec<u8>,
    /// The import has begun: the job ends with it.
    started: bool,
}

/// One file of an upload: its name as the browser gave it, and the temporary file holding it
/// (removed when this is dropped).
struct UploadedFile {
    name: String,
    file: File,
    path: TempPath,
}

impl Handle<'_> {
    /// Begins an import from the browser: refused while another is uploading or importing.
    pub fn begin_upload(&self) -> Result<Upload, StudyError> {
        let job = Arc::new(Job {
            id: JobId::random(),
            state: AtomicU8::new(JobState::Uploading as u8),
            file: AtomicUsize::new(0),
            bytes: AtomicU64::new(0),
            rows: RowsRead::default(),
            details: Mutex::default(),
            ended: tokio::sync::watch::Sender::new(false),
        });
        let mut jobs = self.study.jobs.lock();
        if jobs.running.is_some() {
            return Err(Refusal::ImportRunning.into());
        }
        jobs.running = Some(job.id.clone());
        if jobs.kept.len() == JOBS_KEPT {
            let ended = (jobs.kept.iter()).position(|job| job.state().is_finished());
            if let Some(ended) = ended {
                jobs.kept.remove(ended);
            }
        }
        jobs.kept.push_back(job.clone());
        drop(jobs);
        Ok(Upload {
            study: self.study.clone(),
            job,
            files: Vec::new(),
            buffer: Vec::new(),
            started: false,
        })
    }

    /// Removes the temporary files of uploads that no process is running any more (`.NAME.
    /// upload-*` beside the study, left by a server killed in the middle of one): those whose
    /// lock (held by a running upload from its first byte to the end of its import) can be
    /// taken. Answers how many were removed. `serve` calls it as it starts.
    pub async fn sweep_upload_leftovers(&self) -> Result<usize, StudyError> {
        let directory = match self.study.path().parent() {
            Some(parent) if !parent.as_os_str().is_empty() => parent.to_owned(),
            _ => Path::new(".").to_owned(),
        };
        let prefix = upload_prefix(
            &(self.study.path().file_name())
                .map(|name| name.to_string_lossy().into_owned())
                .unwrap_or_default(),
        );
        let removed = blocking::run(move || {
            let mut removed = 0;
            for entry in std::fs::read_dir(&directory)? {
                let entry = entry?;
                let is_leftover = entry.file_name().to_string_lossy().starts_with(&prefix)
                    && entry.file_type()?.is_file();
                if !is_leftover {
                    continue;
                }
                let Ok(file) = File::open(entry.path()) else {
                    continue;
                };
                // Removed while locked: no upload can be using it.
                if file.try_lock().is_ok() && std::fs::remove_file(entry.path()).is_ok() {
                    removed += 1;
                }
            }
            Ok::<_, std::io::Error>(removed)
        })
        .await?;
        Ok(removed)
    }

    /// The job with this id, as it is now; `None` if the study keeps no such job.
    pub fn job(&self, id: &JobId) -> Option<JobReport> {
        let jobs = self.study.jobs.lock();
        let job = jobs.kept.iter().find(|job| job.id == *id);
        job.map(|job| job.report())
    }

    /// The job with this id once it has ended; `None` if the study keeps no such job.
    pub async fn job_ended(&self, id: &JobId) -> Option<JobReport> {
        let job = self
            .study
            .jobs
            .lock()
            .kept
            .iter()
            .find(|job| job.id == *id)
            .cloned()?;
        let mut ended = job.ended.subscribe();
        // The sender lives in the job, which this holds.
        let _ = ended.wait_for(|ended| *ended).await;
        Some(job.report())
    }

    /// The job uploading or importing now, if any.
    pub fn running(&self) -> Option<JobId> {
        self.study.jobs.lock().running.clone()
    }
}

impl Upload {
    pub fn id(&self) -> &JobId {
        &self.job.id
    }

    /// A new file of the upload, named `name` by the browser, written to a new temporary file
    /// beside the study: `name` is shown, never used as a path.
    pub async fn add_file(&mut self, name: &str) -> Result<(), StudyError> {
        self.flush().await?;
        let directory = match self.study.path().parent() {
            Some(parent) if !parent.as_os_str().is_empty() => parent.to_owned(),
            _ => Path::new(".").to_owned(),
        };
        let study_name = (self.study.path().file_name())
            .map(|name| name.to_string_lossy().into_owned())
            .unwrap_or_default();
        let (file, path) = blocking::run(move || {
            let (file, path) = tempfile::Builder::new()
                .prefix(&upload_prefix(&study_name))
                .tempfile_in(directory)?
                .into_parts();
            // Held while the file is open (until its import ends), so that a server starting
            // meanwhile leaves it alone (see `Study::sweep_upload_leftovers`). A file system
            // without locks keeps the file unlocked: a sweep may then unlink it, which the
            // upload, writing and reading through its open file, does not notice.
            let _ = file.try_lock();
            Ok::<_, std::io::Error>((file, path))
        })
        .await?;
        let name = shown_name(name, self.files.len());
        self.job.details().files.push(name.clone());
        self.files.push(UploadedFile { name, file, path });
        Ok(())
    }

    /// Appends `bytes` to the last file added.
    pub async fn write(&mut self, bytes: &[u8]) -> Result<(), StudyError> {
        if self.files.is_empty() {
            return Err(Refusal::NoFile.into());
        }
        self.buffer.extend_from_slice(bytes);
        self.job
            .bytes
            .fetch_add(bytes.len() as u64, Ordering::Relaxed);
        if self.buffer.len() >= WRITE_BUFFER_BYTES {
            self.flush().await?;
        }
        Ok(())
    }

    /// Writes the buffered bytes to the last file.
    async fn flush(&mut self) -> Result<(), StudyError> {
        let Some(last) = self.files.last_mut() else {
            return Ok(());
        };
        if self.buffer.is_empty() {
            return Ok(());
        }
        let buffer = std::mem::take(&mut self.buffer);
        let file = last.file.try_clone()?;
        let buffer = blocking::run(move || {
            let mut file = file;
            file.write_all(&buffer).map(|()| buffer)
        })
        .await?;
        // The buffer's room, for the next bytes.
        self.buffer = buffer;
        self.buffer.clear();
        Ok(())
    }

    /// The upload is complete: imports its files as `kind` in the background, and answers
    /// the job's id. The temporary files are removed when the import has ended.
    pub async fn start(mut self, kind: Kind) -> Result<JobId, StudyError> {
        if self.files.is_empty() {
            return Err(Refusal::NoFile.into());
        }
        self.flush().await?;
        let files = std::mem::take(&mut self.files);
        let mut paths = Vec::with_capacity(files.len());
        let mut imported = Vec::with_capacity(files.len());
        for UploadedFile {
            name,
            mut file,
            path,
        } in files
        {
            file.rewind()?;
            imported.push(ImportFile::new(
                name,
                BufReader::with_capacity(1 << 20, file),
            ));
            paths.push(path);
        }
        self.job.details().kind = Some(kind.name());
        self.started = true;
        let (study, job) = (self.study.clone(), self.job.clone());
        tokio::spawn(async move {
            let rng = rand::rngs::StdRng::from_os_rng();
            let result = study.import().files(kind, imported, rng, job.clone()).await;
            // The files go first, so that nothing is left once the job says it has ended.
            drop(paths);
            job.end(match result {
                Ok(summary) => Outcome::Done(summary),
                Err(error) => Outcome::Failed(error.into()),
            });
            study.jobs.release(&job.id);
        });
        Ok(self.job.id.clone())
    }
}

impl Drop for Upload {
    fn drop(&mut self) {
        // Started, the job ends with its import; not started, here, its files removed first.
        if self.started {
            return;
        }
        self.files.clear();
        self.job.end(Outcome::Failed(JobFailure::Interrupted));
        self.study.jobs.release(&self.job.id);
    }
}

/// How the temporary files of the uploads into the study file `study_name` begin.
fn upload_prefix(study_name: &str) -> String {
    format!(".{study_name}.upload-")
}

/// The name a file is shown by: the browser's, without any folder, at most 200 characters;
/// `file N` when it gave none.
fn shown_name(name: &str, index: usize) -> String {
    let base = name.rsplit(['/', '\\']).next().unwrap_or_default().trim();
    match base.is_empty() {
        true => format!("file {}", index + 1),
        false => base.chars().take(200).collect(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_file_is_shown_by_its_name_without_folders() {
        assert_eq!(shown_name("runs/bm25.run", 0), "bm25.run");
        assert_eq!(shown_name("C:\\Users\\x\\lda.run", 0), "lda.run");
        assert_eq!(shown_name("../../etc/passwd", 0), "passwd");
        assert_eq!(shown_name("", 2), "file 3");
        assert_eq!(shown_name("a/", 0), "file 1");
        assert_eq!(shown_name(&"é".repeat(300), 0).chars().count(), 200);
    }

    #[test]
    fn a_job_id_is_32_hex_digits() {
        let id = JobId::random();
        assert_eq!(JobId::parse(id.as_str()), Some(id.clone()));
        assert_ne!(JobId::random(), id);
        assert!(JobId::parse("0123456789abcdef0123456789abcdef").is_some());
        for bad in [
            "",
            "0123456789ABCDEF0123456789ABCDEF",
            "0123",
            "../etc/passwd",
        ] {
            assert_eq!(JobId::parse(bad), None, "{bad}");
        }
    }
}

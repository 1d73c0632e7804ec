//! Writing a command's output to the file of `-o PATH` as the person meant it, whatever is
//! at PATH.
//!
//! - Nothing, or a regular file: the output is written to a new file beside it and renamed
//!   over it once complete and on disk, so that PATH holds either what it held or the whole
//!   output, never a part (a file that was there keeps its permissions).
//! - A symbolic link: the file it names is written so, and the link stays a link (a rename
//!   onto the link itself would replace the link and leave its file as it was).
//! - A FIFO or a character device (`/dev/null`, a terminal, `/dev/stdout`): the output is
//!   written straight into it, as a shell's `>` does; renaming a file onto it would replace the
//!   node (as root, `-o /dev/null` would replace the machine's `/dev/null` with a file) and
//!   leave a FIFO's reader waiting forever.
//! - A directory, a block device (a disk) or a socket: refused, saying which it is.

use std::fs::{self, File, OpenOptions};
use std::io::{self, BufWriter, Write};
use std::path::{Path, PathBuf};

use rand::Rng;

/// How many symbolic links a path may go through before it is taken for a loop (as Linux's
/// 40).
const MOST_LINKS: usize = 40;

/// Why the output could not be written to PATH: the message says what is there, or what
/// failed.
#[derive(Debug, thiserror::Error)]
#[error("{0}")]
pub struct CannotWrite(String);

impl From<io::Error> for CannotWrite {
    fn from(error: io::Error) -> CannotWrite {
        CannotWrite(error.to_string())
    }
}

/// Writes the output `write` produces to `path`, as the module says.
pub fn write_file(
    path: &Path,
    write: impl FnOnce(&mut dyn Write) -> io::Result<()>,
) -> Result<(), CannotWrite> {
    match fs::metadata(path) {
        Ok(metadata) => {
            let kind = metadata.file_type();
            if kind.is_file() {
                // The file itself, through any links (a link may be relative to its folder).
                let real = fs::canonicalize(path)?;
                replace(&real, Some(metadata.permissions()), write)
            } else if kind.is_dir() {
                Err(CannotWrite(
                    "it is a directory; give the path of a file".to_owned(),
                ))
            } else if is_block_device(&kind) {
                Err(CannotWrite(
                    "it is a block device (a disk); paperjudge writes its output to a file, a \
                     FIFO or a character device"
                        .to_owned(),
                ))
            } else if is_socket(&kind) {
                Err(CannotWrite(
                    "it is a socket, which cannot be written as a file".to_owned(),
                ))
            } else {
                // A FIFO or a character device: straight into it.
                let file = OpenOptions::new().write(true).open(path)?;
                let mut out = BufWriter::new(file);
                write(&mut out)?;
                out.into_inner().map_err(io::IntoInnerError::into_error)?;
                Ok(())
            }
        }
        Err(error) if error.kind() == io::ErrorKind::NotFound => {
            let target = link_target(path)?;
            replace(&target, None, write)
        }
        Err(error) => Err(error.into()),
    }
}

/// The file writing to `path` as [`write_file`] does would replace or make, by its canonical
/// path: the file itself through any links, or for a path that names nothing yet, the name in
/// its folder (through a dangling link, the name the last link gives). `None` when the folder
/// cannot be found.
pub fn destination(path: &Path) -> Option<PathBuf> {
    if let Ok(real) = fs::canonicalize(path) {
        return Some(real);
    }
    let target = link_target(path).ok()?;
    let folder = match target.parent() {
        Some(folder) if !folder.as_os_str().is_empty() => folder,
        _ => Path::new("."),
    };
    Some(fs::canonicalize(folder).ok()?.join(target.file_name()?))
}

/// Where a path that names nothing existing is to be made: itself, or through a dangling
/// symbolic link, the path the last link names.
fn link_target(path: &Path) -> Result<PathBuf, CannotWrite> {
    let mut path = path.to_owned();
    for _ in 0..MOST_LINKS {
        let is_link = fs::symlink_metadata(&path).is_ok_and(|m| m.file_type().is_symlink());
        if !is_link {
            return Ok(path);
        }
        let target = fs::read_link(&path)?;
        path = match path.parent() {
            Some(folder) => folder.join(target),
            None => target,
        };
    }
    Err(CannotWrite(format!(
        "it goes through more than {MOST_LINKS} symbolic links"
    )))
}

/// Writes a new file beside `path`, then renames it over `path` once whole and on disk; the
/// new file gets `permissions` (those of the file it replaces), or else those any new file
/// gets. A failure leaves `path` as it was, and nothing beside it.
fn replace(
    path: &Path,
    permissions: Option<fs::Permissions>,
    write: impl FnOnce(&mut dyn Write) -> io::Result<()>,
) -> Result<(), CannotWrite> {
    let folder = match path.parent() {
        Some(folder) if !folder.as_os_str().is_empty() => folder,
        _ => Path::new("."),
    };
    let name = path
        .file_name()
        .ok_or_else(|| CannotWrite("it names no file (it ends in `..` or is a root)".to_owned()))?;
    let partial = folder.join(format!(
        ".{}.{:016x}.partial",
        name.to_string_lossy(),
        rand::rng().random::<u64>()
    ));
    // Created as `File::create` creates (the umask applies), never over an existing file.
    let file = OpenOptions::new()
        .write(true)
        .create_new(true)
        .open(&partial)?;
    let written = (|| -> io::Result<()> {
        let mut out = BufWriter::new(file);
        write(&mut out)?;
        let file: File = out.into_inner().map_err(io::IntoInnerError::into_error)?;
        if let Some(permissions) = permissions {
            file.set_permissions(permissions)?;
        }
        file.sync_all()?;
        fs::rename(&partial, path)
    })();
    written.map_err(|error| {
        let _ = fs::remove_file(&partial);
        error.into()
    })
}

#[cfg(unix)]
fn is_block_device(kind: &fs::FileType) -> bool {
    std::os::unix::fs::FileTypeExt::is_block_device(kind)
}

#[cfg(unix)]
fn is_socket(kind: &fs::FileType) -> bool {
    std::os::unix::fs::FileTypeExt::is_socket(kind)
}

#[cfg(not(unix))]
fn is_block_device(_: &fs::FileType) -> bool {
    false
}

#[cfg(not(unix))]
fn is_socket(_: &fs::FileType) -> bool {
    false
}

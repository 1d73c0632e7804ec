//! What cargo needs told beyond Cargo.toml: when to rebuild for a new migration, the build's
//! id, and how to link the release binary small.

use std::env;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;

/// What an output of the app can change with: its sources, the statistics' sources, the
/// schema, the versions of every crate, and the compiler.
const SOURCES: [&str; 7] = [
    "src",
    "crates/paperjudge-stats/src",
    "migrations",
    "Cargo.lock",
    "Cargo.toml",
    "crates/paperjudge-stats/Cargo.toml",
    "build.rs",
];

fn main() {
    // The build's id, a hash of every file that can change an output: a leaderboard's output
    // kept in a study file (src/study/evaluation/kept/) is printed again only by a binary of
    // the same id. Cargo scans a directory named here whole, so any change of a file in it
    // (a new migration too) runs this script again.
    for source in SOURCES {
        println!("cargo:rerun-if-changed={source}");
    }
    println!("cargo:rerun-if-env-changed=RUSTC");
    println!("cargo:rustc-env=PAPERJUDGE_BUILD_ID={:016x}", build_id());

    // `sqlx::migrate!` embeds migrations/ at compile time, but rustc does not know it read the
    // directory: without its line above a new migration file is missed until something else
    // makes the crate recompile (the sqlx documentation's advice).

    // The release binary keeps the line tables of the app's own code (Cargo.toml says why):
    // compressed by the linker they take a third of the room, and std's backtrace reads them
    // as they are. zlib, not zstd, which std's backtrace does not read. `-O2` lets lld merge
    // the debug strings that end alike. `--discard-all` drops the local symbols (3.3 MB of
    // names, 4 MB with their entries): a backtrace still has every frame's file and line from
    // the line tables and its function's name from the .dwp beside the binary, and a binary
    // alone still names the functions other crates call (docs/development.md). GNU ld, gold,
    // lld and mold all take these options.
    let release = env::var("PROFILE").as_deref() == Ok("release");
    let linux = env::var("CARGO_CFG_TARGET_OS").as_deref() == Ok("linux");
    if release && linux {
        println!("cargo:rustc-link-arg-bins=-Wl,--compress-debug-sections=zlib");
        println!("cargo:rustc-link-arg-bins=-Wl,-O2");
        println!("cargo:rustc-link-arg-bins=-Wl,--discard-all");
    }
}

/// FNV-1a 64 of the compiler's version and of every file of [`SOURCES`], each by its path and
/// contents, in the order of their paths.
fn build_id() -> u64 {
    let mut files = Vec::new();
    for source in SOURCES {
        files_under(Path::new(source), &mut files);
    }
    files.sort();
    let rustc = env::var("RUSTC").unwrap_or_else(|_| "rustc".to_owned());
    let version = (Command::new(rustc).arg("-vV").output())
        .map(|output| output.stdout)
        .unwrap_or_default();
    let mut hash = fnv_1a(0xcbf2_9ce4_8422_2325, &version);
    for file in files {
        let contents = fs::read(&file).unwrap_or_else(|error| {
            panic!("cannot read {} for the build's id: {error}", file.display())
        });
        hash = fnv_1a(hash, file.to_string_lossy().as_bytes());
        hash = fnv_1a(hash, &(contents.len() as u64).to_le_bytes());
        hash = fnv_1a(hash, &contents);
    }
    hash
}

/// Every file under `path` (or `path`, a file).
fn files_under(path: &Path, files: &mut Vec<PathBuf>) {
    if path.is_dir() {
        let entries = fs::read_dir(path).unwrap_or_else(|error| {
            panic!("cannot list {} for the build's id: {error}", path.display())
        });
        for entry in entries.flatten() {
            files_under(&entry.path(), files);
        }
    } else {
        files.push(path.to_owned());
    }
}

fn fnv_1a(hash: u64, bytes: &[u8]) -> u64 {
    (bytes.iter()).fold(hash, |hash, &byte| {
        (hash ^ u64::from(byte)).wrapping_mul(0x0100_0000_01b3)
    })
}

//! What cargo needs told beyond Cargo.toml: when to rebuild for a new migration, and how to
//! link the release binary small.

use std::env;

fn main() {
    // `sqlx::migrate!` embeds migrations/ at compile time, but rustc does not know it read the
    // directory: without this line a new migration file is missed until something else makes
    // the crate recompile (the sqlx documentation's advice).
    println!("cargo:rerun-if-changed=migrations");

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

//! The floors of ARCHITECTURE.md, kept by a test where the compiler cannot keep them: the
//! compiler refuses a face that names the data layer (`study::db` is private), but a pure
//! module may name anything public. Each rule reads the source of the modules it binds and
//! names the file and line that breaks it.

use std::fs;
use std::path::{Path, PathBuf};

/// Every `.rs` file under `dir`, or `dir` itself when it is a file.
fn rust_files(dir: &Path) -> Vec<PathBuf> {
    if dir.is_file() {
        return vec![dir.to_owned()];
    }
    let mut files = Vec::new();
    for entry in fs::read_dir(dir).expect("a source folder") {
        let path = entry.expect("an entry").path();
        if path.is_dir() {
            files.extend(rust_files(&path));
        } else if path.extension().is_some_and(|extension| extension == "rs") {
            files.push(path);
        }
    }
    files.sort();
    files
}

/// The module's files: `src/NAME/` (its `mod.rs` and the rest), or `src/NAME.rs`.
fn module_files(name: &str) -> Vec<PathBuf> {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let folder = src.join(name);
    if folder.is_dir() {
        rust_files(&folder)
    } else {
        rust_files(&src.join(format!("{name}.rs")))
    }
}

/// Each line of `modules`' code (comments left out) that names one of `forbidden`, as
/// `file:line: text`.
fn lines_naming(modules: &[&str], forbidden: &[&str]) -> Vec<String> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut found = Vec::new();
    for module in modules {
        let files = module_files(module);
        assert!(!files.is_empty(), "no source for the module {module}");
        for file in files {
            let text = fs::read_to_string(&file).expect("a source file");
            for (index, line) in text.lines().enumerate() {
                let code = line.split("//").next().unwrap_or_default();
                if forbidden.iter().any(|name| code.contains(name)) {
                    let shown = file.strip_prefix(root).unwrap_or(&file).display();
                    found.push(format!("{shown}:{}: {}", index + 1, line.trim()));
                }
            }
        }
    }
    found
}

/// The pure modules: no I/O of a study, no web, no command line. They may name each other and
/// `domain`.
const PURE: &[&str] = &[
    "metrics",
    "formats",
    "words",
    "leaderboard",
    "checks",
    "lists",
    "decision",
    "simulation",
    "password",
    "terminal",
];

#[test]
fn the_pure_modules_name_no_study_no_database_and_no_face() {
    let found = lines_naming(
        PURE,
        &[
            "crate::study",
            "crate::web",
            "crate::cli",
            "crate::export",
            "sqlx",
            "rusqlite",
            "actix",
        ],
    );
    assert!(
        found.is_empty(),
        "a pure module reaches up:\n{}",
        found.join("\n")
    );
}

#[test]
fn the_metrics_depend_on_nothing_above_them() {
    let above = [
        "crate::leaderboard",
        "crate::decision",
        "crate::checks",
        "crate::lists",
        "crate::simulation",
        "crate::words",
        "crate::formats",
    ];
    let found = lines_naming(&["metrics"], &above);
    assert!(found.is_empty(), "metrics reach up:\n{}", found.join("\n"));
}

#[test]
fn the_study_names_no_face() {
    let found = lines_naming(&["study", "export"], &["crate::web", "crate::cli", "actix"]);
    assert!(
        found.is_empty(),
        "the study reaches a face:\n{}",
        found.join("\n")
    );
}

/// A view is apart from the row its SQL reads: only a feature's `store.rs` derives `FromRow`,
/// on a row struct of its own, so a change of SQL cannot change a page or a file format.
#[test]
fn only_a_store_reads_rows_as_they_are() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let modules: Vec<String> = (fs::read_dir(&src).expect("src").map(|entry| {
        let path = entry.expect("an entry").path();
        let name = path.file_stem().expect("a name").to_string_lossy();
        name.into_owned()
    }))
    .filter(|name| name != "lib" && name != "main")
    .collect();
    let modules: Vec<&str> = modules.iter().map(String::as_str).collect();
    let found: Vec<String> = lines_naming(&modules, &["FromRow"])
        .into_iter()
        .filter(|line| {
            !line
                .split(':')
                .next()
                .unwrap_or_default()
                .ends_with("store.rs")
        })
        .collect();
    assert!(
        found.is_empty(),
        "rows read outside a store:\n{}",
        found.join("\n")
    );
}

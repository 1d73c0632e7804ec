//! The floors of ARCHITECTURE.md that the compiler cannot keep. It keeps most of them: the
//! pure core is a crate of its own (`crates/paperjudge-stats`), which cannot name the app, and
//! the data layer is private to `study`. What is left is kept here: what the statistics crate
//! is built on (a dependency added to its Cargo.toml compiles), the order of the modules within
//! one crate, and where rows are read. Each rule names the file and line that breaks it.

use std::collections::{BTreeSet, HashMap};
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

/// The app's sources.
fn app() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("src")
}

/// The statistics crate's sources.
fn statistics() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("crates/paperjudge-stats/src")
}

/// The module's files under `src`: `NAME/` (its `mod.rs` and the rest), or `NAME.rs`.
fn module_files(src: &Path, name: &str) -> Vec<PathBuf> {
    let folder = src.join(name);
    if folder.is_dir() {
        rust_files(&folder)
    } else {
        rust_files(&src.join(format!("{name}.rs")))
    }
}

/// Each line of the `modules` of `src` (comments left out) that names one of `forbidden`, as
/// `file:line: text`.
fn lines_naming(src: &Path, modules: &[&str], forbidden: &[&str]) -> Vec<String> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut found = Vec::new();
    for module in modules {
        let files = module_files(src, module);
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

/// Every package `package` is built on, as Cargo.lock resolves them (its dev-dependencies
/// included), by name.
fn built_on(package: &str) -> BTreeSet<String> {
    let lock = fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("Cargo.lock"))
        .expect("Cargo.lock");
    // name -> the names it depends on (a name may stand for several versions: their union).
    let mut dependencies: HashMap<String, Vec<String>> = HashMap::new();
    for entry in lock.split("[[package]]").skip(1) {
        let name = (entry.lines())
            .find_map(|line| line.strip_prefix("name = "))
            .expect("a package's name")
            .trim_matches('"')
            .to_owned();
        let listed = (entry.split_once("dependencies = [").map(|(_, rest)| rest))
            .and_then(|rest| rest.split_once(']'))
            .map(|(list, _)| list)
            .unwrap_or_default();
        let names = (listed.split(','))
            .map(|item| item.trim().trim_matches('"'))
            .filter(|item| !item.is_empty())
            .map(|item| item.split(' ').next().expect("a name").to_owned());
        dependencies.entry(name).or_default().extend(names);
    }
    let mut seen = BTreeSet::new();
    let mut next = vec![package.to_owned()];
    while let Some(name) = next.pop() {
        for dependency in dependencies.get(&name).into_iter().flatten() {
            if seen.insert(dependency.clone()) {
                next.push(dependency.clone());
            }
        }
    }
    seen
}

#[test]
fn the_statistics_are_built_on_no_database_web_or_async_runtime() {
    let built_on = built_on("paperjudge-stats");
    assert!(built_on.contains("rand_chacha"), "{built_on:?}");
    let forbidden: Vec<&String> = (built_on.iter())
        .filter(|name| {
            [
                "actix", "sqlx", "rusqlite", "sqlite", "tokio", "hyper", "reqwest",
            ]
            .iter()
            .any(|forbidden| name.contains(forbidden))
        })
        .collect();
    assert!(
        forbidden.is_empty(),
        "crates/paperjudge-stats is built on {forbidden:?}"
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
        "crate::terminal",
    ];
    let found = lines_naming(&statistics(), &["metrics"], &above);
    assert!(found.is_empty(), "metrics reach up:\n{}", found.join("\n"));
}

/// The one pure module of the app (it hashes with Argon2, which the statistics need not build).
#[test]
fn the_password_rules_name_no_study_no_database_and_no_face() {
    let found = lines_naming(
        &app(),
        &["password"],
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
        "the password rules reach up:\n{}",
        found.join("\n")
    );
}

#[test]
fn the_study_names_no_face() {
    let found = lines_naming(
        &app(),
        &["study", "export"],
        &["crate::web", "crate::cli", "actix"],
    );
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
    let src = app();
    let modules: Vec<String> = (fs::read_dir(&src).expect("src").map(|entry| {
        let path = entry.expect("an entry").path();
        let name = path.file_stem().expect("a name").to_string_lossy();
        name.into_owned()
    }))
    .filter(|name| name != "lib" && name != "main")
    .collect();
    let modules: Vec<&str> = modules.iter().map(String::as_str).collect();
    let found: Vec<String> = lines_naming(&src, &modules, &["FromRow"])
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

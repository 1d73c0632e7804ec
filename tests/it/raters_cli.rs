//! Raters from the command line (the real binary on a real study file): managing them with
//! clear refusals (exit status 2, nothing changed), their passwords stored as Argon2id hashes,
//! `next --rater`, ratings imported with a `rater` column or `--rater`, and the agreement in
//! `paperjudge checks --format json` equal to independent implementations on fixed data
//! (tests/fixtures/agreement: the `krippendorff` package and scikit-learn) to 1e-9.

use std::path::{Path, PathBuf};
use std::process::Output;

use serde_json::Value;

use crate::metrics_agreement::reference;
use crate::process_support::{paperjudge, stderr, succeeded};

fn run(db: &Path, args: &[&str]) -> Output {
    paperjudge(db, args, &[])
}

fn write(dir: &Path, name: &str, text: &str) -> String {
    let path = dir.join(name);
    std::fs::write(&path, text).unwrap();
    path.display().to_string()
}

/// What a command that succeeded told on standard error.
fn told(output: &Output) -> String {
    succeeded(output);
    stderr(output)
}

/// Refused with exit status 2 and this message.
fn refused(output: &Output, message: &str) {
    assert_eq!(output.status.code(), Some(2), "{}", stderr(output));
    assert_eq!(stderr(output), format!("paperjudge: {message}\n"));
}

/// `targets` targets of `papers` papers each (`T3-5`: paper 5 of T3), one model listing them
/// all, so that every paper of a target is pooled.
fn study(dir: &Path, targets: usize, papers: usize) -> PathBuf {
    let db = dir.join("study.db");
    let mut papers_csv = "id,title\n".to_owned();
    let mut lists = "model,target,rank,paper\n".to_owned();
    for t in 0..targets {
        papers_csv.push_str(&format!("T{t},Target {t}\n"));
        for i in 0..papers {
            papers_csv.push_str(&format!("T{t}-{i},Paper {i} of {t}\n"));
            lists.push_str(&format!("m,T{t},{},T{t}-{i}\n", i + 1));
        }
    }
    succeeded(&run(&db, &["init", "--pool-depth", &papers.to_string()]));
    let papers_file = write(dir, "papers.csv", &papers_csv);
    succeeded(&run(&db, &["import", "papers", &papers_file]));
    let lists_file = write(dir, "lists.csv", &lists);
    succeeded(&run(&db, &["import", "recommendations", &lists_file]));
    db
}

/// Adds a rater whose password file only its owner may read.
fn add_rater(db: &Path, dir: &Path, name: &str) -> Output {
    use std::os::unix::fs::PermissionsExt;
    let file = write(dir, &format!("{name}.password"), "a long enough password\n");
    std::fs::set_permissions(&file, std::fs::Permissions::from_mode(0o600)).unwrap();
    run(db, &["raters", "add", name, "--password-file", &file])
}

#[test]
fn raters_are_managed_from_the_command_line_with_clear_refusals() {
    let dir = tempfile::tempdir().unwrap();
    let db = study(dir.path(), 2, 3);
    assert_eq!(
        told(&add_rater(&db, dir.path(), "Ann Lee")),
        "added the rater Ann Lee\n"
    );
    refused(
        &add_rater(&db, dir.path(), "Ann Lee"),
        "there is a rater \"Ann Lee\" already",
    );
    refused(
        &add_rater(&db, dir.path(), "owner"),
        "\"owner\" is the study's owner, who signs in with the password given to `serve`; \
         choose another name",
    );
    refused(
        &add_rater(&db, dir.path(), " Bo"),
        "the rater's name \" Bo\" starts or ends with white space",
    );
    let short = write(dir.path(), "short", "short\n");
    refused(
        &run(&db, &["raters", "add", "Bo", "--password-file", &short]),
        "the password for \"Bo\" has 5 characters; a password needs 8 or more",
    );
    let tabbed = write(dir.path(), "tabbed", "long\tenough password\n");
    refused(
        &run(&db, &["raters", "add", "Bo", "--password-file", &tabbed]),
        "the password for \"Bo\" holds a control character (U+0009 at character 5); a password \
         is typed into the login form, where a tab moves on and a line break sends it: choose \
         one of letters, digits, punctuation and spaces",
    );
    refused(
        &run(&db, &["raters", "add", "Bo"]),
        "give Bo's password with --password-file FILE (its first line), or run this on a \
         terminal to type it",
    );
    refused(
        &run(&db, &["raters", "set", "--per-target", "2"]),
        "--per-target must be from 1 to the raters the study has (1), got 2; add raters first \
         (`paperjudge raters add`)",
    );
    refused(
        &run(&db, &["raters", "set", "--overlap", "1.5"]),
        "--overlap must be a share from 0 to 1, got 1.5",
    );
    refused(
        &run(&db, &["raters", "set"]),
        "give --per-target R, --overlap SHARE or both",
    );
    succeeded(&add_rater(&db, dir.path(), "Bo"));
    assert_eq!(
        told(&run(&db, &["raters", "set", "--per-target", "2"])),
        "each target rated by 2 raters\n"
    );
    let listed: Value = serde_json::from_str(&succeeded(&run(
        &db,
        &["raters", "list", "--format", "json"],
    )))
    .unwrap();
    assert_eq!(listed["plan"]["per_target"], 2);
    assert_eq!(listed["plan"]["raters"], 2);
    let names: Vec<&str> = (listed["raters"].as_array().unwrap().iter())
        .map(|rater| rater["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["Ann Lee", "Bo"]);

    // Stored as salted Argon2id hashes, never as given.
    let conn = rusqlite::Connection::open(&db).unwrap();
    let hashes: Vec<String> = (conn
        .prepare("SELECT password_hash FROM raters WHERE id <> 1 ORDER BY name")
        .unwrap())
    .query_map([], |row| row.get(0))
    .unwrap()
    .collect::<Result<_, _>>()
    .unwrap();
    drop(conn);
    assert_eq!(hashes.len(), 2);
    assert!(hashes
        .iter()
        .all(|hash| hash.starts_with("$argon2id$v=19$")));
    assert_ne!(hashes[0], hashes[1], "each with a salt of its own");
    assert!(!hashes.concat().contains("a long enough password"));

    // `next --rater` takes the target for that rater; the owner's is another.
    let first = succeeded(&run(&db, &["next", "--rater", "Bo", "--format", "json"]));
    let first: Value = serde_json::from_str(&first).unwrap();
    assert_eq!(first["rated"], 0);
    refused(
        &run(&db, &["next", "--rater", "Cy"]),
        "there is no rater \"Cy\" in this study (`paperjudge raters list` lists them)",
    );
    succeeded(&run(&db, &["raters", "remove", "Ann Lee"]));
    refused(
        &run(&db, &["next", "--rater", "Ann Lee"]),
        "the rater \"Ann Lee\" was removed; `paperjudge raters add` brings them back",
    );
    refused(
        &run(&db, &["raters", "remove", "Ann Lee"]),
        "there is no rater \"Ann Lee\" in this study (`paperjudge raters list` lists them)",
    );
    let list = succeeded(&run(&db, &["raters", "list"]));
    assert!(
        list.contains("Ann Lee") && list.contains("(removed)"),
        "{list}"
    );
    let status = succeeded(&run(&db, &["status"]));
    assert!(
        status.ends_with(
            "rater Ann Lee  0 ratings, 0 targets finished, 0 in progress (removed)\n\
             rater Bo  0 ratings, 0 targets finished, 1 in progress\n"
        ),
        "{status}"
    );
    assert_eq!(
        told(&add_rater(&db, dir.path(), "Ann Lee")),
        "Ann Lee is a rater again, with their ratings\n"
    );
}

fn close(got: &Value, expected: f64, what: &str) {
    let got = got.as_f64().unwrap_or_else(|| panic!("{what} is a number"));
    assert!(
        (got - expected).abs() < 1e-9,
        "{what}: {got} against {expected}"
    );
}

/// The fixture's three raters (r0, r1, r2; each pair rated by two of them and every tenth by
/// all three) imported with a `rater` column into a study of 15 targets of 8 pairs: the
/// checks' alpha and kappa are the `krippendorff` package's and scikit-learn's.
#[test]
fn the_checks_agree_with_independent_implementations_on_a_study() {
    let case = (reference().into_iter())
        .find(|case| case.name == "three_raters_overlap")
        .unwrap();
    let pairs = case.ratings[0].len();
    assert_eq!(pairs, 120);
    let dir = tempfile::tempdir().unwrap();
    let db = study(dir.path(), 15, 8);
    for rater in ["r0", "r1", "r2"] {
        succeeded(&add_rater(&db, dir.path(), rater));
    }
    let mut csv = "target,paper,stars,rater\n".to_owned();
    for (rater, row) in case.ratings.iter().enumerate() {
        for (pair, stars) in row.iter().enumerate() {
            if let Some(stars) = stars {
                let (t, i) = (pair / 8, pair % 8);
                csv.push_str(&format!("T{t},T{t}-{i},{stars},r{rater}\n"));
            }
        }
    }
    let file = write(dir.path(), "ratings.csv", &csv);
    succeeded(&run(&db, &["import", "ratings", &file]));
    let checks = succeeded(&run(
        &db,
        &["checks", "--include-partial", "--format", "json"],
    ));
    let checks: Value = serde_json::from_str(&checks).unwrap();
    let raters = &checks["raters"];
    assert_eq!(raters["pairs_rated_twice"], 120);
    close(
        &raters["alpha_ordinal"],
        case.alpha_ordinal,
        "alpha ordinal",
    );
    close(
        &raters["alpha_interval"],
        case.alpha_interval,
        "alpha interval",
    );
    let [low, high] = [0, 1].map(|end| raters["alpha_ordinal_ci95"][end].as_f64().unwrap());
    assert!(low < case.alpha_ordinal && case.alpha_ordinal < high);
    let kappa = raters["kappa"].as_array().unwrap();
    assert_eq!(kappa.len(), case.kappa.len());
    for (got, expected) in kappa.iter().zip(&case.kappa) {
        assert_eq!(got["a"], format!("r{}", expected.a));
        assert_eq!(got["b"], format!("r{}", expected.b));
        assert_eq!(got["pairs"], expected.pairs);
        close(&got["kappa"], expected.kappa, "kappa");
    }
    let counted: Vec<u64> = (raters["raters"].as_array().unwrap().iter())
        .map(|rater| rater["ratings"].as_u64().unwrap())
        .collect();
    let expected: Vec<u64> = (case.ratings.iter())
        .map(|row| row.iter().flatten().count() as u64)
        .collect();
    assert_eq!(counted, expected);
    // An export re-imports as is: the rater column goes with it.
    let exported = succeeded(&run(&db, &["export", "ratings"]));
    assert_eq!(
        exported.lines().count(),
        1 + expected.iter().sum::<u64>() as usize
    );
    assert!(
        exported.starts_with("target,target_title,paper,paper_title,stars,rated_at,rater,note\r\n")
    );
}

/// Two raters who gave every pair the same stars agree perfectly: alpha 1, kappa 1; a file
/// without a `rater` column is the rater of `--rater`, and one naming no rater is refused with
/// its line and column.
#[test]
fn raters_who_agree_perfectly_have_alpha_one() {
    let dir = tempfile::tempdir().unwrap();
    let db = study(dir.path(), 3, 4);
    for rater in ["Ann", "Bo"] {
        succeeded(&add_rater(&db, dir.path(), rater));
    }
    let mut csv = "target,paper,stars\n".to_owned();
    for t in 0..3 {
        for i in 0..4 {
            csv.push_str(&format!("T{t},T{t}-{i},{}\n", (t + i) % 5 + 1));
        }
    }
    let file = write(dir.path(), "same.csv", &csv);
    for rater in ["Ann", "Bo"] {
        succeeded(&run(&db, &["import", "ratings", &file, "--rater", rater]));
    }
    refused(
        &run(&db, &["import", "ratings", &file, "--rater", "Cy"]),
        &format!(
            "{file}: --rater: there is no rater \"Cy\" in this study (`paperjudge raters list` \
             lists them)"
        ),
    );
    let unknown = write(
        dir.path(),
        "unknown.csv",
        "target,paper,stars,rater\nT0,T0-1,3,Cy\n",
    );
    refused(
        &run(&db, &["import", "ratings", &unknown]),
        &format!(
            "{unknown}:2: `rater`: there is no rater \"Cy\" in this study (`paperjudge raters \
             list` lists them)"
        ),
    );
    let checks: Value = serde_json::from_str(&succeeded(&run(
        &db,
        &["checks", "--include-partial", "--format", "json"],
    )))
    .unwrap();
    let raters = &checks["raters"];
    assert_eq!(raters["pairs_rated_twice"], 12);
    assert_eq!(raters["alpha_ordinal"], 1.0);
    assert_eq!(raters["alpha_interval"], 1.0);
    assert_eq!(raters["kappa"][0]["kappa"], 1.0);
    let leaderboard = succeeded(&run(&db, &["leaderboard", "--include-partial"]));
    assert!(
        leaderboard
            .contains("judgments: the median of the raters' stars, the lower of two middle ones"),
        "{leaderboard}"
    );
}

//! Where the command line writes (issue 32): `export ... -o PATH` onto what is at PATH (a
//! symbolic link, a FIFO, a device node, a directory), and text that reaches a terminal with
//! every control character of the data escaped.

use std::io::Read;
use std::os::unix::fs::{FileTypeExt, PermissionsExt};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

use crate::judge_support::StandIn;
use crate::process_support::{paperjudge, stderr, succeeded};
use paperjudge::terminal::TABLE_CELL_CHARS;

/// A title that clears the screen and sets the window's title when printed raw.
const HOSTILE_TITLE: &str = "Attention\u{1b}]0;pwned\u{7}\u{1b}[2J\u{1b}[31m red";

/// A study of one target with a rating, its title `HOSTILE_TITLE`; answers the study file and
/// what `export ratings` writes.
fn study_with_a_rating(dir: &Path) -> (PathBuf, String) {
    let db = dir.join("study.db");
    let write = |name: &str, text: &str| {
        let path = dir.join(name);
        std::fs::write(&path, text).unwrap();
        path.display().to_string()
    };
    let papers = write(
        "papers.csv",
        &format!("id,title\nT1,\"{HOSTILE_TITLE}\"\nP1,Paper one\nP2,Paper two\n"),
    );
    succeeded(&paperjudge(&db, &["import", "papers", &papers], &[]));
    let lists = write(
        "lists.csv",
        "model,target,rank,paper\nm,T1,1,P1\nm,T1,2,P2\n",
    );
    succeeded(&paperjudge(
        &db,
        &["import", "recommendations", &lists],
        &[],
    ));
    let ratings = write("ratings.csv", "target,paper,stars\nT1,P1,4\n");
    succeeded(&paperjudge(&db, &["import", "ratings", &ratings], &[]));
    let exported = succeeded(&paperjudge(&db, &["export", "ratings"], &[]));
    assert!(exported.contains("P1"), "{exported}");
    (db, exported)
}

fn export_to(db: &Path, path: &Path) -> std::process::Output {
    paperjudge(
        db,
        &["export", "ratings", "-o", path.to_str().unwrap()],
        &[],
    )
}

/// The attack: `-o` onto a symbolic link replaced the link with a regular file and left the
/// file it names as it was. The file the link names is written (atomically, keeping its
/// permissions), through a chain of links and through a dangling one too; the links stay.
#[test]
fn export_onto_a_symbolic_link_writes_the_file_it_names() {
    let dir = tempfile::tempdir().unwrap();
    let (db, exported) = study_with_a_rating(dir.path());
    let real = dir.path().join("real.csv");
    std::fs::write(&real, "old\n").unwrap();
    std::fs::set_permissions(&real, std::fs::Permissions::from_mode(0o640)).unwrap();
    let link = dir.path().join("link.csv");
    std::os::unix::fs::symlink("real.csv", &link).unwrap();
    let chain = dir.path().join("chain.csv");
    std::os::unix::fs::symlink("link.csv", &chain).unwrap();
    let dangling = dir.path().join("dangling.csv");
    std::os::unix::fs::symlink("made.csv", &dangling).unwrap();

    for path in [&link, &chain] {
        std::fs::write(&real, "old\n").unwrap();
        succeeded(&export_to(&db, path));
        assert!(std::fs::symlink_metadata(path)
            .unwrap()
            .file_type()
            .is_symlink());
        assert_eq!(std::fs::read_to_string(&real).unwrap(), exported);
        let mode = std::fs::metadata(&real).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode, 0o640);
    }
    succeeded(&export_to(&db, &dangling));
    assert!(std::fs::symlink_metadata(&dangling)
        .unwrap()
        .file_type()
        .is_symlink());
    assert_eq!(
        std::fs::read_to_string(dir.path().join("made.csv")).unwrap(),
        exported
    );
    // Nothing else beside them: no partial file left.
    let mut names: Vec<String> = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|entry| entry.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|name| name.ends_with(".csv"))
        .collect();
    names.sort();
    assert_eq!(
        names,
        [
            "chain.csv",
            "dangling.csv",
            "link.csv",
            "lists.csv",
            "made.csv",
            "papers.csv",
            "ratings.csv",
            "real.csv"
        ]
    );
}

/// The attack: `-o FIFO` replaced the FIFO with a regular file, and its reader waited forever.
/// The output is written into the FIFO, which stays one.
#[test]
fn export_into_a_fifo_writes_into_it() {
    let dir = tempfile::tempdir().unwrap();
    let (db, exported) = study_with_a_rating(dir.path());
    let fifo = dir.path().join("pipe");
    assert!(Command::new("mkfifo")
        .arg(&fifo)
        .status()
        .unwrap()
        .success());
    let (read, received) = std::sync::mpsc::channel();
    let reader_path = fifo.clone();
    // Opening a FIFO to read waits for a writer: the reader waits on a thread of its own.
    std::thread::spawn(move || {
        let mut text = String::new();
        std::fs::File::open(reader_path)
            .unwrap()
            .read_to_string(&mut text)
            .unwrap();
        let _ = read.send(text);
    });
    succeeded(&export_to(&db, &fifo));
    let text = received
        .recv_timeout(Duration::from_secs(60))
        .expect("the reader got the output");
    assert_eq!(text, exported);
    assert!(std::fs::symlink_metadata(&fifo)
        .unwrap()
        .file_type()
        .is_fifo());
}

/// The attack: `-o` onto a device node replaced the node (as root, `-o /dev/null` replaced the
/// machine's `/dev/null`). A character device is written into and stays one: here a node of
/// the null device made in a temporary folder (with `mknod`, as root; skipped where that is
/// not allowed).
#[test]
fn export_onto_a_character_device_writes_into_it() {
    let dir = tempfile::tempdir().unwrap();
    let (db, _) = study_with_a_rating(dir.path());
    let null = dir.path().join("null");
    let made = Command::new("mknod")
        .arg(&null)
        .args(["c", "1", "3"])
        .status()
        .is_ok_and(|status| status.success());
    if !made {
        eprintln!("mknod is not allowed here: the character device is not tried");
        return;
    }
    succeeded(&export_to(&db, &null));
    let kind = std::fs::symlink_metadata(&null).unwrap().file_type();
    assert!(kind.is_char_device(), "{kind:?}");
}

/// A directory is refused by name (exit status 2), and nothing is written into it.
#[test]
fn export_onto_a_directory_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let (db, _) = study_with_a_rating(dir.path());
    let folder = dir.path().join("folder");
    std::fs::create_dir(&folder).unwrap();
    let output = export_to(&db, &folder);
    assert_eq!(output.status.code(), Some(2));
    assert_eq!(
        stderr(&output),
        format!(
            "paperjudge: cannot write {}: it is a directory; give the path of a file\n",
            folder.display()
        )
    );
    assert_eq!(std::fs::read_dir(&folder).unwrap().count(), 0);
}

/// The attack: a title that holds escape sequences, printed raw by `targets list`, cleared the
/// screen and set the terminal's title. Every text output escapes them; the CSV and JSON
/// outputs are data and hold the title exactly as imported.
#[test]
fn text_outputs_escape_the_control_characters_of_titles() {
    let dir = tempfile::tempdir().unwrap();
    let (db, exported) = study_with_a_rating(dir.path());
    let escaped = "Attention\\u{1b}]0;pwned\\u{7}\\u{1b}[2J\\u{1b}[31m red";
    let text = succeeded(&paperjudge(&db, &["targets", "list"], &[]));
    assert_eq!(
        text,
        format!("target  rated/pooled  title\nT1               1/2  {escaped}\n")
    );
    assert!(!text.contains('\u{1b}'));
    let csv = succeeded(&paperjudge(
        &db,
        &["targets", "list", "--format", "csv"],
        &[],
    ));
    assert!(csv.contains(HOSTILE_TITLE), "{csv:?}");
    let json = succeeded(&paperjudge(
        &db,
        &["targets", "list", "--format", "json"],
        &[],
    ));
    let json: serde_json::Value = serde_json::from_str(&json).unwrap();
    assert_eq!(json[0]["title"], HOSTILE_TITLE);
    assert!(exported.contains(HOSTILE_TITLE));
    // The name of a file in a message on standard error.
    let hostile_file = dir.path().join("bad\u{1b}[2J.csv");
    std::fs::write(&hostile_file, "nothing,useful\n").unwrap();
    let output = paperjudge(
        &db,
        &["import", "papers", hostile_file.to_str().unwrap()],
        &[],
    );
    assert_eq!(output.status.code(), Some(2));
    let said = stderr(&output);
    assert!(!said.contains('\u{1b}'), "{said:?}");
    assert!(said.contains("bad\\u{1b}[2J.csv"), "{said:?}");
}

/// What a text table shows of a cell longer than [`TABLE_CELL_CHARS`] characters: its start
/// and an ellipsis.
fn cut(long: &str) -> String {
    (long.chars().take(TABLE_CELL_CHARS - 1))
        .chain(['…'])
        .collect()
}

/// Names as long as an import takes (a field of 64 KiB: a paper id, a model name and a title
/// of 65,536 characters) and a judge's `--model` of 100,000: every text table shows their
/// start and an ellipsis (where widths past 65,535 used to panic, exit status 101), and the CSV
/// and JSON outputs keep them whole.
#[tokio::test]
async fn text_tables_cut_long_names_with_an_ellipsis_and_the_data_keeps_them_whole() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("study.db");
    let [id, model, title] = ["p", "m", "t"].map(|c| c.repeat(65_536));
    let write = |name: &str, text: String| {
        let path = dir.path().join(name);
        std::fs::write(&path, text).unwrap();
        path.display().to_string()
    };
    let papers = write(
        "papers.csv",
        format!("id,title\n{id},Long\nA,{title}\nB,Paper two\nC,Paper three\nT2,Target two\n"),
    );
    let lists = write(
        "lists.csv",
        format!(
            "model,target,rank,paper\n{model},{id},1,A\n{model},{id},2,B\n{model},T2,1,{id}\n\
             s,{id},1,B\ns,{id},2,C\ns,T2,1,A\n"
        ),
    );
    let ratings = write(
        "ratings.csv",
        format!("target,paper,stars\n{id},A,5\n{id},B,3\n{id},C,1\nT2,{id},4\nT2,A,2\n"),
    );
    for (kind, file) in [
        ("papers", papers),
        ("recommendations", lists),
        ("ratings", ratings),
    ] {
        succeeded(&paperjudge(&db, &["import", kind, &file], &[]));
    }

    let targets = succeeded(&paperjudge(&db, &["targets", "list"], &[]));
    let width = TABLE_CELL_CHARS;
    assert_eq!(
        targets,
        format!(
            "{:<width$}  rated/pooled  title\n{}           3/3  Long\n{:<width$}           2/2  \
             Target two\n",
            "target",
            cut(&id),
            "T2"
        )
    );
    for args in [&["leaderboard"][..], &["lists"], &["checks"]] {
        let text = succeeded(&paperjudge(&db, args, &[]));
        // In the table; a sentence beside it may name the model whole.
        assert!(text.contains(&format!("{}  ", cut(&model))), "{args:?}");
    }
    let lists = succeeded(&paperjudge(&db, &["lists"], &[]));
    assert!(lists.contains(&format!("{}  ", cut(&id))));
    assert!(lists.contains(&format!("{}\n", cut(&title))));

    let csv = succeeded(&paperjudge(
        &db,
        &["targets", "list", "--format", "csv"],
        &[],
    ));
    assert!(
        csv.contains(&format!("\r\n{id},Long,3,3,true\r\n")),
        "the id whole"
    );
    let board: serde_json::Value = serde_json::from_str(&succeeded(&paperjudge(
        &db,
        &["leaderboard", "--format", "json"],
        &[],
    )))
    .unwrap();
    let models: Vec<&str> = (board["models"].as_array().unwrap().iter())
        .map(|row| row["model"].as_str().unwrap())
        .collect();
    assert!(models.contains(&model.as_str()));
    let lists: serde_json::Value = serde_json::from_str(&succeeded(&paperjudge(
        &db,
        &["lists", "--format", "json"],
        &[],
    )))
    .unwrap();
    assert_eq!(lists["models"][0], model.as_str());

    let stand_in = StandIn::grading();
    // The longest model a judge takes (a path to a model file, for some servers), still far
    // past a cell.
    let judge_model = "x".repeat(1_000);
    let (db_path, url, args_model) = (db.clone(), stand_in.url.clone(), judge_model.clone());
    let ran = tokio::task::spawn_blocking(move || {
        paperjudge(
            &db_path,
            &[
                "judge",
                "--endpoint",
                &url,
                "--model",
                &args_model,
                "--name",
                "long",
            ],
            &[],
        )
    })
    .await
    .unwrap();
    assert!(ran.status.success(), "{}", stderr(&ran));
    let judges = succeeded(&paperjudge(&db, &["judges"], &[]));
    assert!(
        judges.contains(&format!("long   {}  ", cut(&judge_model))),
        "{judges:.300}"
    );
    let json: serde_json::Value = serde_json::from_str(&succeeded(&paperjudge(
        &db,
        &["judges", "--format", "json"],
        &[],
    )))
    .unwrap();
    assert_eq!(json[0]["model"], judge_model.as_str());
}

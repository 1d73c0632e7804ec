//! Tests of whole studies: the files agree with each other and with the options.

use std::collections::{HashMap, HashSet};
use std::fs;
use std::path::{Path, PathBuf};

use super::write_study;
use crate::config::tests::config;
use crate::config::Config;

fn tiny() -> Config {
    tiny_with(&[])
}

/// The tiny study's counts (37 ratings unless `extra` says otherwise) and `extra` options.
fn tiny_with(extra: &[&str]) -> Config {
    let mut argv = vec![
        "--papers",
        "40",
        "--models",
        "3",
        "--targets",
        "12",
        "--list-len",
        "6",
        "--rated-targets",
        "5",
    ];
    if !extra.contains(&"--ratings") {
        argv.extend(["--ratings", "37"]);
    }
    argv.extend_from_slice(extra);
    config(&argv)
}

/// A fresh directory under the system temp dir, removed on drop.
struct TempDir(PathBuf);

impl TempDir {
    fn new(name: &str) -> TempDir {
        let path = std::env::temp_dir().join(format!(
            "paperjudge-synth-test-{}-{name}",
            std::process::id()
        ));
        let _ = fs::remove_dir_all(&path);
        TempDir(path)
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = fs::remove_dir_all(&self.0);
    }
}

fn read_csv(path: &Path) -> (Vec<String>, Vec<Vec<String>>) {
    let mut reader = csv::Reader::from_path(path).expect("readable csv");
    let header = reader
        .headers()
        .expect("header")
        .iter()
        .map(str::to_owned)
        .collect();
    let rows = reader
        .records()
        .map(|r| r.expect("valid row").iter().map(str::to_owned).collect())
        .collect();
    (header, rows)
}

/// Every file under `dir` by its path relative to `dir`, in path order.
fn all_files(dir: &Path) -> Vec<(String, Vec<u8>)> {
    fn walk(dir: &Path, prefix: &str, files: &mut Vec<(String, Vec<u8>)>) {
        for entry in fs::read_dir(dir).expect("readable directory") {
            let path = entry.expect("entry").path();
            let name = format!("{prefix}{}", path.file_name().unwrap().to_string_lossy());
            if path.is_dir() {
                walk(&path, &format!("{name}/"), files);
            } else {
                files.push((name, fs::read(&path).expect("file")));
            }
        }
    }
    let mut files = Vec::new();
    walk(dir, "", &mut files);
    files.sort();
    files
}

#[test]
fn same_seed_same_bytes_other_seed_other_bytes() {
    let config = tiny();
    let (a, b, c) = (TempDir::new("a"), TempDir::new("b"), TempDir::new("c"));
    write_study(&config, 42, &a.0).unwrap();
    write_study(&config, 42, &b.0).unwrap();
    write_study(&config, 43, &c.0).unwrap();
    let (a, b, c) = (all_files(&a.0), all_files(&b.0), all_files(&c.0));
    assert_eq!(a.len(), 3 + 3);
    for ((name, bytes), (other_name, other_bytes)) in a.iter().zip(&b) {
        assert_eq!(name, other_name);
        assert!(bytes == other_bytes, "{name} differs under the same seed");
    }
    for ((name, bytes), (_, other_bytes)) in a.iter().zip(&c) {
        assert!(
            bytes != other_bytes,
            "{name} is the same under another seed"
        );
    }
}

#[test]
fn tiny_study_is_consistent() {
    let config = tiny();
    let dir = TempDir::new("tiny");
    let summary = write_study(&config, 7, &dir.0).unwrap();
    assert_eq!(summary.ratings, 37);

    let (header, papers) = read_csv(&dir.0.join("papers.csv"));
    assert_eq!(
        header,
        ["id", "title", "abstract", "authors", "year", "url"]
    );
    assert_eq!(papers.len(), 40);
    assert_eq!(papers[0][0], "P000001");
    assert_eq!(papers[39][0], "P000040");
    assert!(papers[0][1].contains(',') && papers[0][1].contains('"'));
    for paper in &papers {
        let title_words = paper[1].split_whitespace().count();
        assert!((6..=12).contains(&title_words), "{:?}", paper[1]);
        let abstract_words = paper[2].split_whitespace().count();
        assert!((120..=250).contains(&abstract_words), "{abstract_words}");
        assert!(paper[2].ends_with('.'));
        let authors = paper[3].split("; ").count();
        assert!((1..=5).contains(&authors));
        assert!(paper[3].split("; ").all(|a| a.split(' ').count() == 2));
        let year: u32 = paper[4].parse().unwrap();
        assert!((1995..=2024).contains(&year));
        assert_eq!(paper[5], format!("https://example.org/p/{}", paper[0]));
    }
    let ids: HashSet<&str> = papers.iter().map(|p| p[0].as_str()).collect();

    let (header, recs) = read_csv(&dir.0.join("recommendations.csv"));
    assert_eq!(header, ["model", "target", "rank", "paper", "score"]);
    assert_eq!(recs.len(), 12 * 3 * 6);
    // (model, target, [(paper, score)]) in file order.
    type List = (String, String, Vec<(String, String)>);
    let mut lists: Vec<List> = Vec::new();
    for (i, row) in recs.iter().enumerate() {
        let rank: usize = row[2].parse().unwrap();
        assert_eq!(rank, i % 6 + 1);
        assert_eq!(row[0], format!("model-{}", (i / 6) % 3 + 1));
        assert!(ids.contains(row[1].as_str()) && ids.contains(row[3].as_str()));
        assert_ne!(row[1], row[3]);
        if rank == 1 {
            lists.push((row[0].clone(), row[1].clone(), Vec::new()));
        }
        lists
            .last_mut()
            .unwrap()
            .2
            .push((row[3].clone(), row[4].clone()));
    }
    let targets: Vec<&str> = lists.iter().step_by(3).map(|l| l.1.as_str()).collect();
    let mut sorted = targets.clone();
    sorted.sort();
    sorted.dedup();
    assert_eq!(targets, sorted, "targets ascending and distinct");
    for (_, _, list) in &lists {
        let papers: HashSet<&str> = list.iter().map(|(p, _)| p.as_str()).collect();
        assert_eq!(papers.len(), list.len(), "no duplicate paper");
        let scores: Vec<f64> = list.iter().map(|(_, s)| s.parse().unwrap()).collect();
        assert!(scores.windows(2).all(|w| w[0] > w[1]), "{scores:?}");
        assert!(scores.iter().all(|&s| s > 0.0 && s < 1.0));
    }

    // Every run holds the model's lists, in the order trec_eval would sort them.
    for model in 1..=3 {
        let name = format!("model-{model}");
        let run = fs::read_to_string(dir.0.join("runs").join(format!("{name}.run"))).unwrap();
        let mut by_target: HashMap<String, Vec<(String, usize, String)>> = HashMap::new();
        for line in run.lines() {
            let f: Vec<&str> = line.split(' ').collect();
            assert_eq!(f.len(), 6);
            assert_eq!((f[1], f[5]), ("Q0", name.as_str()));
            by_target.entry(f[0].to_owned()).or_default().push((
                f[2].to_owned(),
                f[3].parse().unwrap(),
                f[4].to_owned(),
            ));
        }
        assert_eq!(by_target.len(), 12);
        for (model_name, target, list) in lists.iter().filter(|l| l.0 == name) {
            let mut lines = by_target[target].clone();
            // trec_eval: score descending, then docno descending.
            lines.sort_by(|a, b| {
                let (x, y): (f64, f64) = (a.2.parse().unwrap(), b.2.parse().unwrap());
                y.total_cmp(&x).then_with(|| b.0.cmp(&a.0))
            });
            for (i, ((paper, rank, score), (csv_paper, csv_score))) in
                lines.iter().zip(list).enumerate()
            {
                assert_eq!(*rank, i + 1, "{model_name} {target}");
                assert_eq!((paper, score), (csv_paper, csv_score));
            }
        }
    }

    // Ratings: pooled pairs (a model's top 8) of the first 5 targets, spread evenly.
    let (header, ratings) = read_csv(&dir.0.join("ratings.csv"));
    assert_eq!(header, ["target", "paper", "stars"]);
    assert_eq!(ratings.len(), 37);
    let rated_targets: Vec<&str> = targets[..5].to_vec();
    let mut per_target: HashMap<&str, usize> = HashMap::new();
    let mut pairs = HashSet::new();
    for row in &ratings {
        assert!(rated_targets.contains(&row[0].as_str()));
        let stars: u8 = row[2].parse().unwrap();
        assert!((1..=5).contains(&stars));
        assert!(
            pairs.insert((row[0].clone(), row[1].clone())),
            "no duplicate pair"
        );
        let pooled = lists
            .iter()
            .any(|(_, t, list)| t == &row[0] && list.iter().take(8).any(|(p, _)| p == &row[1]));
        assert!(pooled, "{row:?} is pooled");
        *per_target.entry(row[0].as_str()).or_default() += 1;
    }
    assert_eq!(per_target.len(), 5);
}

/// NDCG@8 per model from the written ratings (unjudged = 0, ideal from the judged pairs).
fn ndcg_by_model(dir: &Path, models: usize) -> Vec<f64> {
    let (_, ratings) = read_csv(&dir.join("ratings.csv"));
    let mut rel: HashMap<(String, String), f64> = HashMap::new();
    let mut ideal: HashMap<String, Vec<f64>> = HashMap::new();
    for row in ratings {
        let gain = row[2].parse::<f64>().unwrap() - 1.0;
        ideal.entry(row[0].clone()).or_default().push(gain);
        rel.insert((row[0].clone(), row[1].clone()), gain);
    }
    let dcg = |gains: &[f64]| -> f64 {
        gains
            .iter()
            .take(8)
            .enumerate()
            .map(|(i, g)| g / ((i + 2) as f64).log2())
            .sum()
    };
    let (_, recs) = read_csv(&dir.join("recommendations.csv"));
    let mut lists: HashMap<(String, String), Vec<f64>> = HashMap::new();
    for row in recs {
        if ideal.contains_key(&row[1]) {
            let gain = rel
                .get(&(row[1].clone(), row[3].clone()))
                .copied()
                .unwrap_or(0.0);
            lists
                .entry((row[0].clone(), row[1].clone()))
                .or_default()
                .push(gain);
        }
    }
    (1..=models)
        .map(|m| {
            let name = format!("model-{m}");
            let mut values = Vec::new();
            for (target, gains) in &ideal {
                let mut best = gains.clone();
                best.sort_by(|a, b| b.total_cmp(a));
                if dcg(&best) > 0.0 {
                    let list = &lists[&(name.clone(), target.clone())];
                    values.push(dcg(list) / dcg(&best));
                }
            }
            values.iter().sum::<f64>() / values.len() as f64
        })
        .collect()
}

#[test]
fn ratings_rank_the_models_in_order() {
    // The preset's partly rated targets, and the same targets fully rated.
    for (ratings, count) in [("1300", 1_300), ("all", 1_830)] {
        let config = config(&["--size", "s", "--ratings", ratings]);
        let dir = TempDir::new(&format!("order-{ratings}"));
        let summary = write_study(&config, 1, &dir.0).unwrap();
        assert_eq!(summary.ratings, count);
        assert_eq!(summary.rated_targets, 65);
        let ndcg = ndcg_by_model(&dir.0, 8);
        assert!(ndcg[0] > ndcg[7] + 0.2, "--ratings {ratings}: {ndcg:?}");
        assert!(
            ndcg.windows(2).all(|pair| pair[0] > pair[1]),
            "--ratings {ratings}: every model above the next: {ndcg:?}"
        );
    }
}

/// The lines of a TREC run file by target, and the run tags it names.
fn run_by_target(path: &Path) -> (HashMap<String, Vec<String>>, HashSet<String>) {
    let mut by_target: HashMap<String, Vec<String>> = HashMap::new();
    let mut tags = HashSet::new();
    for line in fs::read_to_string(path).expect("run file").lines() {
        let fields: Vec<&str> = line.split(' ').collect();
        assert_eq!(fields.len(), 6, "{line}");
        tags.insert(fields[5].to_owned());
        by_target
            .entry(fields[0].to_owned())
            .or_default()
            .push(line.to_owned());
    }
    (by_target, tags)
}

/// The papers of a list of run lines, in rank order.
fn papers_of(lines: &[String]) -> Vec<&str> {
    lines
        .iter()
        .map(|line| line.split(' ').nth(2).unwrap())
        .collect()
}

#[test]
fn options_are_deterministic_and_change_only_their_files() {
    let options = [
        "--csv-order",
        "model",
        "--retrained-share",
        "0.25",
        "--retrained-model",
        "2",
        "--chosen",
        "4",
    ];
    let (plain, a, b) = (
        TempDir::new("plain"),
        TempDir::new("options-a"),
        TempDir::new("options-b"),
    );
    write_study(&tiny(), 42, &plain.0).unwrap();
    write_study(&tiny_with(&options), 42, &a.0).unwrap();
    write_study(&tiny_with(&options), 42, &b.0).unwrap();
    let (plain, a, b) = (all_files(&plain.0), all_files(&a.0), all_files(&b.0));
    let names: Vec<&str> = a.iter().map(|(name, _)| name.as_str()).collect();
    assert_eq!(
        names,
        [
            "chosen-targets.txt",
            "papers.csv",
            "ratings.csv",
            "recommendations.csv",
            "retrained/model-2.run",
            "runs/model-1.run",
            "runs/model-2.run",
            "runs/model-3.run",
        ]
    );
    assert!(a == b, "the same options and seed give the same bytes");
    let plain: HashMap<&str, &Vec<u8>> = plain.iter().map(|(n, b)| (n.as_str(), b)).collect();
    for (name, bytes) in &a {
        match name.as_str() {
            "chosen-targets.txt" | "retrained/model-2.run" => {
                assert!(!plain.contains_key(name.as_str()))
            }
            "recommendations.csv" => assert!(plain[name.as_str()] != bytes),
            _ => assert!(plain[name.as_str()] == bytes, "{name} changed"),
        }
    }
    // Fully rated targets get the same stars as partly rated ones: ratings.csv alone changes.
    let (partly, fully) = (TempDir::new("partly"), TempDir::new("fully"));
    write_study(&tiny(), 42, &partly.0).unwrap();
    write_study(&tiny_with(&["--ratings", "all"]), 42, &fully.0).unwrap();
    for ((name, partly), (_, fully)) in all_files(&partly.0).iter().zip(&all_files(&fully.0)) {
        assert_eq!(name == "ratings.csv", partly != fully, "{name}");
    }
}

#[test]
fn model_major_csv_holds_the_same_rows_model_by_model() {
    let (by_target, by_model) = (TempDir::new("by-target"), TempDir::new("by-model"));
    write_study(&tiny(), 5, &by_target.0).unwrap();
    write_study(&tiny_with(&["--csv-order", "model"]), 5, &by_model.0).unwrap();
    let (header, target_rows) = read_csv(&by_target.0.join("recommendations.csv"));
    let (model_header, model_rows) = read_csv(&by_model.0.join("recommendations.csv"));
    assert_eq!(header, model_header);
    assert_eq!(model_rows.len(), 12 * 3 * 6);
    // Model by model, then the target-major order within a model: a stable sort by model.
    let model_number = |row: &Vec<String>| -> usize { row[0]["model-".len()..].parse().unwrap() };
    let mut expected = target_rows.clone();
    expected.sort_by_key(model_number);
    assert_eq!(model_rows, expected);
    assert_eq!(model_rows[0][0], "model-1");
    assert_eq!(model_rows[12 * 6][0], "model-2");
    assert!(!by_model.0.join(".recommendations-by-model").exists());
}

#[test]
fn retrained_run_changes_exactly_the_stated_share_of_targets() {
    // 40 targets; the second study's lists hold every candidate, so a new list is a new order.
    let cases = [
        (
            vec!["--papers", "60", "--targets", "40", "--models", "3"],
            "0.25",
            "2",
            10,
        ),
        (vec!["--papers", "60", "--targets", "40"], "0.1", "1", 4),
        (
            vec!["--papers", "5", "--list-len", "4", "--models", "2"],
            "1",
            "2",
            5,
        ),
        (vec!["--papers", "60", "--targets", "40"], "0", "1", 0),
    ];
    for (counts, share, model, changed) in cases {
        let mut argv = counts.clone();
        argv.extend(["--retrained-share", share, "--retrained-model", model]);
        let config = config(&argv);
        let dir = TempDir::new("retrained");
        let summary = write_study(&config, 11, &dir.0).unwrap();
        let tag = format!("model-{model}");
        let (original, original_tags) =
            run_by_target(&dir.0.join("runs").join(format!("{tag}.run")));
        let (retrained, retrained_tags) =
            run_by_target(&dir.0.join("retrained").join(format!("{tag}.run")));
        assert_eq!(
            retrained_tags,
            HashSet::from([tag.clone()]),
            "the same run tag"
        );
        assert_eq!(original_tags, retrained_tags);
        assert_eq!(retrained.len(), config.targets);
        let mut differing = 0;
        for (target, lines) in &retrained {
            let before = &original[target];
            assert_eq!(lines.len(), config.list_len);
            if lines != before {
                differing += 1;
                assert_ne!(papers_of(lines), papers_of(before), "{target}: a new list");
            }
            // A valid list: ranks 1.., scores strictly decreasing, distinct papers, never
            // the target itself.
            let papers = papers_of(lines);
            assert_eq!(papers.iter().collect::<HashSet<_>>().len(), papers.len());
            assert!(!papers.contains(&target.as_str()));
            let fields: Vec<Vec<&str>> = lines.iter().map(|l| l.split(' ').collect()).collect();
            for (i, f) in fields.iter().enumerate() {
                assert_eq!(f[3], (i + 1).to_string());
            }
            let scores: Vec<f64> = fields.iter().map(|f| f[4].parse().unwrap()).collect();
            assert!(scores.windows(2).all(|w| w[0] > w[1]), "{scores:?}");
        }
        assert_eq!(
            differing, changed,
            "--retrained-share {share} of {counts:?}"
        );
        assert_eq!(
            summary.retrained_bytes,
            Some(
                fs::metadata(dir.0.join("retrained").join(format!("{tag}.run")))
                    .unwrap()
                    .len()
            )
        );
    }
}

#[test]
fn fully_rated_targets_have_every_pooled_pair_at_the_pool_depth() {
    for depth in ["8", "3"] {
        let config = tiny_with(&["--ratings", "all", "--pool-depth", depth]);
        let dir = TempDir::new(&format!("fully-{depth}"));
        let summary = write_study(&config, 9, &dir.0).unwrap();
        let (_, recs) = read_csv(&dir.0.join("recommendations.csv"));
        let mut targets: Vec<&str> = recs.iter().map(|row| row[1].as_str()).collect();
        targets.sort();
        targets.dedup();
        let rated: HashSet<&str> = targets[..config.rated_targets].iter().copied().collect();
        let pooled: HashSet<(String, String)> = recs
            .iter()
            .filter(|row| rated.contains(row[1].as_str()))
            .filter(|row| row[2].parse::<usize>().unwrap() <= config.pool_depth)
            .map(|row| (row[1].clone(), row[3].clone()))
            .collect();
        let (_, ratings) = read_csv(&dir.0.join("ratings.csv"));
        let judged: HashSet<(String, String)> = ratings
            .iter()
            .map(|row| (row[0].clone(), row[1].clone()))
            .collect();
        assert_eq!(judged.len(), ratings.len(), "no pair twice");
        assert_eq!(judged, pooled, "--pool-depth {depth}");
        assert_eq!(summary.ratings, pooled.len());
        assert_eq!(summary.rated_targets, 5);
    }
}

#[test]
fn chosen_targets_are_distinct_targets_at_random() {
    let (a, b) = (TempDir::new("chosen-a"), TempDir::new("chosen-b"));
    let config = config(&["--chosen", "20"]);
    let summary = write_study(&config, 3, &a.0).unwrap();
    write_study(&config, 4, &b.0).unwrap();
    let (_, recs) = read_csv(&a.0.join("recommendations.csv"));
    let targets: HashSet<&str> = recs.iter().map(|row| row[1].as_str()).collect();
    assert_eq!(targets.len(), 65);
    let text = fs::read_to_string(a.0.join("chosen-targets.txt")).unwrap();
    assert_eq!(summary.chosen_bytes, Some(text.len() as u64));
    let chosen: Vec<&str> = text.lines().collect();
    assert_eq!(chosen.len(), 20);
    assert!(
        chosen.windows(2).all(|w| w[0] < w[1]),
        "ascending, distinct"
    );
    assert!(chosen.iter().all(|id| targets.contains(id)), "{chosen:?}");
    // Drawn among all the targets, not the first ones.
    let mut sorted: Vec<&str> = targets.into_iter().collect();
    sorted.sort();
    assert_ne!(chosen, sorted[..20]);
    let other = fs::read_to_string(b.0.join("chosen-targets.txt")).unwrap();
    assert_ne!(text, other, "another seed, another choice");
}

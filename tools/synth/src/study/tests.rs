//! Tests of whole studies: the files agree with each other and with the options.

use std::collections::{HashMap, HashSet};
use std::fs;
use std::path::{Path, PathBuf};

use super::write_study;
use crate::config::tests::config;
use crate::config::Config;

fn tiny() -> Config {
    config(&[
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
        "--ratings",
        "37",
    ])
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
    let config = config(&["--size", "s"]);
    let dir = TempDir::new("order");
    let summary = write_study(&config, 1, &dir.0).unwrap();
    assert_eq!(summary.ratings, 1_300);
    assert_eq!(summary.rated_targets, 65);
    let ndcg = ndcg_by_model(&dir.0, 8);
    assert!(ndcg[0] > ndcg[7] + 0.2, "{ndcg:?}");
    assert!(
        ndcg[0] > ndcg[3] && ndcg[3] > ndcg[7],
        "best, middle and worst in order: {ndcg:?}"
    );
}

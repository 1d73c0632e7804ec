//! paperjudge against trec_eval on the synthetic study in tests/fixtures/trec (see its
//! README.md): with the trec_eval-compatible options, every per-target value equals trec_eval's
//! to 1e-9, and so do the means.
//!
//! trec_eval evaluates a topic only when the run has it: a target that is in the qrels but
//! missing from a run has no trec_eval value and is left out of trec_eval's mean (unless
//! `-c`). paperjudge's contract scores a missing list 0 and keeps the target in the mean. So
//! per-target values are compared where the run has the target, trec_eval's mean is compared
//! with our mean over those same targets, and the contract's mean over all targets with
//! trec_eval's sum over the present topics divided by the number of qrels topics (trec_eval
//! `-c`, which scores a missing topic 0 in these measures).

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::num::NonZeroUsize;
use std::path::{Path, PathBuf};

use paperjudge::domain::Stars;
use paperjudge::metrics::{
    evaluate_target, mean, ApDenominator, Empty, Gain, Ideal, Relevance, Settings, TargetScores,
    Unjudged,
};
use serde_json::Value;

const CUTOFFS: [usize; 3] = [5, 10, 20];
const TOLERANCE: f64 = 1e-9;

fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/trec")
}

fn read(path: &Path) -> String {
    std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// The options under which paperjudge computes what trec_eval computes.
fn trec_settings(k: usize, unjudged: Unjudged) -> Settings {
    Settings {
        k: NonZeroUsize::new(k).unwrap(),
        gain: Gain::Linear,
        relevance: Relevance::StarsMinusOne,
        ideal: Ideal::Judged,
        unjudged,
        empty: Empty::Zero,
        // trec_eval -l 3: rel >= 3, that is stars >= 4.
        threshold: Stars::new(4).unwrap(),
        ap_denominator: ApDenominator::Relevant,
    }
}

/// Judgments per target from qrels lines `target 0 paper rel`, stars = rel + 1.
fn parse_qrels(text: &str) -> BTreeMap<&str, HashMap<&str, Stars>> {
    let mut qrels: BTreeMap<&str, HashMap<&str, Stars>> = BTreeMap::new();
    for line in text.lines() {
        let [target, _, paper, rel] = fields(line);
        let stars = Stars::new(rel.parse::<i64>().unwrap() + 1).unwrap();
        qrels.entry(target).or_default().insert(paper, stars);
    }
    qrels
}

/// Ranked lists per target from run lines `target Q0 paper rank score tag`, in trec_eval's
/// order: score descending, ties by paper id descending in byte order; the rank column is
/// ignored.
fn parse_run(text: &str) -> BTreeMap<&str, Vec<&str>> {
    let mut scored: BTreeMap<&str, Vec<(f64, &str)>> = BTreeMap::new();
    for line in text.lines() {
        let [target, _, paper, _rank, score, _tag] = fields(line);
        scored
            .entry(target)
            .or_default()
            .push((score.parse().unwrap(), paper));
    }
    scored
        .into_iter()
        .map(|(target, mut papers)| {
            papers.sort_by(|a, b| b.0.total_cmp(&a.0).then_with(|| b.1.cmp(a.1)));
            (target, papers.into_iter().map(|(_, paper)| paper).collect())
        })
        .collect()
}

fn fields<const N: usize>(line: &str) -> [&str; N] {
    let fields: Vec<&str> = line.split_whitespace().collect();
    fields
        .try_into()
        .unwrap_or_else(|_| panic!("expected {N} fields: {line:?}"))
}

struct Study {
    qrels_text: String,
    runs_text: BTreeMap<String, String>,
    reference: Value,
}

impl Study {
    fn load() -> Study {
        let dir = fixtures();
        let runs_text = std::fs::read_dir(dir.join("runs"))
            .unwrap()
            .map(|entry| entry.unwrap().path())
            .map(|path| {
                let model = path.file_stem().unwrap().to_str().unwrap().to_owned();
                (model, read(&path))
            })
            .collect();
        Study {
            qrels_text: read(&dir.join("qrels.txt")),
            runs_text,
            reference: serde_json::from_str(&read(&dir.join("reference.json"))).unwrap(),
        }
    }

    /// Checks `metric` of paperjudge against trec_eval `measure` in `evaluation` of
    /// reference.json, per target and in the mean, for every model and cutoff.
    fn check(
        &self,
        evaluation: &str,
        measure: &str,
        unjudged: Unjudged,
        metric: fn(&TargetScores) -> Option<f64>,
    ) {
        let qrels = parse_qrels(&self.qrels_text);
        assert!(self.runs_text.len() >= 3, "the study needs 3+ models");
        for (model, run_text) in &self.runs_text {
            let run = parse_run(run_text);
            let reference = &self.reference["models"][model][evaluation];
            for k in CUTOFFS {
                let settings = trec_settings(k, unjudged);
                let key = format!("{measure}_{k}");
                let mut present = Vec::new();
                let mut contract = Vec::new();
                for (target, judgments) in &qrels {
                    let list = run.get(target).map_or(&[][..], Vec::as_slice);
                    let ours = metric(&evaluate_target(list, judgments, &settings));
                    contract.push(ours);
                    let expected = &reference["per_target"][target][&key];
                    if run.contains_key(target) {
                        let expected = expected.as_f64().unwrap_or_else(|| {
                            panic!("{model} {target} {key}: no reference value")
                        });
                        let ours = ours.unwrap();
                        assert!(
                            (ours - expected).abs() <= TOLERANCE,
                            "{model} {target} {key}: paperjudge {ours}, trec_eval {expected}"
                        );
                        present.push(Some(ours));
                    } else {
                        assert!(
                            expected.is_null(),
                            "{model} {target}: trec_eval has a value"
                        );
                        assert_eq!(ours, Some(0.0), "{model} {target}: a missing list scores 0");
                    }
                }
                let trec_mean = reference["mean"][&key].as_f64().unwrap();
                let our_mean = mean(present.iter().copied()).value.unwrap();
                assert!(
                    (our_mean - trec_mean).abs() <= TOLERANCE,
                    "{model} {key} mean: paperjudge {our_mean}, trec_eval {trec_mean}"
                );
                // trec_eval -c: the present topics' sum over every qrels topic.
                let with_missing = trec_mean * present.len() as f64 / qrels.len() as f64;
                let contract_mean = mean(contract).value.unwrap();
                assert!(
                    (contract_mean - with_missing).abs() <= TOLERANCE,
                    "{model} {key} mean over all targets: {contract_mean} vs {with_missing}"
                );
            }
        }
    }
}

#[test]
fn ndcg_cut_matches_trec_eval() {
    Study::load().check("graded", "ndcg_cut", Unjudged::Zero, |s| s.ndcg);
}

#[test]
fn ndcg_cut_on_condensed_lists_matches_trec_eval_minus_j() {
    Study::load().check("condensed", "ndcg_cut", Unjudged::Skip, |s| s.ndcg);
}

#[test]
fn precision_matches_trec_eval_at_relevance_level_3() {
    Study::load().check("binary", "P", Unjudged::Zero, |s| s.precision);
}

#[test]
fn recall_matches_trec_eval_at_relevance_level_3() {
    Study::load().check("binary", "recall", Unjudged::Zero, |s| s.recall);
}

#[test]
fn map_cut_matches_trec_eval_at_relevance_level_3() {
    Study::load().check("binary", "map_cut", Unjudged::Zero, |s| s.ap);
}

/// The fixture holds the cases it exists for; a regenerated study must keep them.
#[test]
fn study_has_the_cases_that_trip_implementations_up() {
    let study = Study::load();
    let qrels = parse_qrels(&study.qrels_text);
    assert!(qrels.len() >= 20);
    let stars: BTreeSet<u8> = qrels
        .values()
        .flat_map(|j| j.values().map(|s| s.get()))
        .collect();
    assert_eq!(stars, (1..=5).collect());
    assert!(qrels
        .values()
        .any(|judgments| judgments.values().all(|s| s.get() == 1)));
    let runs: Vec<BTreeMap<&str, Vec<&str>>> = study
        .runs_text
        .values()
        .map(|text| parse_run(text))
        .collect();
    let lists = || runs.iter().flat_map(|run| run.iter());
    assert!(runs
        .iter()
        .any(|run| qrels.keys().any(|t| !run.contains_key(t))));
    assert!(lists().any(|(target, _)| !qrels.contains_key(target)));
    assert!(lists().any(|(_, list)| list.len() < 5));
    assert!(lists().any(|(target, list)| {
        let judgments = qrels.get(target);
        list.iter()
            .any(|p| judgments.is_none_or(|j| !j.contains_key(p)))
    }));
    let tied = study.runs_text.values().any(|text| {
        let mut seen = BTreeSet::new();
        text.lines().any(|line| {
            let [target, _, _, _, score, _] = fields(line);
            !seen.insert((target, score))
        })
    });
    assert!(tied, "no tied scores");
}

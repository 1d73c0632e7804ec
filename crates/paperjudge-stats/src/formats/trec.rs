//! TREC files read without a study: run lines (shared with the recommendations importer) and
//! qrels, and the two together as a [`Collection`] that `paperjudge simulate --qrels` replays.
//! Problems name the file, the line and the column, as every importer's do.

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::io::Read;

use super::input::{self, Lines};
use super::{check_paper_id, InvalidInput, Problem, Problems};
use crate::domain::{Grade, PoolDepth, Stars};
use crate::leaderboard::{Collection, TargetInput};

/// One line of a TREC run: `target Q0 paper rank score model`, or without the run tag.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct RunLine<'a> {
    pub target: &'a str,
    pub paper: &'a str,
    pub score: f64,
    /// The run tag; `None` on a line of 5 fields, whose model a reader must be told.
    pub model: Option<&'a str>,
}

/// Reads one run line, as every reader of runs does (the importer and `simulate --qrels`). The
/// rank column is not read: trec_eval orders by score.
pub(crate) fn run_line(bytes: &[u8], line: u64) -> Result<RunLine<'_>, Problem> {
    let ([target, _q0, paper, _rank, score, model], count) =
        input::trec_fields_up_to::<6>(bytes, line)?;
    if !(5..=6).contains(&count) {
        return Err(Problem::at(
            line,
            None,
            format!(
                "expected 6 fields `target Q0 paper rank score model` (5 without the run tag), \
                 found {count}"
            ),
        ));
    }
    let score = super::parse_score(score, line)?
        .ok_or_else(|| Problem::at(line, Some("score"), "missing"))?;
    Ok(RunLine {
        target,
        paper,
        score,
        model: (count == 6).then_some(model),
    })
}

/// A run line without a run tag, when nothing else names its model.
pub fn untagged(line: u64, how_to_name: &str) -> Problem {
    Problem::at(
        line,
        Some("model"),
        format!("no run tag (a 6th field) names the model: {how_to_name}"),
    )
}

/// The next line of a file and its number; `None` at the end.
fn next_line<R: Read>(lines: &mut Lines<R>) -> Result<Option<(u64, &[u8])>, Problem> {
    let line = lines.advance()?;
    Ok(line.map(|line| (line, lines.current())))
}

/// The judgments of a qrels file: target → paper → stars.
pub type Qrels = BTreeMap<String, HashMap<String, Stars>>;

/// Reads a qrels file, `target iteration paper grade` a line, as `paperjudge export qrels`
/// writes it: grades 0..4 are 1..5 stars; -1 (trec_eval's "not judged") is left out.
pub fn read_qrels(reader: impl Read, source: &str) -> Result<Qrels, InvalidInput> {
    let mut problems = Problems::new(source);
    let mut qrels = Qrels::new();
    let mut first_line: HashMap<(String, String), u64> = HashMap::new();
    let mut lines = Lines::new(reader);
    loop {
        let (line, bytes) = match next_line(&mut lines) {
            Ok(Some(next)) => next,
            Ok(None) => break,
            Err(problem) => {
                problems.push(problem);
                break;
            }
        };
        match qrels_line(bytes, line) {
            Ok((_, _, None)) => {}
            Ok((target, paper, Some(stars))) => {
                let key = (target.to_owned(), paper.to_owned());
                if let Some(first) = first_line.insert(key, line) {
                    problems.push(Problem::at(
                        line,
                        Some("paper"),
                        format!("paper {paper:?} of target {target:?} is judged twice (also on line {first})"),
                    ));
                    continue;
                }
                (qrels.entry(target.to_owned()).or_default()).insert(paper.to_owned(), stars);
            }
            Err(problem) => problems.push(problem),
        }
    }
    problems.into_result()?;
    Ok(qrels)
}

/// One qrels line: target, paper and stars (`None` for grade -1).
fn qrels_line(bytes: &[u8], line: u64) -> Result<(&str, &str, Option<Stars>), Problem> {
    let [target, _iteration, paper, grade] =
        input::trec_fields(bytes, line, "target 0 paper grade")?;
    check_paper_id(target, line, "target")?;
    check_paper_id(paper, line, "paper")?;
    let stars = match grade.parse::<i64>() {
        Ok(-1) => None,
        Ok(grade) => Some(Stars::new(grade + 1).ok_or_else(|| bad_grade(grade, line))?),
        Err(_) => return Err(bad_grade(grade, line)),
    };
    Ok((target, paper, stars))
}

fn bad_grade(grade: impl std::fmt::Debug, line: u64) -> Problem {
    Problem::at(
        line,
        Some("grade"),
        format!(
            "expected a grade from 0 to 4 (1 to 5 stars, as `export qrels` writes them) or -1 \
             (not judged), got {grade:?}"
        ),
    )
}

/// A list entry as read: score, paper, line.
type Entry = (f64, String, u64);

/// The lists of a set of run files: model → target → entries, in file order.
#[derive(Debug, Default)]
pub struct Runs {
    lists: BTreeMap<String, BTreeMap<String, Vec<Entry>>>,
}

impl Runs {
    /// Adds the lines of one run file; a paper twice in one list, or an id the importers
    /// refuse, is a problem.
    pub fn read(&mut self, reader: impl Read, source: &str) -> Result<(), InvalidInput> {
        let mut problems = Problems::new(source);
        let mut lines = Lines::new(reader);
        let mut rows = Vec::new();
        loop {
            match next_line(&mut lines) {
                Ok(Some((line, bytes))) => match run_line(bytes, line).and_then(|row| {
                    check_paper_id(row.target, line, "target")?;
                    check_paper_id(row.paper, line, "paper")?;
                    let model = row.model.ok_or_else(|| {
                        untagged(line, "a replay names each run's model by its run tag")
                    })?;
                    Ok((model, row))
                }) {
                    // A model recommending the target itself is left out, as the importer
                    // leaves it out.
                    Ok((_, row)) if row.paper == row.target => {}
                    Ok((model, row)) => rows.push((
                        model.to_owned(),
                        row.target.to_owned(),
                        (row.score, row.paper.to_owned(), line),
                    )),
                    Err(problem) => problems.push(problem),
                },
                Ok(None) => break,
                Err(problem) => {
                    problems.push(problem);
                    break;
                }
            }
        }
        for (model, target, entry) in rows {
            let list = (self.lists.entry(model.clone()).or_default())
                .entry(target.clone())
                .or_default();
            if let Some(first) = list.iter().find(|(_, paper, _)| *paper == entry.1) {
                problems.push(Problem::at(
                    entry.2,
                    Some("paper"),
                    format!(
                        "the same paper appears twice in the list of model {model:?} for \
                         target {target:?} (also on line {})",
                        first.2
                    ),
                ));
                continue;
            }
            list.push(entry);
        }
        problems.into_result()
    }

    /// The study of these runs judged by `qrels`: the targets any run lists, each with its
    /// judgments and every model's list in trec_eval's order (score descending, ties by
    /// paper id descending), fully rated when every paper in the top `pool_depth` of its
    /// lists is judged. Papers are numbered by their ids.
    pub fn collection(&self, qrels: &Qrels, pool_depth: PoolDepth) -> Collection<u32> {
        let mut papers: BTreeSet<&str> = BTreeSet::new();
        let mut targets: BTreeSet<&str> = BTreeSet::new();
        for lists in self.lists.values() {
            for (target, list) in lists {
                targets.insert(target);
                papers.extend(list.iter().map(|(_, paper, _)| paper.as_str()));
            }
        }
        for judged in qrels.values() {
            papers.extend(judged.keys().map(String::as_str));
        }
        let number: HashMap<&str, u32> = (papers.iter().enumerate())
            .map(|(index, paper)| (*paper, index as u32))
            .collect();
        let depth = pool_depth.get() as usize;
        let inputs = (targets.iter())
            .map(|&target| {
                let judgments: HashMap<u32, Grade> = (qrels.get(target).into_iter().flatten())
                    .map(|(paper, &stars)| (number[paper.as_str()], stars.into()))
                    .collect();
                let lists: Vec<Option<Vec<u32>>> = (self.lists.values())
                    .map(|lists| {
                        let mut list = lists.get(target)?.clone();
                        list.sort_by(|a, b| b.0.total_cmp(&a.0).then_with(|| b.1.cmp(&a.1)));
                        Some(
                            list.iter()
                                .map(|(_, paper, _)| number[paper.as_str()])
                                .collect(),
                        )
                    })
                    .collect();
                let pooled = (lists.iter().flatten()).flat_map(|list| list.iter().take(depth));
                let fully_rated = !judgments.is_empty()
                    && pooled.clone().all(|paper| judgments.contains_key(paper));
                TargetInput {
                    target: target.to_owned(),
                    fully_rated,
                    judgments,
                    lists,
                    left_out: Vec::new(),
                }
            })
            .collect();
        Collection::of(self.lists.keys().cloned().collect(), inputs, pool_depth)
    }
}

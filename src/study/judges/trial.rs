//! Trials (docs/judges.md, "Try a judge first"): a judge's model and prompt, or command, tried
//! on the tuning set before it grades the study. The tuning set is the first N fully rated
//! targets in the study's order ([`TUNING_TARGETS`] unless asked otherwise), fixed when first
//! asked and the same for every trial until another N is asked; a trial grades its pooled pairs
//! and nothing else, and its audit against the raters says at once how far the judge agrees.
//!
//! A trial is no judge: its grades are kept apart (`trial_grades`) and reach no estimate, no
//! leaderboard and no rater's page. A judge made from a trial (`--from-trial`) keeps its grades
//! and grades the rest; because it was chosen on the tuning set, the estimate leaves those
//! targets out of the rated ones that correct it (docs/metrics.md, "A judge chosen on rated
//! targets").

use super::Handle;
use serde::Serialize;

use super::audit::{agreement_of, compared};
use super::grader::Grader;
use super::run::{Asking, Checkpoint, Keeper, PreparedRun, RunReport, RunRequest};
use super::store::{self, GradesOf, JudgeRecord, TrialRow};
use super::{Disagreement, JudgeAudit};
use crate::domain::{JudgeName, PaperKey};
use crate::metrics::Settings;
use crate::study::error::{Refusal, StudyError};
use crate::study::evaluation::EvaluationSet;
use crate::words::plural;

/// The tuning set's size unless a trial asks for another.
pub const TUNING_TARGETS: usize = 10;

/// A trial as `judges trials` and `/judges` list it.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct TrialSummary {
    pub id: i64,
    /// The model it graded with; `None` for a command.
    pub model: Option<String>,
    pub endpoint: Option<String>,
    /// The command line of a trial of a local command.
    pub command: Option<String>,
    pub prompt_sha256: Option<String>,
    /// The pairs it graded.
    pub pairs: i64,
    pub alpha_ordinal: Option<f64>,
    pub kappa_quadratic: Option<f64>,
    pub spearman: Option<f64>,
    pub seconds_per_pair: Option<f64>,
    pub created_at: String,
}

/// What a trial run did, and what its grades say (none when it stored none: the trial is then
/// forgotten).
#[derive(Debug, Clone, PartialEq)]
pub struct TrialReport {
    pub run: RunReport,
    pub found: Option<TrialFindings>,
}

/// What a trial's grades say.
#[derive(Debug, Clone, PartialEq)]
pub struct TrialFindings {
    pub trial: TrialSummary,
    /// Its grades against the raters' judgments.
    pub audit: JudgeAudit,
    /// The tuning set's targets.
    pub tuning_targets: usize,
    /// The pooled pairs of the study's targets, and the seconds a judge at the trial's speed
    /// would take to grade them.
    pub study_pairs: i64,
    pub study_seconds: Option<f64>,
}

impl TrialFindings {
    /// What the trial found, in lines for the terminal.
    pub fn in_words(&self) -> Vec<String> {
        let audit = &self.audit;
        let number = |value: Option<f64>| crate::words::terminal::number(value);
        let mut lines = vec![
            format!(
                "trial {}: {} {} of the tuning set ({} {}) graded",
                self.trial.id,
                self.trial.pairs,
                plural(self.trial.pairs as u64, "pair", "pairs"),
                self.tuning_targets,
                plural(self.tuning_targets as u64, "target", "targets"),
            ),
            format!(
                "  alpha (ordinal) {} {}, quadratic kappa {}, Spearman's rho {}, over {} pairs",
                number(audit.alpha_ordinal),
                crate::words::terminal::interval(
                    audit.alpha_ordinal_ci95,
                    crate::words::terminal::PLACES
                ),
                number(audit.kappa_quadratic),
                number(audit.spearman),
                audit.pairs_compared
            ),
            format!(
                "  mean stars: trial {}, raters {}",
                number(audit.mean_stars),
                number(audit.mean_stars_raters)
            ),
            "  raters \\ trial   1★    2★    3★    4★    5★".to_owned(),
        ];
        for (row, counts) in audit.confusion.iter().enumerate() {
            let cells: Vec<String> = counts.iter().map(|count| format!("{count:>5}")).collect();
            lines.push(format!("  {}★             {}", row + 1, cells.join(" ")));
        }
        if let (Some(each), Some(study)) = (self.trial.seconds_per_pair, self.study_seconds) {
            lines.push(format!(
                "  {each:.2} s a pair: the study's {} pooled pairs would take {}",
                self.study_pairs,
                duration(study)
            ));
        }
        lines.push(format!(
            "  a judge from it: paperjudge judge ... --from-trial {} --name NAME",
            self.trial.id
        ));
        lines
    }
}

/// A duration in words: "40 s", "12 min", "3.5 h".
fn duration(seconds: f64) -> String {
    if seconds < 120.0 {
        format!("{seconds:.0} s")
    } else if seconds < 7200.0 {
        format!("{:.0} min", seconds / 60.0)
    } else {
        format!("{:.1} h", seconds / 3600.0)
    }
}

impl Handle<'_> {
    /// The tuning set, fixed in the study: its size, and its targets in the study's order. The
    /// stored set is kept (its targets still being rated and fully rated), and topped up with
    /// the next fully rated targets in the study's order while it has fewer than asked; asking
    /// fewer than it has makes it anew.
    pub(super) async fn tuning_set(
        &self,
        asked: Option<usize>,
    ) -> Result<(usize, Vec<PaperKey>), StudyError> {
        self.study
            .db
            .write(async |conn| {
                let stored = store::tuning_targets(&mut *conn).await?;
                let finished = store::finished_targets(&mut *conn).await?;
                let size = asked.unwrap_or(stored.len().max(TUNING_TARGETS));
                let mut set: Vec<PaperKey> = match size < stored.len() {
                    true => Vec::new(),
                    false => (stored.iter())
                        .filter(|target| finished.contains(target))
                        .copied()
                        .collect(),
                };
                for target in &finished {
                    if set.len() >= size {
                        break;
                    }
                    if !set.contains(target) {
                        set.push(*target);
                    }
                }
                if set != stored {
                    store::set_tuning_targets(&mut *conn, &set).await?;
                }
                Ok((size, set))
            })
            .await
    }

    /// A trial's run: its grader, and the pairs of the tuning set, under a new trial.
    pub(super) async fn prepare_trial(
        &self,
        request: &RunRequest,
        asking: Asking,
    ) -> Result<PreparedRun, StudyError> {
        let mut grader = self.grader(asking, None, request.timeout).await?;
        let (size, tuning) = self.tuning_set(request.tuning_targets).await?;
        if tuning.is_empty() {
            return Err(Refusal::InvalidJudgeRun(
                "a trial grades the tuning set, the first fully rated targets in the study's \
                 order, and no target is fully rated yet: rate a few targets first"
                    .to_owned(),
            )
            .into());
        }
        let pairs = self
            .study
            .db
            .read(async |conn| Ok(store::pairs_of_targets(&mut *conn, &tuning, None).await?))
            .await?;
        let identity = grader.identity();
        let id = self
            .study
            .db
            .write(async |conn| {
                let now = crate::study::db::now_rfc3339();
                let source = identity.source(None);
                Ok(
                    store::add_trial(&mut *conn, &source, size as i64, pairs.len() as i64, &now)
                        .await?,
                )
            })
            .await?;
        if let Grader::Command(command) = &mut grader {
            if let Err(why) = command.start() {
                Keeper::Trial { id }.end(self.study).await;
                return Err(Refusal::InvalidJudgeRun(why).into());
            }
        }
        let name = JudgeName::new(&format!("trial {id}"))
            .map_err(|invalid| StudyError::unreadable(invalid.to_string()))?;
        Ok(PreparedRun {
            name,
            grader,
            keeper: Keeper::Trial { id },
            pairs,
            checkpoint: None::<Checkpoint>,
        })
    }

    /// What the trial of `run` found: its audit against the raters of `raters`, and the
    /// study's time at its speed.
    pub(in crate::study) async fn trial_report(
        &self,
        run: RunReport,
        raters: &EvaluationSet,
    ) -> Result<TrialReport, StudyError> {
        if run.stored == 0 {
            return Ok(TrialReport { run, found: None });
        }
        let id: i64 = (run.judge.as_str().strip_prefix("trial "))
            .and_then(|id| id.parse().ok())
            .ok_or_else(|| StudyError::unreadable("a trial's run names no trial"))?;
        let (trial, audit) = self.trial_audit(id, raters).await?;
        let (tuning, study_pairs) = self
            .study
            .db
            .read(async |conn| {
                Ok((
                    store::tuning_targets(&mut *conn).await?.len(),
                    store::pooled_pairs(&mut *conn).await?,
                ))
            })
            .await?;
        let study_seconds = trial.seconds_per_pair.map(|each| each * study_pairs as f64);
        Ok(TrialReport {
            run,
            found: Some(TrialFindings {
                trial,
                audit,
                tuning_targets: tuning,
                study_pairs,
                study_seconds,
            }),
        })
    }

    /// Every trial, the best first (α, then κ, then the newest), audited against the raters of
    /// `raters`.
    pub(in crate::study) async fn trials(
        &self,
        raters: &EvaluationSet,
    ) -> Result<Vec<TrialSummary>, StudyError> {
        let rows = self
            .study
            .db
            .read(async |conn| Ok(store::trials(&mut *conn).await?))
            .await?;
        let mut trials = Vec::with_capacity(rows.len());
        for row in rows {
            trials.push(self.summary_of(row, raters).await?.0);
        }
        trials.sort_by(|a, b| {
            let key = |trial: &TrialSummary| {
                (
                    trial.alpha_ordinal.unwrap_or(f64::NEG_INFINITY),
                    trial.kappa_quadratic.unwrap_or(f64::NEG_INFINITY),
                )
            };
            let (x, y) = (key(a), key(b));
            (y.0.total_cmp(&x.0))
                .then(y.1.total_cmp(&x.1))
                .then(b.id.cmp(&a.id))
        });
        Ok(trials)
    }

    /// The trial `id` with its audit against the raters of `raters`; refused for an id that is
    /// no trial.
    pub(in crate::study) async fn trial_audit(
        &self,
        id: i64,
        raters: &EvaluationSet,
    ) -> Result<(TrialSummary, JudgeAudit), StudyError> {
        let row = self.trial_row(id).await?;
        self.summary_of(row, raters).await
    }

    /// The pairs where the trial `id` and the raters of `raters` differ most, as a judge's
    /// disagreements.
    pub(in crate::study) async fn trial_disagreements(
        &self,
        id: i64,
        raters: &EvaluationSet,
    ) -> Result<Vec<Disagreement>, StudyError> {
        self.trial_row(id).await?;
        let graded = self.finished_grades(GradesOf::Trial(id)).await?;
        self.disagreements_in(raters, graded).await
    }

    async fn trial_row(&self, id: i64) -> Result<TrialRow, StudyError> {
        self.study
            .db
            .read(async |conn| {
                store::trial(&mut *conn, id)
                    .await?
                    .ok_or_else(|| Refusal::UnknownTrial(id).into())
            })
            .await
    }

    async fn summary_of(
        &self,
        row: TrialRow,
        raters: &EvaluationSet,
    ) -> Result<(TrialSummary, JudgeAudit), StudyError> {
        let graded = self.finished_grades(GradesOf::Trial(row.id)).await?;
        let pairs = (compared(raters, graded).into_iter())
            .map(|(_, _, raters, grade)| (raters, grade))
            .collect();
        let settings = Settings::default();
        let name = JudgeName::new(&format!("trial {}", row.id))
            .map_err(|invalid| StudyError::unreadable(invalid.to_string()))?;
        let audit = agreement_of(name, pairs, settings).await;
        let summary = TrialSummary {
            id: row.id,
            model: row.model,
            endpoint: row.endpoint,
            command: row.command,
            prompt_sha256: row.prompt_sha256,
            pairs: row.graded,
            alpha_ordinal: audit.alpha_ordinal,
            kappa_quadratic: audit.kappa_quadratic,
            spearman: audit.spearman,
            seconds_per_pair: (row.graded > 0).then(|| row.seconds / row.graded as f64),
            created_at: row.created_at,
        };
        Ok((summary, audit))
    }

    /// The trial `id` for a judge named `name` to be made from: refused for an id that is no
    /// trial, or a name the study has a judge of.
    pub(super) async fn trial_for_judge(
        &self,
        id: i64,
        exists: bool,
        name: &JudgeName,
    ) -> Result<TrialRow, StudyError> {
        if exists {
            return Err(Refusal::InvalidJudgeRun(format!(
                "the study has a judge {name:?} already: a judge made from a trial takes a new \
                 name (--name)"
            ))
            .into());
        }
        self.trial_row(id).await
    }

    /// Makes the judge `name` from `trial`, which graded with what `grader` asks: its grades
    /// kept, in one transaction; the judge's id.
    pub(super) async fn judge_from_trial(
        &self,
        grader: &Grader,
        trial: &TrialRow,
        name: &JudgeName,
    ) -> Result<i64, StudyError> {
        let identity = grader.identity();
        let of_trial = JudgeRecord {
            id: trial.id,
            name: name.clone(),
            model: trial.model.clone(),
            endpoint: trial.endpoint.clone(),
            prompt: trial.prompt.clone(),
            prompt_sha256: trial.prompt_sha256.clone(),
            revision: 0,
            guidelines_version: trial.guidelines_version,
            command: trial.command.clone(),
        };
        identity
            .check_same(&of_trial)
            .map_err(|differs| match differs {
                Refusal::JudgeChanged { differs, .. } => Refusal::InvalidJudgeRun(format!(
                "trial {} graded with {differs}: a judge made from a trial grades as the trial did",
                trial.id
            )),
                other => other,
            })?;
        let settings = trial.settings.clone();
        self.study
            .db
            .write(async |conn| {
                let now = crate::study::db::now_rfc3339();
                let source = identity.source(settings.as_deref());
                let id = store::add_judge(&mut *conn, name, &source, &now).await?;
                store::copy_trial_grades(&mut *conn, trial.id, id, identity.guidelines()).await?;
                Ok(id)
            })
            .await
    }

    /// α of the judge `judge`'s grades of the targets `targets` against the raters of
    /// `raters`, with its 95% interval; `None` while it is undefined.
    pub(super) async fn alpha_on(
        &self,
        judge: i64,
        targets: &[PaperKey],
        raters: &EvaluationSet,
    ) -> Result<Option<(f64, [f64; 2])>, StudyError> {
        let graded: Vec<_> = self
            .finished_grades(GradesOf::Judge(judge))
            .await?
            .into_iter()
            .filter(|(target, _, _)| targets.contains(target))
            .collect();
        let pairs = (compared(raters, graded).into_iter())
            .map(|(_, _, raters, grade)| (raters, grade))
            .collect();
        let name = JudgeName::new("tuning set").expect("a valid name");
        let audit = agreement_of(name, pairs, Settings::default()).await;
        Ok(audit.alpha_ordinal.zip(audit.alpha_ordinal_ci95))
    }
}

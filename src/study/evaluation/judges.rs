//! Where the evaluation meets the judges: the judges' handle compares a judge's (or a trial's)
//! grades with the raters' judgments of the set it is given, and these queries give it the
//! study's current set. The judges never ask the evaluation for it.

use super::Handle;
use crate::domain::JudgeName;
use crate::leaderboard::LeaderboardOptions;
use crate::study::error::StudyError;
use crate::study::import::JobId;
use crate::study::judges::{
    Aim, Disagreement, JudgeAudit, Purpose, RunProgress, RunReport, RunRequest, TrialReport,
    TrialSummary,
};

impl Handle<'_> {
    /// The audit of every judge against the raters, by name, under the leaderboard's
    /// `options`.
    pub async fn judge_audits(
        &self,
        options: &LeaderboardOptions,
    ) -> Result<Vec<JudgeAudit>, StudyError> {
        let set = self.current_set(options.list_depth()).await?;
        self.study.judges().audits(options, &set).await
    }

    /// The pairs of fully rated targets where the judge `name` and the raters differ most
    /// (refused for a name the study has no judge of).
    pub async fn judge_disagreements(
        &self,
        name: &JudgeName,
    ) -> Result<Vec<Disagreement>, StudyError> {
        let set = self.current_set(0).await?;
        self.study.judges().disagreements(name, &set).await
    }

    /// Every trial with its agreement with the raters, the best first.
    pub async fn trials(&self) -> Result<Vec<TrialSummary>, StudyError> {
        let set = self.current_set(0).await?;
        self.study.judges().trials(&set).await
    }

    /// The trial `id` with its audit against the raters; refused for an id that is no trial.
    pub async fn trial_audit(&self, id: i64) -> Result<(TrialSummary, JudgeAudit), StudyError> {
        let set = self.current_set(0).await?;
        self.study.judges().trial_audit(id, &set).await
    }

    /// The pairs where the trial `id` and the raters differ most, as a judge's disagreements.
    pub async fn trial_disagreements(&self, id: i64) -> Result<Vec<Disagreement>, StudyError> {
        let set = self.current_set(0).await?;
        self.study.judges().trial_disagreements(id, &set).await
    }

    /// A judge run as `request` asks (see the judges' [`run`](crate::study::judges::Handle)),
    /// `progress` hearing how it goes; one with `--stop-below-alpha` reads α against the set
    /// current when it starts (its tuning set being fully rated then).
    pub async fn run_judge(
        &self,
        request: RunRequest,
        progress: impl RunProgress,
    ) -> Result<RunReport, StudyError> {
        let aim = self.aim_of(request.purpose).await?;
        self.study.judges().run(request, aim, progress).await
    }

    /// A trial (whatever `request.purpose` says): the tuning set's pairs graded as `request`
    /// asks, and what the grades say against the raters once it has ended.
    pub async fn run_trial(
        &self,
        request: RunRequest,
        progress: impl RunProgress,
    ) -> Result<TrialReport, StudyError> {
        let judges = self.study.judges();
        let report = judges.run(request, Aim::Trial, progress).await?;
        let set = self.current_set(0).await?;
        judges.trial_report(report, &set).await
    }

    /// Starts a judge run in the background (the browser's `/judges`), as
    /// [`Handle::run_judge`] runs one: the job that follows it.
    pub async fn start_judge_run(&self, request: RunRequest) -> Result<JobId, StudyError> {
        let aim = self.aim_of(request.purpose).await?;
        self.study.judges().start_run(request, aim).await
    }

    /// What a run of `purpose` is for, with the set it compares its grades with while it runs:
    /// only one that checks α on the tuning set (`--stop-below-alpha`) does.
    async fn aim_of(&self, purpose: Purpose) -> Result<Aim, StudyError> {
        Ok(match purpose {
            Purpose::JudgeUnlessBelow(threshold) => Aim::JudgeUnlessBelow {
                threshold,
                raters: self.current_set(0).await?,
            },
            Purpose::Judge => Aim::Judge,
            Purpose::FromTrial(id) => Aim::FromTrial(id),
            Purpose::Trial => Aim::Trial,
        })
    }
}

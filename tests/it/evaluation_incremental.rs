//! What the server keeps of the evaluation after a change equals a full evaluation: a study
//! (study S's lists, 65 targets, 8 models) rated step by step by a seeded generator, through
//! every change a study sees (ratings, corrections, clears, undo, "can't judge", notes, a
//! target chosen and dropped, a rater added who rates too, the rating plan, pruning, the
//! guidelines changed, targets finished in another order than the study's), and after each
//! step every board the study keeps (made from the one before where only ratings changed) is
//! compared with the board a new `Study` computes from the file alone, byte for byte, with the
//! set it was computed from.

use std::sync::Arc;

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

use crate::common::TestStudy;
use paperjudge::domain::{Answer, Guidelines, Note, PaperId, PaperKey, RaterName, Stars};
use paperjudge::leaderboard::{LeaderboardOptions, Partial};
use paperjudge::study::evaluation::EvaluationSet;
use paperjudge::study::raters::Rater;
use paperjudge::study::rating::Edit;
use paperjudge::study::targets::DropRule;
use paperjudge::study::Study;

/// The options each step compares: the default view, the owner's with the partly rated
/// targets, other judgments of several raters, another cutoff and a margin.
fn variants() -> Vec<(LeaderboardOptions, Partial)> {
    let with = |pairs: &[(&str, &str)]| {
        let mut options = LeaderboardOptions::default();
        for (name, value) in pairs {
            options.read(name, value).expect("an option").expect("read");
        }
        options
    };
    vec![
        (LeaderboardOptions::default(), Partial::Exclude),
        (LeaderboardOptions::default(), Partial::Include),
        (with(&[("judgments", "mean")]), Partial::Exclude),
        (with(&[("k", "5"), ("margin", "0.02")]), Partial::Include),
    ]
}

/// The set's contents, in a form that compares (its judgments by paper, sorted).
fn contents(set: &EvaluationSet) -> String {
    let targets: Vec<String> = (set.collection.targets.iter())
        .map(|target| {
            let mut judgments: Vec<_> = target.judgments.iter().collect();
            judgments.sort_by_key(|(paper, _)| **paper);
            format!(
                "{} {} {judgments:?} {:?} {:?}",
                target.target, target.fully_rated, target.lists, target.left_out
            )
        })
        .collect();
    format!(
        "{:?}\n{:?}\n{:?}\n{:?}\n{:?}\n{:?}\n{:?}\n{}\n{:?}\n{targets:#?}",
        set.revision,
        set.overview,
        set.targets,
        set.ratings,
        set.finished_by,
        set.raters,
        set.collection.completion,
        set.collection.total,
        set.has_raters,
    )
}

/// A set made from the one of the step before holds that one's targets that did not change,
/// not copies of them: making it again after a rating costs the changed targets only.
fn shares_what_did_not_change(set: &EvaluationSet, before: Option<&EvaluationSet>, step: &str) {
    let Some(earlier) = &set.earlier else { return };
    let Some(before) = before.filter(|before| before.revision == earlier.revision) else {
        return;
    };
    for (target, position) in set.collection.targets.iter().zip(&earlier.positions) {
        if let Some(position) = *position {
            assert!(
                Arc::ptr_eq(target, &before.collection.targets[position]),
                "{step}: target {} copied",
                target.target
            );
        }
    }
}

struct Steps {
    test: TestStudy,
    rng: ChaCha8Rng,
    /// Steps whose every board was made from the one kept before.
    made_from_earlier: usize,
    steps: usize,
    /// The set the study kept at the step before.
    last: Option<Arc<EvaluationSet>>,
}

impl Steps {
    /// Every board of [`variants`] as the study keeps it equals a full evaluation's; counts
    /// the step as made from the earlier set when it was.
    async fn compare(&mut self, step: &str) {
        let fresh = Study::open(&self.test.db_path()).await.expect("opens");
        let mut from_earlier = true;
        for (options, partial) in variants() {
            let kept = (self
                .test
                .study
                .evaluation()
                .leaderboard(&options, partial)
                .await)
                .expect("kept");
            let full = fresh
                .evaluation()
                .leaderboard(&options, partial)
                .await
                .expect("full");
            assert_eq!(
                kept.board.to_json(true),
                full.board.to_json(true),
                "{step}: {options:?} {partial:?}"
            );
            assert_eq!(*kept.board, *full.board, "{step}: {options:?} {partial:?}");
            assert_eq!(contents(&kept.set), contents(&full.set), "{step}");
            assert!(full.set.earlier.is_none(), "a new study reads it all");
            from_earlier &= kept.set.earlier.is_some();
            shares_what_did_not_change(&kept.set, self.last.as_deref(), step);
            self.last = Some(kept.set.clone());
        }
        self.steps += 1;
        self.made_from_earlier += usize::from(from_earlier);
    }

    async fn targets(&self) -> Vec<(PaperKey, PaperId)> {
        self.test.active_targets().await
    }

    async fn pool(&self, target: PaperKey) -> Vec<PaperId> {
        self.test.pool_of(target).await
    }

    fn stars(&mut self) -> Answer {
        Answer::Stars(Stars::new(self.rng.random_range(1..=5)).expect("stars"))
    }

    async fn rate(&self, target: PaperKey, paper: &PaperId, edit: Edit, rater: &Rater) {
        (self
            .test
            .study
            .rating()
            .rate(target, paper, edit, "browser", rater)
            .await)
            .expect("rated");
    }

    /// Adds a rater named `name` (the step compares nothing; the caller does).
    async fn add_rater(&self, name: &str) -> RaterName {
        let name = RaterName::new(name).expect("a name");
        let password = format!("a long enough password of {name}");
        (self.test.study.raters().add(&name, &password).await).expect("added");
        name
    }

    /// Rates every pooled pair of `target` but the last `leave` as `rater`, comparing after
    /// each rating.
    async fn rate_target(&mut self, target: PaperKey, leave: usize, rater: &Rater) {
        let pool = self.pool(target).await;
        for paper in &pool[..pool.len() - leave] {
            let answer = self.stars();
            let edit = Edit::Answer { answer, note: None };
            self.rate(target, paper, edit, rater).await;
            self.compare(&format!("{} rated {paper}", rater.name)).await;
        }
    }
}

#[tokio::test]
async fn what_the_study_keeps_after_each_change_equals_a_full_evaluation() {
    let mut steps = Steps {
        test: TestStudy::study_s().await,
        rng: ChaCha8Rng::seed_from_u64(43),
        made_from_earlier: 0,
        steps: 0,
        last: None,
    };
    let owner = Rater::owner();
    steps.compare("imported").await;
    let targets = steps.targets().await;

    // Targets finished one after another, and one left a pair short.
    for &(target, _) in &targets[..4] {
        steps.rate_target(target, 0, &owner).await;
    }
    steps.rate_target(targets[4].0, 1, &owner).await;

    // Targets finished in another order than the study's: three rated but one pair each, then
    // finished the last first (the resampling's sums take each up wherever it falls).
    for &(target, _) in &targets[10..13] {
        steps.rate_target(target, 1, &owner).await;
    }
    for &(target, _) in targets[10..13].iter().rev() {
        let pool = steps.pool(target).await;
        let answer = steps.stars();
        let edit = Edit::Answer { answer, note: None };
        steps
            .rate(target, &pool[pool.len() - 1], edit, &owner)
            .await;
        steps.compare("finished out of order").await;
    }
    let (first, second) = (targets[0].0, targets[1].0);
    let first_pool = steps.pool(first).await;

    // A correction of a finished target, a clear that takes it back, and its undo.
    let answer = steps.stars();
    steps
        .rate(
            first,
            &first_pool[0],
            Edit::Answer { answer, note: None },
            &owner,
        )
        .await;
    steps.compare("corrected").await;
    steps.rate(first, &first_pool[1], Edit::Clear, &owner).await;
    steps.compare("cleared").await;
    (steps
        .test
        .study
        .rating()
        .undo(first, "browser", &owner)
        .await)
        .expect("undone");
    steps.compare("undone").await;

    // "Can't judge", and a note alone.
    let cannot = Edit::Answer {
        answer: Answer::CannotJudge,
        note: None,
    };
    steps
        .rate(second, &steps.pool(second).await[2], cannot, &owner)
        .await;
    steps.compare("can't judge").await;
    let note = Note::new("read twice").expect("a note");
    steps
        .rate(first, &first_pool[2], Edit::Note(note), &owner)
        .await;
    steps.compare("a note").await;

    // The guidelines changed, then a rating under them.
    let guidelines = Guidelines::new("Rate by the **abstract**.").expect("guidelines");
    (steps.test.study.guidelines().set(&guidelines).await).expect("set");
    steps.compare("guidelines").await;
    steps.rate_target(targets[5].0, 0, &owner).await;

    // Two raters added; then every target needs one more rater (the finished ones are no longer
    // fully rated, without a rating), who rates a target finished before and part of another;
    // then the plan back to one rater per target.
    let ann = steps.add_rater("Ann").await;
    steps.compare("a rater added").await;
    steps.add_rater("Bo").await;
    steps.compare("another rater added").await;
    (steps
        .test
        .study
        .raters()
        .set_plan(None, Some(Some(1.0)))
        .await)
        .expect("the plan");
    steps.compare("two raters per target").await;
    let ann = (steps.test.study.raters().named(&ann).await).expect("Ann");
    steps.rate_target(targets[2].0, 0, &ann).await;
    steps.rate_target(targets[6].0, 2, &ann).await;
    (steps
        .test
        .study
        .raters()
        .set_plan(Some(1), Some(Some(0.0)))
        .await)
        .expect("the plan");
    steps.compare("one rater per target").await;

    // Targets chosen (the study rates those only from then on) and one dropped.
    let chosen: Vec<PaperId> = targets[..10].iter().map(|(_, id)| id.clone()).collect();
    let rng = rand::rngs::StdRng::seed_from_u64(1);
    (steps.test.study.targets().choose(&chosen, rng).await).expect("chosen");
    steps.compare("chosen").await;
    steps.rate_target(targets[7].0, 0, &owner).await;
    let dropped = [targets[3].1.clone()];
    (steps
        .test
        .study
        .targets()
        .drop(&dropped, DropRule::Any)
        .await)
        .expect("dropped");
    steps.compare("dropped").await;

    // Pruning, then ratings of what is left.
    (steps.test.study.pruning().set(true).await).expect("pruning");
    steps.compare("pruning").await;
    steps.rate_target(targets[8].0, 0, &owner).await;

    // Every step compared; those of ratings alone made from the boards before (the rest,
    // after an import, a choice or pruning, read it all).
    assert!(steps.steps > 60, "{} steps", steps.steps);
    assert!(
        steps.made_from_earlier >= steps.steps - 6,
        "{} of {} steps made from the earlier set",
        steps.made_from_earlier,
        steps.steps
    );
}

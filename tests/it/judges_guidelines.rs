//! A judge reads what the raters read (issue 40, item 1): a prompt's `{guidelines}` gives the
//! judge the study's guidelines with the scale of stars below them, each grade keeps the
//! version it was made under, and a judge whose guidelines changed since its grades is refused
//! as one whose prompt changed.

use paperjudge::domain::{Guidelines, JudgeName};
use paperjudge::study::{Refusal, StudyError};

use crate::common::TestStudy;
use crate::judge_support::{Reply, StandIn};
use crate::judges_run::{endpoint_of, request};
use crate::web_support::fixture_study;

const GUIDELINES: &str = "Rate **method** papers above surveys.\n\n- A dataset alone: 2 stars.";

/// What `{guidelines}` gives under [`GUIDELINES`]: the owner's text, then the scale.
const HOW_TO_RATE: &str =
    "Rate **method** papers above surveys.\n\n- A dataset alone: 2 stars.\n\n\
The stars:\n\
1 (irrelevant): Not about the target's problem; no use to a reader of the target.\n\
2 (marginally relevant): Shares a broad topic or a method in passing; you would not follow it up.\n\
3 (moderately relevant): Related work worth knowing; you might cite it.\n\
4 (relevant): Closely related; you would read it after the target.\n\
5 (highly relevant): Essential next to the target; you would certainly read and cite it.";

async fn set_guidelines(study: &TestStudy, markdown: &str) {
    let guidelines = Guidelines::new(markdown).expect("guidelines");
    (study.study.guidelines().set(&guidelines).await).expect("the guidelines set");
}

/// Each grade of the judge `name` with the guidelines' version it keeps, and the judge's own.
async fn versions_of(study: &TestStudy, name: &str) -> (Vec<Option<i64>>, Option<i64>) {
    let grades = sqlx::query_scalar(
        "SELECT g.guidelines FROM judge_grades g JOIN judges j ON j.id = g.judge_id
         WHERE j.name = ? ORDER BY g.target_id, g.paper_id",
    )
    .bind(name)
    .fetch_all(&study.connections)
    .await
    .unwrap();
    let judge = sqlx::query_scalar("SELECT guidelines FROM judges WHERE name = ?")
        .bind(name)
        .fetch_one(&study.connections)
        .await
        .unwrap();
    (grades, judge)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_prompt_with_guidelines_sends_them_to_the_judge_and_each_grade_keeps_their_version() {
    let study = fixture_study().await;
    set_guidelines(&study, "An older version.").await;
    set_guidelines(&study, GUIDELINES).await;
    let stand_in = StandIn::start(|_, _| Reply::stars(3));
    let mut own = request(&stand_in);
    own.name = Some(JudgeName::new("reads-guidelines").unwrap());
    endpoint_of(&mut own).prompt =
        Some("How to rate:\n{guidelines}\n---\n{target_title} / {candidate_title}".into());
    own.limit = Some(2);
    let report = study
        .study
        .evaluation()
        .run_judge(own.clone(), ())
        .await
        .unwrap();
    assert_eq!(report.stored, 2);
    let received = stand_in.received();
    assert_eq!(
        received[0].prompt(),
        format!("How to rate:\n{HOW_TO_RATE}\n---\nTarget one / Paper two")
    );
    assert_eq!(
        versions_of(&study, "reads-guidelines").await,
        (vec![Some(2); 2], Some(2))
    );

    // The guidelines change: the judge's grades were made under the others.
    set_guidelines(&study, "Rate surveys above method papers.").await;
    let refused = crate::judges_run::refused(&study, own).await;
    assert!(
        matches!(&refused, StudyError::Refused(Refusal::JudgeChanged { .. })),
        "{refused:?}"
    );
    assert_eq!(
        refused.to_string(),
        "the judge \"reads-guidelines\" grades with the study's guidelines of then (version 2), \
         and the guidelines in force are version 3 (a judge reads them through its prompt's \
         {guidelines}): a judge's grades all come from one model and one prompt, so name this \
         run's judge with --name"
    );
    assert_eq!(stand_in.requests(), 2);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_default_prompt_carries_the_guidelines_or_the_scale_alone_when_there_are_none() {
    let study = fixture_study().await;
    let stand_in = StandIn::start(|_, _| Reply::stars(2));
    let mut before = request(&stand_in);
    before.name = Some(JudgeName::new("before").unwrap());
    before.limit = Some(1);
    study
        .study
        .evaluation()
        .run_judge(before, ())
        .await
        .unwrap();
    let prompt = stand_in.received()[0].prompt().to_owned();
    assert!(
        prompt.contains("</guidelines>):\n<guidelines>\n1 (irrelevant): Not about"),
        "{prompt}"
    );
    assert_eq!(versions_of(&study, "before").await, (vec![None], None));

    set_guidelines(&study, GUIDELINES).await;
    let mut after = request(&stand_in);
    after.name = Some(JudgeName::new("after").unwrap());
    after.limit = Some(1);
    study.study.evaluation().run_judge(after, ()).await.unwrap();
    let prompt = stand_in.received()[1].prompt().to_owned();
    assert!(
        prompt.contains(&format!("<guidelines>\n{HOW_TO_RATE}\n</guidelines>")),
        "{prompt}"
    );
    assert_eq!(versions_of(&study, "after").await, (vec![Some(1)], Some(1)));

    // A prompt without `{guidelines}` grades under none, whatever changes.
    let mut without = request(&stand_in);
    without.name = Some(JudgeName::new("without").unwrap());
    endpoint_of(&mut without).prompt = Some("{target_title} / {candidate_title}".into());
    without.limit = Some(1);
    study
        .study
        .evaluation()
        .run_judge(without.clone(), ())
        .await
        .unwrap();
    set_guidelines(&study, "Other words.").await;
    let again = study
        .study
        .evaluation()
        .run_judge(without, ())
        .await
        .unwrap();
    assert_eq!(again.stored, 1);
    assert_eq!(versions_of(&study, "without").await, (vec![None; 2], None));
}

//! `GET /`: which targets the study rates and how far it is, the way to continue rating, and
//! the top of the leaderboard (fully rated targets only, like every view a rater reaches).

use actix_web::{web, HttpResponse};
use askama::Template;

use super::auth::Signed;
use super::csrf::CsrfToken;
use super::leaderboard::{self, LeaderboardQuery};
use super::view::{self, Nav, PruningControl, Standing};
use super::WebError;
use crate::checks;
use crate::domain::{Progress, TargetChoice};
use crate::leaderboard::ModelRow;
use crate::study::judges::JudgeSummary;
use crate::study::Study;
use crate::words::page;

/// With more candidate targets than this, the dashboard offers to choose targets: rating
/// every paper of a large library is rarely the plan.
const MANY_CANDIDATES: i64 = 300;

#[derive(Template)]
#[template(path = "dashboard.html")]
struct DashboardPage {
    nav: Nav,
    pairs: Progress,
    /// Targets with every pooled pair rated, of the targets being rated (a rater's: of those
    /// they took).
    finished: i64,
    targets: i64,
    /// Some target still needs rating (by the rater, for a rater): "Continue rating".
    more_to_rate: bool,
    /// "rating 65 chosen targets of 40,000 with recommendations", or the like.
    choice_in_words: String,
    /// A library large enough that choosing targets is the way to start.
    many_candidates: bool,
    /// The study rates every candidate (no target chosen yet).
    rates_all: bool,
    /// Chosen targets still waiting for recommendations.
    without_pool: i64,
    /// The cutoff of the leaderboard's default settings.
    k: usize,
    /// The top of the leaderboard under the default settings; empty until a target is fully
    /// rated.
    leaders: Vec<LeaderView>,
    /// Once a few targets are finished: re-checks done, and how many are suggested.
    recheck: Option<(i64, i64)>,
    /// The anytime-valid verdict in words, with two models or more.
    decision: Option<String>,
    decided: bool,
    /// How many more targets the verdict asks to choose, when the study can choose them.
    choose_more: Option<usize>,
    pruning: Option<PruningControl>,
    csrf_token: String,
    /// A rater's name, in a study with raters: the progress is theirs.
    rater: Option<String>,
    /// With raters: how one judgment per pair came from their stars.
    judgments: Option<String>,
    /// For the owner, each machine judge's share of the targets being rated: grading the rest
    /// costs no rating, rating is what costs.
    judges: Vec<JudgePlan>,
}

/// A model at the top of the board: its standing, its NDCG and the interval.
struct LeaderView {
    standing: Standing,
    ndcg: String,
    ci95: String,
}

impl LeaderView {
    fn of(row: &ModelRow) -> LeaderView {
        LeaderView {
            standing: Standing::of(row),
            ndcg: page::number(row.ndcg(), 3),
            ci95: page::interval_or_missing(row.ci95, 3),
        }
    }
}

/// A judge's part in planning the study, for the owner.
struct JudgePlan {
    words: String,
    /// `/leaderboard?judge=NAME`.
    leaderboard: String,
}

impl JudgePlan {
    fn of(judge: &JudgeSummary, targets: i64) -> JudgePlan {
        let to_grade = (targets - judge.targets_judged).max(0);
        JudgePlan {
            words: format!(
                "The judge {} graded {} of the {targets} targets being rated whole; {} to grade, \
                 which costs no rating (rating them is what costs: each target rated in \
                 /next's order makes its grades count for more).",
                judge.name,
                judge.targets_judged,
                match to_grade {
                    0 => "none left".to_owned(),
                    1 => "1 more".to_owned(),
                    more => format!("{more} more"),
                },
            ),
            leaderboard: format!(
                "/leaderboard?judge={}",
                crate::web::papers::encode_query_value(judge.name.as_str())
            ),
        }
    }
}

/// How many models the dashboard shows of the leaderboard.
const LEADERS_SHOWN: usize = 3;

/// `GET /`.
pub fn routes(config: &mut web::ServiceConfig) {
    config.route("/", web::get().to(show));
}

pub async fn show(
    study: web::Data<Study>,
    signed: Signed,
    csrf: CsrfToken,
) -> Result<HttpResponse, WebError> {
    // The counts come with the leaderboard, from the same revision of the study.
    let evaluated = leaderboard::asked(&study, &LeaderboardQuery::default()).await?;
    let (overview, board) = (&evaluated.set.overview, &evaluated.board);
    let rater = signed.rater_only();
    // A rater's progress is their own, of the targets they took: no other rater's doing moves
    // it.
    let (pairs, finished, targets, more_to_rate) = match rater {
        None => (
            overview.pairs,
            overview.finished,
            overview.active,
            overview.pairs.total > 0 && !overview.pairs.is_finished(),
        ),
        Some(rater) => {
            let own = study.targets().rater_overview(rater).await?;
            (own.pairs, own.finished, own.targets, own.more_to_rate)
        }
    };
    let rechecks = study.recheck().progress(rater).await?;
    let recheck = (rechecks.finished_targets >= checks::RECHECK_FROM_FINISHED_TARGETS).then(|| {
        (
            rechecks.rechecked,
            checks::suggested_rechecks(rechecks.rated_in_finished),
        )
    });
    let leaders = if board.targets.evaluated > 0 {
        board
            .models
            .iter()
            .take(LEADERS_SHOWN)
            .map(LeaderView::of)
            .collect()
    } else {
        Vec::new()
    };
    let choose_more = (board.decision.as_ref())
        .and_then(|decision| decision.targets_to_choose())
        .map(|wanted| wanted.min(overview.choosable()))
        .filter(|&count| count > 0);
    // Choosing targets and pruning change the study for everyone, and a judge's figures are
    // never a rater's: the owner's.
    let (choose_more, pruning, judges) = match rater {
        None => (
            choose_more,
            PruningControl::new(&study.pruning().state().await?, board.decision.as_ref()),
            (study.judges().list().await?.iter())
                .map(|judge| JudgePlan::of(judge, overview.active))
                .collect(),
        ),
        Some(_) => (None, None, Vec::new()),
    };
    let mut response = view::html(&DashboardPage {
        nav: Nav::of(&signed.0),
        pairs,
        finished,
        targets,
        more_to_rate,
        choice_in_words: overview.in_words(),
        many_candidates: overview.candidates > MANY_CANDIDATES,
        rates_all: overview.choice == TargetChoice::All,
        without_pool: overview.without_pool,
        k: board.settings.k.get(),
        leaders,
        recheck,
        decision: board.decision.as_ref().map(|d| d.in_words()),
        decided: board.decision.as_ref().is_some_and(|d| d.decided),
        choose_more,
        pruning,
        csrf_token: csrf.value().to_owned(),
        rater: rater.map(|_| signed.0.name.to_string()),
        judgments: board
            .judgments
            .as_ref()
            .map(|judgments| judgments.describe()),
        judges,
    })?;
    csrf.set_cookie_on(&mut response)?;
    Ok(response)
}

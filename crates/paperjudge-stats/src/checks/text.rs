//! The checks as `paperjudge checks` prints them: each check's sentence, then its numbers in
//! aligned columns, numbers with 4 decimals and `-` where undefined.

use std::borrow::Cow;

use super::judges::JudgeAudit;
use super::{CannotJudgeReport, Checks, GuidelinesReport, RatersReport};
use crate::terminal::escape;
use crate::words::terminal::{self, number};

pub fn render(checks: &Checks) -> String {
    let k = checks.settings.metrics.k;
    let mut out = format!("{}\n", checks.settings.metrics.describe());
    if let Some(judgments) = &checks.settings.judgments {
        out.push_str(&escape(&format!("{}\n", judgments.describe())));
    }
    out.push_str(&format!(
        "{} targets evaluated; pool depth {}\n",
        checks.targets_evaluated, checks.settings.pool_depth
    ));
    for pruned in &checks.pruned {
        out.push_str(&escape(&format!(
            "{} was pruned: left out of the pools of {} of them, checked over the other {}\n",
            pruned.model, pruned.left_out_of, pruned.targets
        )));
    }

    let bias = &checks.pool_bias;
    out.push_str(&format!(
        "\nPool bias (leave one model out)\n{}\n",
        bias.sentence
    ));
    let mut rows = vec![[
        "model".to_owned(),
        "unique pairs".to_owned(),
        "relevant".to_owned(),
        format!("NDCG@{k}"),
        "without".to_owned(),
        "drop".to_owned(),
        "rank".to_owned(),
        "rank without".to_owned(),
    ]];
    for row in &bias.models {
        rows.push([
            escape(&row.model).into_owned(),
            row.unique_pairs.to_string(),
            row.unique_relevant.to_string(),
            number(row.ndcg),
            number(row.ndcg_without),
            number(row.drop),
            row.rank.to_string(),
            row.rank_without.to_string(),
        ]);
    }
    push_table(&mut out, &rows);

    let consistency = &checks.consistency;
    out.push_str(&format!(
        "\nConsistency (re-checked pairs)\n{}\n",
        consistency.sentence
    ));
    let interval = terminal::interval(consistency.kappa_ci95, terminal::PLACES);
    out.push_str(&format!(
        "pairs {}  exact agreement {}  within one star {}  kappa {}  95% CI {interval}\n",
        consistency.pairs,
        number(consistency.exact_agreement),
        number(consistency.within_one_star),
        number(consistency.kappa),
    ));
    if consistency.pairs > 0 {
        let mut rows = vec![["then \\ now", "1", "2", "3", "4", "5"].map(str::to_owned)];
        for (then, counts) in consistency.confusion.iter().enumerate() {
            let mut row = [
                format!("{}", then + 1),
                String::new(),
                String::new(),
                String::new(),
                String::new(),
                String::new(),
            ];
            for (now, count) in counts.iter().enumerate() {
                row[now + 1] = count.to_string();
            }
            rows.push(row);
        }
        push_table(&mut out, &rows);
    }

    let sensitivity = &checks.sensitivity;
    out.push_str(&format!(
        "\nVariant sensitivity\n{}\n",
        sensitivity.sentence
    ));
    let mut rows =
        vec![["gain", "ideal", "unjudged", "k", "tau", "leader", "ranking"].map(str::to_owned)];
    for variant in &sensitivity.variants {
        let ranking: Vec<String> = (variant.ranking.iter())
            .map(|placed| escape(&placed.model).into_owned())
            .collect();
        rows.push([
            variant.gain.to_string(),
            variant.ideal.to_string(),
            variant.unjudged.to_string(),
            format!("{}{}", variant.k, if variant.is_default { "*" } else { "" }),
            number(variant.kendall_tau),
            variant
                .leader
                .as_deref()
                .map_or("-".to_owned(), |l| escape(l).into_owned()),
            ranking.join(" > "),
        ]);
    }
    push_table(&mut out, &rows);
    out.push_str("*: the settings asked for; tau: Kendall's tau-b against them\n");

    let timing = &checks.timing;
    out.push_str(&format!("\nTime and drift\n{}\n", timing.sentence));
    let seconds = &timing.seconds_per_judgment;
    out.push_str(&format!(
        "judgments {}  sittings {}  median s/judgment {}  quartiles {}  median ratings/sitting {}\n",
        timing.judgments,
        timing.sittings,
        number(seconds.median),
        terminal::interval(seconds.quartiles, 1),
        number(timing.ratings_per_sitting.median),
    ));
    if seconds.timed > 0 {
        let bins: Vec<String> = (seconds.distribution.iter())
            .map(|bin| match bin.to_seconds {
                Some(to) => format!("{}-{to}s: {}", bin.from_seconds, bin.judgments),
                None => format!("{}s+: {}", bin.from_seconds, bin.judgments),
            })
            .collect();
        out.push_str(&format!("seconds per judgment  {}\n", bins.join("  ")));
    }
    for day in &timing.ratings_per_day {
        out.push_str(&format!("{}  {} ratings\n", day.day, day.ratings));
    }
    let drift = &timing.drift;
    out.push_str(&format!(
        "drift over {} long sittings (>= {} ratings): mean stars first third {}, last third {}\n",
        drift.long_sittings,
        super::LONG_SITTING,
        number(drift.first_third_mean_stars),
        number(drift.last_third_mean_stars),
    ));
    let parts: Vec<String> = (timing.recheck_by_position.iter())
        .map(|part| {
            format!(
                "{} {} ({} pairs)",
                part.part,
                number(part.exact_agreement),
                part.rechecked
            )
        })
        .collect();
    out.push_str(&format!(
        "re-check exact agreement by the rating's place in its sitting: {}\n",
        parts.join(", ")
    ));
    if let Some(raters) = &checks.raters {
        render_raters(&mut out, raters);
    }
    render_cannot_judge(&mut out, &checks.cannot_judge, k.get());
    render_guidelines(&mut out, &checks.guidelines);
    for judge in &checks.judges {
        render_judge(&mut out, judge);
    }
    out
}

/// A machine judge against the raters: its sentence, the agreement, then each model's NDCG
/// on its grades and on the raters'.
fn render_judge(out: &mut String, judge: &JudgeAudit) {
    out.push_str(&format!(
        "\nMachine judge {}\n{}\n",
        escape(judge.name.as_str()),
        escape(&judge.sentence)
    ));
    let interval = terminal::interval(judge.alpha_ordinal_ci95, terminal::PLACES);
    out.push_str(&format!(
        "pairs compared: {}; kappa (quadratic) {}; alpha (ordinal) {} {interval}; spearman {}; \
         mean stars {} (raters {}); share relevant {} (raters {}); tau-b {} over {} targets \
         graded whole\n",
        judge.pairs_compared,
        number(judge.kappa_quadratic),
        number(judge.alpha_ordinal),
        number(judge.spearman),
        number(judge.mean_stars),
        number(judge.mean_stars_raters),
        number(judge.share_relevant),
        number(judge.share_relevant_raters),
        number(judge.tau_b),
        judge.targets_judged,
    ));
    let mut rows = vec![[
        "model".to_owned(),
        "NDCG on the judge's".to_owned(),
        "on the raters'".to_owned(),
    ]];
    for model in &judge.ranking {
        rows.push([
            escape(&model.model).into_owned(),
            number(model.ndcg_judge),
            number(model.ndcg_raters),
        ]);
    }
    push_table(out, &rows);
}

/// "Can't judge": its sentence, then a row per rater and per model when any pair was marked.
fn render_cannot_judge(out: &mut String, report: &CannotJudgeReport, k: usize) {
    out.push_str(&format!(
        "\nPairs the raters could not judge\n{}\n",
        escape(&report.sentence)
    ));
    if report.cannot_judge == 0 {
        return;
    }
    let mut rows = vec![["rater", "answers", "can't judge", "share"].map(str::to_owned)];
    for rater in &report.raters {
        rows.push([
            escape(rater.name.as_str()).into_owned(),
            rater.answers.to_string(),
            rater.cannot_judge.to_string(),
            number(rater.share),
        ]);
    }
    push_table(out, &rows);
    let mut rows = vec![[
        "model".to_owned(),
        format!("pairs in top {k}"),
        "nobody could judge".to_owned(),
        "share".to_owned(),
    ]];
    for model in &report.models {
        rows.push([
            escape(&model.model).into_owned(),
            model.pairs.to_string(),
            model.unjudged.to_string(),
            number(model.share),
        ]);
    }
    push_table(out, &rows);
}

/// The ratings by version of the guidelines: the sentence, then a row per version.
fn render_guidelines(out: &mut String, report: &GuidelinesReport) {
    out.push_str(&format!(
        "\nThe ratings under each version of the guidelines\n{}\n",
        escape(&report.sentence)
    ));
    if report.versions.is_empty() {
        return;
    }
    let mut rows = vec![[
        "guidelines",
        "ratings",
        "1",
        "2",
        "3",
        "4",
        "5",
        "mean stars",
        "can't judge",
        "rated twice",
        "alpha",
    ]
    .map(str::to_owned)];
    for version in &report.versions {
        let name = match version.version {
            None => "none yet".to_owned(),
            Some(number) if version.cleared => format!("version {number} (cleared)"),
            Some(number) => format!("version {number}"),
        };
        let share = |at: usize| number(version.stars_shares.map(|shares| shares[at]));
        rows.push([
            name,
            version.answers.to_string(),
            share(0),
            share(1),
            share(2),
            share(3),
            share(4),
            number(version.mean_stars),
            number(version.cannot_judge_share),
            version.pairs_rated_twice.to_string(),
            number(version.alpha_ordinal),
        ]);
    }
    push_table(out, &rows);
}

/// The agreement among raters: its sentence, alpha, then a row per rater and per two raters.
fn render_raters(out: &mut String, raters: &RatersReport) {
    out.push_str(&format!(
        "\nAgreement among raters\n{}\n",
        escape(&raters.sentence)
    ));
    let interval = terminal::interval(raters.alpha_ordinal_ci95, terminal::PLACES);
    out.push_str(&format!(
        "pairs rated twice or more: {}; alpha (ordinal) {} {interval}; alpha (interval) {}\n",
        raters.pairs_rated_twice,
        number(raters.alpha_ordinal),
        number(raters.alpha_interval)
    ));
    let mut rows = vec![[
        "rater".to_owned(),
        "ratings".to_owned(),
        "mean stars".to_owned(),
        "share relevant".to_owned(),
        "alpha without".to_owned(),
        "tau-b".to_owned(),
        "targets".to_owned(),
        "leader".to_owned(),
    ]];
    for rater in &raters.raters {
        rows.push([
            escape(rater.name.as_str()).into_owned(),
            rater.ratings.to_string(),
            number(rater.mean_stars),
            number(rater.share_relevant),
            number(rater.alpha_without),
            number(rater.tau_b),
            rater.targets.to_string(),
            escape(rater.leader.as_deref().unwrap_or("-")).into_owned(),
        ]);
    }
    push_table(out, &rows);
    let mut rows = vec![[
        "rater".to_owned(),
        "and rater".to_owned(),
        "pairs".to_owned(),
        "kappa".to_owned(),
    ]];
    for kappa in &raters.kappa {
        rows.push([
            escape(kappa.a.as_str()).into_owned(),
            escape(kappa.b.as_str()).into_owned(),
            kappa.pairs.to_string(),
            number(kappa.kappa),
        ]);
    }
    if rows.len() > 1 {
        push_table(out, &rows);
    }
}

/// Appends rows as aligned columns: the first left-aligned, the rest right-aligned, except a
/// last column of words; each cell as a table shows it ([`crate::terminal::cell`]).
pub(crate) fn push_table<const N: usize>(out: &mut String, rows: &[[String; N]]) {
    let rows: Vec<[Cow<'_, str>; N]> = (rows.iter())
        .map(|row| row.each_ref().map(|text| crate::terminal::cell(text)))
        .collect();
    let widths: Vec<usize> = (0..N)
        .map(|column| {
            (rows.iter())
                .map(|row| row[column].chars().count())
                .max()
                .unwrap_or(0)
        })
        .collect();
    for row in &rows {
        let cells: Vec<String> = (row.iter().zip(&widths).enumerate())
            .map(|(column, (cell, &width))| {
                if column == 0
                    || !cell
                        .chars()
                        .next()
                        .is_some_and(|c| c.is_ascii_digit() || c == '-')
                {
                    format!("{cell:<width$}")
                } else {
                    format!("{cell:>width$}")
                }
            })
            .collect();
        out.push_str(cells.join("  ").trim_end());
        out.push('\n');
    }
}

//! Exporters: ratings CSV, TREC qrels, the blind pool and a machine judge's grades, each
//! written to any `Write`.

use std::io::Write;

use crate::domain::{PaperId, Stars};
use crate::metrics::Relevance;
use crate::study::judges::JudgmentRow;
use crate::study::pool::ExportedPoolEntry;
use crate::study::rating::ExportedRating;

/// The ratings CSV header; the importer reads the same file back.
pub const RATINGS_HEADER: [&str; 8] = [
    "target",
    "target_title",
    "paper",
    "paper_title",
    "stars",
    "rated_at",
    "rater",
    "note",
];

/// Ratings as RFC 4180 CSV (fields with commas, quotes or line breaks are quoted): `stars` 1
/// to 5, or `cannot-judge`; `note` empty without one.
pub fn ratings_csv(rows: &[ExportedRating], out: impl Write) -> Result<(), csv::Error> {
    let mut writer = csv::WriterBuilder::new()
        .terminator(csv::Terminator::CRLF)
        .from_writer(out);
    writer.write_record(RATINGS_HEADER)?;
    for row in rows {
        writer.write_record([
            row.target.as_str(),
            row.target_title.as_str(),
            row.paper.as_str(),
            row.paper_title.as_str(),
            &row.answer.to_string(),
            row.rated_at.as_str(),
            row.rater.as_str(),
            row.note.as_ref().map_or("", |note| note.as_str()),
        ])?;
    }
    writer.flush()?;
    Ok(())
}

/// TREC qrels: `target 0 paper rel`, one line per judged pair (target, paper, stars).
pub fn qrels(
    judged: &[(PaperId, PaperId, Stars)],
    relevance: Relevance,
    mut out: impl Write,
) -> std::io::Result<()> {
    for (target, paper, stars) in judged {
        writeln!(out, "{target} 0 {paper} {}", relevance.of(*stars))?;
    }
    out.flush()
}

/// The blind pool: `target,paper,position,stars`, stars empty when unrated. No model
/// information, so the file can go to a second rater.
pub fn pool_csv(rows: &[ExportedPoolEntry], out: impl Write) -> Result<(), csv::Error> {
    let mut writer = csv::WriterBuilder::new()
        .terminator(csv::Terminator::CRLF)
        .from_writer(out);
    writer.write_record(["target", "paper", "position", "stars"])?;
    for row in rows {
        writer.write_record([
            row.target.as_str(),
            row.paper.as_str(),
            &row.position.to_string(),
            &row.stars.map(|stars| stars.to_string()).unwrap_or_default(),
        ])?;
    }
    writer.flush()?;
    Ok(())
}

/// The judgments CSV header of `export judgments`; `import judgments` reads the file back.
pub const JUDGMENTS_HEADER: [&str; 6] = [
    "target",
    "paper",
    "judge",
    "stars",
    "explanation",
    "judged_at",
];

/// A machine judge's grades as RFC 4180 CSV, an empty explanation where it gave none.
pub fn judgments_csv(rows: &[JudgmentRow], out: impl Write) -> Result<(), csv::Error> {
    let mut writer = csv::WriterBuilder::new()
        .terminator(csv::Terminator::CRLF)
        .from_writer(out);
    writer.write_record(JUDGMENTS_HEADER)?;
    for row in rows {
        writer.write_record([
            row.target.as_str(),
            row.paper.as_str(),
            row.judge.as_str(),
            &row.stars.to_string(),
            row.explanation.as_deref().unwrap_or_default(),
            row.judged_at.as_str(),
        ])?;
    }
    writer.flush()?;
    Ok(())
}

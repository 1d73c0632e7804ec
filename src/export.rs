//! Exporters: ratings CSV, TREC qrels and the blind pool, each written to any `Write`.

use std::io::Write;

use crate::db::blind_pool::BlindPoolRow;
use crate::db::ratings::RatingRow;
use crate::domain::Stars;
use crate::metrics::Relevance;

/// The ratings CSV header; the importer reads the same file back.
pub const RATINGS_HEADER: [&str; 6] = [
    "target",
    "target_title",
    "paper",
    "paper_title",
    "stars",
    "rated_at",
];

/// Ratings as RFC 4180 CSV (fields with commas, quotes or line breaks are quoted).
pub fn ratings_csv(rows: &[RatingRow], out: impl Write) -> Result<(), csv::Error> {
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
            &row.stars.to_string(),
            row.rated_at.as_str(),
        ])?;
    }
    writer.flush()?;
    Ok(())
}

/// TREC qrels: `target 0 paper rel`, one line per rated pair.
pub fn qrels(rows: &[RatingRow], relevance: Relevance, mut out: impl Write) -> std::io::Result<()> {
    for row in rows {
        // Stored ratings are 1..=5 by the schema's CHECK constraint.
        let stars = Stars::new(row.stars).unwrap_or(Stars::MIN);
        writeln!(
            out,
            "{} 0 {} {}",
            row.target,
            row.paper,
            relevance.of(stars)
        )?;
    }
    out.flush()
}

/// The blind pool: `target,paper,position,stars`, stars empty when unrated. No model
/// information, so the file can go to a second rater.
pub fn pool_csv(rows: &[BlindPoolRow], out: impl Write) -> Result<(), csv::Error> {
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

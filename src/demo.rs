//! The bundled demo study: 48 papers with abstracts written for paperjudge, 5 models of
//! plausibly different quality, 8 targets and no ratings.

use rand::SeedableRng;
use sqlx::SqlitePool;

use crate::import::{self, Format, ImportConnection, ImportError, Kind, Summary};

const PAPERS_CSV: &str = include_str!("demo/papers.csv");
const RECOMMENDATIONS_CSV: &str = include_str!("demo/recommendations.csv");

/// Loads the demo study into an empty study (no papers); `None` if it already holds papers.
pub async fn load_if_empty(pool: &SqlitePool) -> Result<Option<Summary>, ImportError> {
    let mut conn = ImportConnection::open(pool).await?;
    let loaded = load(&mut conn).await;
    // Without a commit, the transaction is rolled back as the connection closes.
    conn.close().await;
    loaded
}

async fn load(tx: &mut ImportConnection) -> Result<Option<Summary>, ImportError> {
    tx.begin().await?;
    let has_papers: bool = sqlx::query_scalar("SELECT EXISTS (SELECT 1 FROM papers)")
        .fetch_one(&mut **tx)
        .await?;
    if has_papers {
        return Ok(None);
    }
    let mut rng = rand::rngs::StdRng::from_os_rng();
    import::import(
        tx,
        &Kind::Papers(Format::Csv),
        PAPERS_CSV.as_bytes(),
        "demo/papers.csv",
        &mut rng,
    )
    .await?;
    let recommendations = Kind::Recommendations(import::recommendations::Options {
        format: Format::Csv,
        model: None,
    });
    let summary = import::import(
        tx,
        &recommendations,
        RECOMMENDATIONS_CSV.as_bytes(),
        "demo/recommendations.csv",
        &mut rng,
    )
    .await?;
    tx.commit().await?;
    Ok(Some(summary))
}

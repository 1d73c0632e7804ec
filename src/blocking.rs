//! Work that would hold up the async workers (CPU work, reads stepped directly) runs on
//! tokio's blocking threads, through [`run`].

/// Runs `work` on a thread of tokio's blocking pool and answers what it returns; a panic in it
/// goes on in the caller, as if `work` had run there.
pub async fn run<T: Send + 'static>(work: impl FnOnce() -> T + Send + 'static) -> T {
    tokio::task::spawn_blocking(work)
        .await
        .unwrap_or_else(|failed| std::panic::resume_unwind(failed.into_panic()))
}

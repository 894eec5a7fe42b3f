//! Engine runs on threads of their own. An import preview drives thousands of plugin calls
//! from one future; on a runtime worker that future shares its thread with the connections it
//! waits on and with every other request, while the engine bench drives the same future from a
//! thread of its own. Here it runs as the bench runs it, and the runtime's workers stay free to
//! serve the calls' answers and other users' pages. (Measured on 2026-11-25: the server's run of
//! 10,000 imports went from a median of 2.29 s to 2.09 s, a gain within that machine's noise;
//! the bench took 1.66 s. The README has the figures.)

use std::future::Future;

use crate::ServiceError;

/// Stack size of an engine thread: as the runtime's workers get (deeply nested properties
/// recurse).
const ENGINE_THREAD_STACK_BYTES: usize = 8 << 20;

/// Runs `work` to completion on a new thread, driven through the current runtime's handle so
/// its I/O and timers stay the runtime's. Dropping the returned future (a cancelled job, a
/// client gone) stops `work` at its next await, as it would stop on a worker.
pub(crate) async fn on_engine_thread<T, F>(what: &str, work: F) -> Result<T, ServiceError>
where
    T: Send + 'static,
    F: Future<Output = T> + Send + 'static,
{
    let handle = tokio::runtime::Handle::current();
    // Dropped with this future: the thread's `select!` then drops `work`.
    let (_cancel_on_drop, cancelled) = tokio::sync::oneshot::channel::<()>();
    let (answer, answered) = tokio::sync::oneshot::channel();
    std::thread::Builder::new()
        .name("ferry-engine".into())
        .stack_size(ENGINE_THREAD_STACK_BYTES)
        .spawn(move || {
            let done = handle.block_on(async move {
                tokio::select! {
                    done = work => Some(done),
                    _ = cancelled => None,
                }
            });
            if let Some(done) = done {
                let _ = answer.send(done);
            }
        })
        .map_err(|e| ServiceError::Internal(format!("{what}: cannot start a thread for it: {e}")))?;
    answered.await.map_err(|_| ServiceError::Internal(format!("{what} stopped without an answer (its thread panicked)")))
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::{AtomicBool, Ordering};
    use std::sync::Arc;
    use std::time::Duration;

    #[tokio::test]
    async fn work_runs_on_its_own_thread_with_the_runtimes_timers() {
        let caller = std::thread::current().id();
        let (thread, name) = on_engine_thread("a test", async {
            tokio::time::sleep(Duration::from_millis(5)).await;
            (std::thread::current().id(), std::thread::current().name().map(str::to_string))
        })
        .await
        .unwrap();
        assert_ne!(thread, caller);
        assert_eq!(name.as_deref(), Some("ferry-engine"));
    }

    #[tokio::test]
    async fn dropping_the_caller_stops_the_work() {
        let finished = Arc::new(AtomicBool::new(false));
        let flag = finished.clone();
        let call = on_engine_thread("a test", async move {
            tokio::time::sleep(Duration::from_millis(300)).await;
            flag.store(true, Ordering::SeqCst);
        });
        // The caller gives up after 20 ms; the work must not reach its end.
        assert!(tokio::time::timeout(Duration::from_millis(20), call).await.is_err());
        tokio::time::sleep(Duration::from_millis(500)).await;
        assert!(!finished.load(Ordering::SeqCst), "the work ran on after its caller was dropped");
    }

    #[tokio::test]
    async fn a_panic_is_an_error_naming_the_work() {
        let err = on_engine_thread::<(), _>("the preview", async { panic!("boom") }).await.unwrap_err();
        assert!(err.to_string().contains("the preview stopped without an answer"), "{err}");
    }
}

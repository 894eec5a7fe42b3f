//! Engine runs off the runtime's workers. An import preview drives thousands of plugin calls
//! from one future; on a runtime worker that future shares its thread with the connections it
//! waits on and with every other request, while the engine bench drives the same future from a
//! thread of its own. Here it runs as the bench runs it, on one of the runtime's blocking
//! threads, which the runtime keeps for 10 s after a run (tokio's default), and the workers stay
//! free to serve the calls' answers and other users' pages.
//!
//! Measured on 2026-11-27 (release build, 10,000 imports, 2-core machine, one binary switched
//! between the two, six blocks of three or four rounds alternating with the engine bench): a
//! new thread for each run gave a YAML program's preview 1.19–1.43 times the engine bench's
//! (median 1.39), a kept blocking thread 0.86–1.64 (median 1.20); its engine run took 1.65–1.80
//! s against 1.38–1.72 s (the last two blocks); an import spec's ratio gained less (median 1.23
//! → 1.15). Page faults were the same both ways; why a kept thread runs faster was not
//! isolated (one guess, not checked: the program is parsed on a blocking thread just before
//! its run, which may now run on that same thread, as the bench parses and runs on one).

use std::future::Future;

use crate::ServiceError;

/// Runs `work` to completion on one of the runtime's blocking threads, driven through the
/// runtime's handle so its I/O and timers stay the runtime's. Dropping the returned future (a
/// cancelled job, a client gone) stops `work` at its next await, as it would stop on a worker.
/// The thread's stack is the runtime's threads' (the server sets 8 MiB: deeply nested
/// properties recurse).
pub(crate) async fn on_engine_thread<T, F>(what: &str, work: F) -> Result<T, ServiceError>
where
    T: Send + 'static,
    F: Future<Output = T> + Send + 'static,
{
    let handle = tokio::runtime::Handle::current();
    // Dropped with this future: the thread's `select!` then drops `work`.
    let (_cancel_on_drop, cancelled) = tokio::sync::oneshot::channel::<()>();
    let (answer, answered) = tokio::sync::oneshot::channel();
    // The answer comes through `answer`, not the task's handle: when the caller is gone, the
    // thread still ends its `block_on` and goes back to the pool.
    drop(tokio::task::spawn_blocking(move || {
        let done = handle.block_on(async move {
            tokio::select! {
                done = work => Some(done),
                _ = cancelled => None,
            }
        });
        if let Some(done) = done {
            let _ = answer.send(done);
        }
    }));
    answered.await.map_err(|_| {
        ServiceError::Internal(format!("{what} stopped without an answer (its thread panicked)"))
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::{AtomicBool, Ordering};
    use std::sync::Arc;
    use std::time::Duration;

    /// Off the worker that asked, on one of the runtime's own threads (its blocking pool,
    /// which keeps its threads between runs), with the runtime's timers.
    #[test]
    fn work_runs_off_the_workers_on_a_thread_of_the_runtime_with_its_timers() {
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(1)
            .thread_name("runtime-thread")
            .enable_all()
            .build()
            .unwrap();
        let (worker, (thread, name)) = runtime.block_on(async {
            tokio::spawn(async {
                let worker = std::thread::current().id();
                let ran = on_engine_thread("a test", async {
                    tokio::time::sleep(Duration::from_millis(5)).await;
                    (std::thread::current().id(), std::thread::current().name().map(str::to_string))
                })
                .await
                .unwrap();
                (worker, ran)
            })
            .await
            .unwrap()
        });
        assert_ne!(thread, worker, "the work ran on the worker that asked for it");
        assert_eq!(
            name.as_deref(),
            Some("runtime-thread"),
            "the work ran on a thread the runtime does not keep"
        );
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
        let err =
            on_engine_thread::<(), _>("the preview", async { panic!("boom") }).await.unwrap_err();
        assert!(err.to_string().contains("the preview stopped without an answer"), "{err}");
    }
}

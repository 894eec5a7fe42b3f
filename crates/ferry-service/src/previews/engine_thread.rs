//! Engine runs off the server's workers, on threads of their own below them. An import
//! preview drives thousands of plugin calls from one future; on a server worker that future,
//! and the calls' tasks, would share their threads with every other request, while the engine
//! bench drives the same future from a thread of its own. Here a run is driven as the bench
//! drives it, from a thread kept for engine runs (for 10 s after a run, as tokio keeps its
//! blocking threads), and the tasks it spawns (each plugin call, its connection's traffic) run
//! on the engine's own workers, as does the CPU work of storing its results. All of these
//! threads, and the plugin processes the runs launch, take the engine's [`Background`]
//! priority (`ferry serve --engine-niceness`): under load the kernel serves the server's
//! workers, and so people's pages, first.
//!
//! Measured on 2026-11-27 (release build, 10,000 imports, 2-core machine, one binary switched
//! between the two, six blocks of three or four rounds alternating with the engine bench): a
//! new thread for each run gave a YAML program's preview 1.19–1.43 times the engine bench's
//! (median 1.39), a kept thread 0.86–1.64 (median 1.20); its engine run took 1.65–1.80 s
//! against 1.38–1.72 s (the last two blocks); an import spec's ratio gained less (median 1.23
//! → 1.15). Page faults were the same both ways; why a kept thread runs faster was not
//! isolated (one guess, not checked: the program is parsed on a blocking thread just before
//! its run, which may now run on that same thread, as the bench parses and runs on one).

use std::future::Future;

use ferry_engine::priority::Background;

use crate::ServiceError;

/// An engine thread's stack: as the server's own threads' (deeply nested properties recurse,
/// and a debug build needs more than the 2 MiB a thread gets by default).
const STACK_BYTES: usize = 8 << 20;

/// The threads engine runs go to: a runtime of their own, whose workers run the tasks a run
/// spawns (each plugin call, its connection's traffic) and whose blocking threads drive the
/// runs themselves. All of them take the engine's priority, so lowering it never lowers a
/// thread that serves requests, and a run's own work never queues behind a page on a worker.
/// The runtime starts with the first run: a service that never runs the engine (`ferry token
/// create`) starts no threads for it.
pub(crate) struct EngineThreads {
    priority: Background,
    runtime: std::sync::OnceLock<tokio::runtime::Runtime>,
}

impl EngineThreads {
    pub(crate) fn new(priority: Background) -> EngineThreads {
        EngineThreads { priority, runtime: std::sync::OnceLock::new() }
    }

    fn runtime(&self) -> &tokio::runtime::Runtime {
        self.runtime.get_or_init(|| {
            let priority = self.priority;
            tokio::runtime::Builder::new_multi_thread()
                .worker_threads(crate::jobs::available_cores())
                .thread_name("ferry-engine")
                .thread_stack_size(STACK_BYTES)
                .enable_all()
                .on_thread_start(move || priority.apply_to_this_thread())
                .build()
                .expect("the engine's runtime starts")
        })
    }

    /// Runs `work` to completion on an engine thread, driven through the engine's runtime, so
    /// the tasks it spawns, its I/O and its timers are that runtime's. Dropping the returned
    /// future (a cancelled job, a client gone) stops `work` at its next await, as it would stop
    /// on a worker.
    pub(crate) async fn run<T, F>(&self, what: &str, work: F) -> Result<T, ServiceError>
    where
        T: Send + 'static,
        F: Future<Output = T> + Send + 'static,
    {
        let runtime = self.runtime();
        let handle = runtime.handle().clone();
        // Dropped with this future: the thread's `select!` then drops `work`.
        let (_cancel_on_drop, cancelled) = tokio::sync::oneshot::channel::<()>();
        let (answer, answered) = tokio::sync::oneshot::channel();
        // The answer comes through `answer`, not the task's handle: when the caller is gone,
        // the thread still ends its `block_on` and goes back to the pool.
        drop(runtime.spawn_blocking(move || {
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
            ServiceError::Internal(format!(
                "{what} stopped without an answer (its thread panicked)"
            ))
        })
    }

    /// Runs two pieces of an engine run's CPU work (packing a preview's results as they are
    /// stored, reading them back for its commit) side by side on the engine's blocking
    /// threads; `what` names them if a thread stops.
    pub(crate) async fn side_by_side<A: Send + 'static, B: Send + 'static>(
        &self,
        what: &str,
        a: impl FnOnce() -> A + Send + 'static,
        b: impl FnOnce() -> B + Send + 'static,
    ) -> Result<(A, B), ServiceError> {
        let runtime = self.runtime();
        tokio::try_join!(runtime.spawn_blocking(a), runtime.spawn_blocking(b))
            .map_err(|e| ServiceError::Internal(format!("{what} stopped: {e}")))
    }
}

impl Drop for EngineThreads {
    /// The service may be dropped inside an async context, where a runtime's own drop would
    /// wait for its threads: the runtime is let go, each thread ending after its run.
    fn drop(&mut self) {
        if let Some(runtime) = self.runtime.take() {
            runtime.shutdown_background();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::{AtomicBool, Ordering};
    use std::sync::Arc;
    use std::time::Duration;

    /// Off the worker that asked, on an engine thread (kept between runs), with timers, and
    /// what it spawns runs on the engine's threads too.
    #[test]
    fn work_and_what_it_spawns_run_on_engine_threads_with_timers() {
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(1)
            .thread_name("runtime-thread")
            .enable_all()
            .build()
            .unwrap();
        let name = || std::thread::current().name().map(str::to_string);
        let (worker, (thread, ran_on, spawned_on)) = runtime.block_on(async move {
            tokio::spawn(async move {
                let worker = std::thread::current().id();
                let threads = EngineThreads::new(Background::default());
                let ran = threads
                    .run("a test", async move {
                        tokio::time::sleep(Duration::from_millis(5)).await;
                        let spawned = tokio::spawn(async move { name() }).await.unwrap();
                        (std::thread::current().id(), name(), spawned)
                    })
                    .await
                    .unwrap();
                (worker, ran)
            })
            .await
            .unwrap()
        });
        assert_ne!(thread, worker, "the work ran on the worker that asked for it");
        assert_eq!(ran_on.as_deref(), Some("ferry-engine"), "the work ran on another thread");
        assert_eq!(spawned_on.as_deref(), Some("ferry-engine"), "its task ran on a server worker");
    }

    /// A service that never runs the engine (the command line's `token create`) starts none
    /// of its threads.
    #[tokio::test]
    async fn the_threads_start_with_the_first_run() {
        let threads = EngineThreads::new(Background::default());
        assert!(threads.runtime.get().is_none(), "the engine's threads started before a run");
        threads.run("a test", async {}).await.unwrap();
        assert!(threads.runtime.get().is_some());
    }

    #[tokio::test]
    async fn dropping_the_caller_stops_the_work() {
        let finished = Arc::new(AtomicBool::new(false));
        let flag = finished.clone();
        let threads = EngineThreads::new(Background::default());
        let call = threads.run("a test", async move {
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
        let threads = EngineThreads::new(Background::default());
        let err = threads.run::<(), _>("the preview", async { panic!("boom") }).await.unwrap_err();
        assert!(err.to_string().contains("the preview stopped without an answer"), "{err}");
    }

    /// The engine's threads run at its background priority; the workers that serve requests
    /// keep the server's (Linux: priority is per thread).
    #[cfg(target_os = "linux")]
    #[tokio::test(flavor = "multi_thread", worker_threads = 1)]
    async fn engine_threads_run_below_the_workers() {
        let nice = || rustix::process::getpriority_process(Some(rustix::thread::gettid())).unwrap();
        let worker = nice();
        let background = Background::below_current(4);
        let threads = EngineThreads::new(background);
        let engine = threads.run("a test", async move { nice() }).await.unwrap();
        assert_eq!(Some(engine), background.nice());
        assert_eq!(nice(), worker, "the worker that asked was lowered too");
    }
}

//! A provider plugin kept alive across crashes and hangs. When its process dies, or a call
//! passes its deadline, a fresh process is started and configured as before, and each
//! idempotent call that was in flight on the old one is retried once — alone on the new
//! process, so a retry that fails again can only have failed because of its own resource.
//!
//! Why alone: when one `Read` kills the process, every call in flight on it fails too, and
//! which ones were in flight depends on timing. Retrying them side by side would let the
//! culprit kill its innocent neighbours a second time; retried one at a time (an exclusive
//! gate, while first attempts share it), every outcome depends only on the resource itself.
//!
//! `Create`, `Update` and `Delete` are never retried: they are not idempotent.

use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;

use ferry_rpc::pulumirpc::{
    CheckRequest, CheckResponse, CreateRequest, CreateResponse, DeleteRequest, DiffRequest,
    DiffResponse, ListRequest, ListResponse, ReadRequest, ReadResponse, UpdateRequest,
    UpdateResponse,
};
use tokio::sync::{Mutex, RwLock};

use super::{PluginError, ProviderPlugin};
use crate::provider::Provider;

/// Starts and configures one plugin process (the same way every time).
pub type StartPlugin = Arc<
    dyn Fn() -> Pin<Box<dyn Future<Output = Result<ProviderPlugin, PluginError>> + Send>>
        + Send
        + Sync,
>;

/// The process a supervised plugin currently talks to.
struct Current {
    /// Bumped on every restart: a failure only restarts the process it happened on.
    generation: u64,
    process: Result<Arc<ProviderPlugin>, PluginError>,
    restarts: u32,
}

pub struct SupervisedPlugin {
    package: String,
    start: StartPlugin,
    current: Mutex<Current>,
    /// First attempts share it; retries take it alone.
    gate: RwLock<()>,
    max_restarts: u32,
}

/// Whether a failed call says the process is gone or stuck (rather than the provider
/// answering with an error), given whether the process was replaced while the call ran.
fn process_failed(error: &PluginError, replaced_meanwhile: bool) -> bool {
    match error {
        PluginError::Crashed { .. } | PluginError::Timeout { .. } => true,
        // A call cut off because another call's failure replaced the process under it.
        PluginError::Call { code, .. } => {
            replaced_meanwhile
                && matches!(code.as_str(), "Unavailable" | "Unknown" | "Internal" | "Cancelled")
        }
        _ => false,
    }
}

impl SupervisedPlugin {
    /// Starts the first process. A plugin that cannot start at all is an error here, once.
    pub async fn start(
        package: &str,
        start: StartPlugin,
        max_restarts: u32,
    ) -> Result<SupervisedPlugin, PluginError> {
        let process = start().await?;
        Ok(SupervisedPlugin {
            package: package.to_string(),
            start,
            current: Mutex::new(Current {
                generation: 0,
                process: Ok(Arc::new(process)),
                restarts: 0,
            }),
            gate: RwLock::new(()),
            max_restarts,
        })
    }

    /// The process now, or why there is none.
    async fn current(&self) -> Result<(u64, Arc<ProviderPlugin>), PluginError> {
        let current = self.current.lock().await;
        current.process.clone().map(|p| (current.generation, p))
    }

    async fn generation(&self) -> u64 {
        self.current.lock().await.generation
    }

    /// Replaces the process of `generation` (if nobody did yet) after `error`.
    async fn replace(&self, generation: u64, error: &PluginError) {
        let mut current = self.current.lock().await;
        if current.generation != generation {
            return;
        }
        current.generation += 1;
        if let Ok(old) = &current.process {
            // A hung process must not keep running; a crashed one is already gone.
            old.shutdown().await;
        }
        if current.restarts >= self.max_restarts {
            current.process = Err(PluginError::GaveUp {
                package: self.package.clone(),
                restarts: current.restarts,
                last: error.to_string(),
            });
            return;
        }
        current.restarts += 1;
        tracing::warn!(plugin = %self.package, restart = current.restarts, "restarting the plugin after: {error}");
        current.process = match (self.start)().await {
            Ok(p) => Ok(Arc::new(p)),
            Err(e) => Err(PluginError::RestartFailed {
                package: self.package.clone(),
                after: error.to_string(),
                message: e.to_string(),
            }),
        };
    }

    /// One attempt on the shared process. A crash or a hang replaces the process; the flag
    /// says whether that is why the attempt failed.
    async fn shared_attempt<T, F, Fut>(&self, call: F) -> (Result<T, PluginError>, bool)
    where
        F: FnOnce(Arc<ProviderPlugin>) -> Fut,
        Fut: Future<Output = Result<T, PluginError>>,
    {
        let (generation, result) = {
            let _shared = self.gate.read().await;
            let (generation, process) = match self.current().await {
                Ok(current) => current,
                Err(e) => return (Err(e), false),
            };
            (generation, call(process).await)
        };
        let broke = match &result {
            Err(e) if process_failed(e, self.generation().await != generation) => {
                self.replace(generation, e).await;
                true
            }
            _ => false,
        };
        (result, broke)
    }

    /// Runs an idempotent call: once on the shared process, and once more, alone on a fresh
    /// process, when the first attempt met a crash or a hang.
    async fn idempotent<T, F, Fut>(&self, method: &'static str, call: F) -> Result<T, PluginError>
    where
        F: Fn(Arc<ProviderPlugin>) -> Fut,
        Fut: Future<Output = Result<T, PluginError>>,
    {
        match self.shared_attempt(&call).await {
            (_, true) => {}
            (other, false) => return other,
        }
        let _alone = self.gate.write().await;
        let (generation, process) = self.current().await?;
        match call(process).await {
            Err(e) if process_failed(&e, false) => {
                self.replace(generation, &e).await;
                let what = match &e {
                    PluginError::Crashed { .. } => "crashed",
                    PluginError::Timeout { .. } => "hung",
                    _ => "failed",
                };
                Err(PluginError::FailedTwice {
                    package: self.package.clone(),
                    method,
                    what: what.to_string(),
                    detail: e.to_string(),
                })
            }
            other => other,
        }
    }

    /// A call that is never retried: a crash fails it, and the next call gets a fresh process.
    async fn once<T, F, Fut>(&self, call: F) -> Result<T, PluginError>
    where
        F: FnOnce(Arc<ProviderPlugin>) -> Fut,
        Fut: Future<Output = Result<T, PluginError>>,
    {
        self.shared_attempt(call).await.0
    }

    pub async fn get_plugin_info(&self) -> Result<String, PluginError> {
        self.idempotent("GetPluginInfo", |p| async move { p.get_plugin_info().await }).await
    }

    pub async fn get_mapping(
        &self,
        key: &str,
        provider: &str,
    ) -> Result<Option<Vec<u8>>, PluginError> {
        self.idempotent("GetMapping", |p| async move { p.get_mapping(key, provider).await }).await
    }

    pub async fn get_mappings(&self, key: &str) -> Result<Vec<String>, PluginError> {
        self.idempotent("GetMappings", |p| async move { p.get_mappings(key).await }).await
    }
}

#[tonic::async_trait]
impl Provider for SupervisedPlugin {
    fn package(&self) -> &str {
        &self.package
    }
    async fn read(&self, request: ReadRequest) -> Result<ReadResponse, PluginError> {
        self.idempotent("Read", |p| {
            let request = request.clone();
            async move { p.read(request).await }
        })
        .await
    }
    async fn check(&self, request: CheckRequest) -> Result<CheckResponse, PluginError> {
        self.idempotent("Check", |p| {
            let request = request.clone();
            async move { p.check(request).await }
        })
        .await
    }
    async fn diff(&self, request: DiffRequest) -> Result<DiffResponse, PluginError> {
        self.idempotent("Diff", |p| {
            let request = request.clone();
            async move { p.diff(request).await }
        })
        .await
    }
    async fn get_schema(&self) -> Result<String, PluginError> {
        self.idempotent("GetSchema", |p| async move { p.get_schema().await }).await
    }
    async fn create(&self, request: CreateRequest) -> Result<CreateResponse, PluginError> {
        self.once(|p| async move { p.create(request).await }).await
    }
    async fn update(&self, request: UpdateRequest) -> Result<UpdateResponse, PluginError> {
        self.once(|p| async move { p.update(request).await }).await
    }
    async fn delete(&self, request: DeleteRequest) -> Result<(), PluginError> {
        self.once(|p| async move { p.delete(request).await }).await
    }
    async fn list_page(&self, request: ListRequest) -> Result<Vec<ListResponse>, PluginError> {
        self.idempotent("List", |p| {
            let request = request.clone();
            async move { p.list_page(request).await }
        })
        .await
    }
}

impl SupervisedPlugin {
    /// Stops the current process.
    pub async fn shutdown(&self) {
        if let Ok(p) = &self.current.lock().await.process {
            p.shutdown().await;
        }
    }
}

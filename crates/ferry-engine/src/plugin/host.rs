//! One running provider plugin: launched as Pulumi launches plugins (the engine's address as
//! its argument; it prints the port it serves on), spoken to over `pulumirpc.ResourceProvider`
//! with a deadline on every call, watched for crashes, and stopped when dropped.

use std::collections::VecDeque;
use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use ferry_rpc::pulumirpc::resource_provider_client::ResourceProviderClient;
use ferry_rpc::pulumirpc::{
    parameterize_request, CheckRequest, CheckResponse, ConfigureRequest, ConfigureResponse,
    CreateRequest, CreateResponse, DeleteRequest, DiffRequest, DiffResponse, GetMappingRequest,
    GetMappingsRequest, GetSchemaRequest, ListRequest, ListResponse, ParameterizeRequest,
    ParameterizeResponse, ProviderHandshakeRequest, ReadRequest, ReadResponse, UpdateRequest,
    UpdateResponse,
};
use tokio::io::{AsyncBufReadExt, BufReader};
use tokio::process::{Child, Command};
use tokio_util::task::AbortOnDropHandle;
use tonic::transport::{Channel, Endpoint};

use super::environment::PluginEnvironment;
use super::error::{LoggedOutput, PluginError};
use super::search::ProviderBinary;

/// Lines of a plugin's stderr kept for the server's log when it fails.
const STDERR_TAIL: usize = 40;

/// Deadlines.
#[derive(Debug, Clone, Copy)]
pub struct LaunchOptions {
    /// For the plugin to print its port and accept a connection.
    pub start_timeout: Duration,
    /// For each call.
    pub call_timeout: Duration,
    /// How often one provider's process may be restarted after a crash or a hang (per
    /// registry, that is per preview) before its remaining calls fail.
    pub max_restarts: u32,
    /// The priority the plugin's process runs at (the server's own by default).
    pub priority: crate::priority::Background,
}

impl Default for LaunchOptions {
    fn default() -> Self {
        LaunchOptions {
            start_timeout: Duration::from_secs(30),
            call_timeout: Duration::from_secs(120),
            max_restarts: 32,
            priority: Default::default(),
        }
    }
}

/// What the plugin said it accepts, from `Handshake` and `Configure`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Capabilities {
    pub handshake: bool,
    pub accept_secrets: bool,
    pub accept_resources: bool,
    pub accept_outputs: bool,
    pub supports_preview: bool,
}

pub struct ProviderPlugin {
    pub package: String,
    pub path: PathBuf,
    client: ResourceProviderClient<Channel>,
    child: tokio::sync::Mutex<Child>,
    stderr: Arc<Mutex<VecDeque<String>>>,
    options: LaunchOptions,
    capabilities: Mutex<Capabilities>,
}

impl ProviderPlugin {
    /// Starts the plugin, reads its port, connects and shakes hands (falling back to the older
    /// protocol when the plugin does not implement `Handshake`).
    /// `environment` says what of this process's environment the plugin sees.
    pub async fn launch(
        binary: &ProviderBinary,
        engine_addr: std::net::SocketAddr,
        root_directory: &Path,
        options: LaunchOptions,
        environment: &PluginEnvironment,
    ) -> Result<ProviderPlugin, PluginError> {
        let package = binary.package.clone();
        let mut command = Command::new(&binary.path);
        environment.apply(&package, &mut command);
        options.priority.apply_to_child(&mut command);
        let mut child = command
            .arg(engine_addr.to_string())
            .current_dir(root_directory)
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .kill_on_drop(true)
            .spawn()
            .map_err(|e| {
                tracing::warn!(plugin = %package, path = %binary.path.display(), error = %e, "could not start a plugin");
                PluginError::Launch { package: package.clone(), path: binary.path.clone(), message: e.to_string() }
            })?;

        let stderr = Arc::new(Mutex::new(VecDeque::with_capacity(STDERR_TAIL)));
        if let Some(err) = child.stderr.take() {
            let tail = stderr.clone();
            let pkg = package.clone();
            tokio::spawn(async move {
                let mut lines = BufReader::new(err).lines();
                while let Ok(Some(line)) = lines.next_line().await {
                    tracing::debug!(plugin = %pkg, "stderr: {line}");
                    let mut tail = tail.lock().expect("stderr lock");
                    if tail.len() == STDERR_TAIL {
                        tail.pop_front();
                    }
                    tail.push_back(line);
                }
            });
        }
        let stdout = child.stdout.take().expect("stdout is piped");
        let mut lines = BufReader::new(stdout).lines();
        let startup =
            |message: String, stderr: &Arc<Mutex<VecDeque<String>>>| PluginError::Startup {
                package: package.clone(),
                message,
                output: LoggedOutput::log(&package, &tail_text(stderr)),
            };

        let first = tokio::time::timeout(options.start_timeout, lines.next_line()).await;
        let port = match first {
            Err(_) => {
                return Err(startup(
                    format!("it printed no port within {}s", options.start_timeout.as_secs()),
                    &stderr,
                ))
            }
            Ok(Err(e)) => return Err(startup(format!("reading its output failed: {e}"), &stderr)),
            Ok(Ok(None)) => {
                let status = child.wait().await.map(|s| s.to_string()).unwrap_or_default();
                // Give the stderr reader a moment to collect the last words.
                tokio::time::sleep(Duration::from_millis(50)).await;
                return Err(startup(
                    format!("it exited before printing its port ({status})"),
                    &stderr,
                ));
            }
            Ok(Ok(Some(line))) => line.trim().parse::<u16>().map_err(|_| {
                startup(
                    format!(
                        "it printed `{}` where its port number belongs",
                        line.chars().take(80).collect::<String>()
                    ),
                    &stderr,
                )
            })?,
        };
        // Later stdout lines are the plugin's own chatter; drain them so it never blocks.
        let pkg = package.clone();
        tokio::spawn(async move {
            while let Ok(Some(line)) = lines.next_line().await {
                tracing::debug!(plugin = %pkg, "stdout: {line}");
            }
        });

        let endpoint = Endpoint::from_shared(format!("http://127.0.0.1:{port}"))
            .expect("a loopback address is a valid URI")
            .connect_timeout(options.start_timeout);
        let channel = endpoint
            .connect()
            .await
            .map_err(|e| startup(format!("connecting to port {port} failed: {e}"), &stderr))?;
        let plugin = ProviderPlugin {
            package,
            path: binary.path.clone(),
            client: ResourceProviderClient::new(channel)
                .max_decoding_message_size(256 * 1024 * 1024),
            child: tokio::sync::Mutex::new(child),
            stderr,
            options,
            capabilities: Mutex::new(Capabilities::default()),
        };

        let handshake = ProviderHandshakeRequest {
            engine_address: engine_addr.to_string(),
            root_directory: Some(root_directory.display().to_string()),
            program_directory: Some(root_directory.display().to_string()),
            ..Default::default()
        };
        let mut client = plugin.client.clone();
        match plugin.call("Handshake", async move { client.handshake(handshake).await }).await {
            Ok(r) => {
                let mut caps = plugin.capabilities.lock().expect("capabilities lock");
                caps.handshake = true;
                caps.accept_secrets = r.accept_secrets;
                caps.accept_resources = r.accept_resources;
                caps.accept_outputs = r.accept_outputs;
            }
            Err(PluginError::Call { code, .. }) if code == "Unimplemented" => {}
            Err(e) => return Err(e),
        }
        Ok(plugin)
    }

    /// The plugin's gRPC client itself, without this type's deadlines and crash reports (the
    /// import bench's floor calls the plugin through it, as directly as tonic can).
    pub fn client(&self) -> ResourceProviderClient<Channel> {
        self.client.clone()
    }

    pub fn capabilities(&self) -> Capabilities {
        *self.capabilities.lock().expect("capabilities lock")
    }

    /// The plugin's process, while it runs.
    pub async fn process_id(&self) -> Option<u32> {
        self.child.lock().await.id()
    }

    /// The last lines the plugin wrote to stderr.
    pub fn stderr_tail(&self) -> String {
        tail_text(&self.stderr)
    }

    /// Runs one call with the deadline, telling a crash from an error. The call is a task of its
    /// own, so its answer is decoded on whichever worker is free: a deployment makes thousands
    /// of calls from the one task that drives it, which otherwise decoded every answer itself.
    /// The task is aborted when nobody waits for it any more (the deadline passed, or the
    /// deployment that asked was dropped), as the call itself would have been dropped.
    async fn call<T: Send + 'static>(
        &self,
        method: &'static str,
        fut: impl std::future::Future<Output = Result<tonic::Response<T>, tonic::Status>>
            + Send
            + 'static,
    ) -> Result<T, PluginError> {
        let outcome = match tokio::time::timeout(
            self.options.call_timeout,
            AbortOnDropHandle::new(tokio::spawn(fut)),
        )
        .await
        {
            Err(_) => {
                return Err(PluginError::Timeout {
                    package: self.package.clone(),
                    method,
                    timeout: self.options.call_timeout,
                })
            }
            Ok(Err(failed)) => {
                return Err(PluginError::Call {
                    package: self.package.clone(),
                    method,
                    code: "Internal".into(),
                    message: format!("the call's task failed: {failed}"),
                })
            }
            Ok(Ok(outcome)) => outcome,
        };
        match outcome {
            Ok(response) => Ok(response.into_inner()),
            Err(status) => {
                // A broken connection usually means the process died: say so, with its stderr.
                let exited = {
                    // (A call cut off by the process dying can also come back `Cancelled`.)
                    let transport_failure = matches!(
                        status.code(),
                        tonic::Code::Unavailable
                            | tonic::Code::Unknown
                            | tonic::Code::Internal
                            | tonic::Code::Cancelled
                    );
                    // A dying process may still be exiting: on a transport failure, look again
                    // for up to a second before calling it a plain error.
                    let attempts = if transport_failure { 10 } else { 1 };
                    let mut exited = None;
                    for attempt in 0..attempts {
                        if let Ok(Some(s)) = self.child.lock().await.try_wait() {
                            exited = Some(s.to_string());
                            break;
                        }
                        if attempt + 1 < attempts {
                            tokio::time::sleep(Duration::from_millis(100)).await;
                        }
                    }
                    exited
                };
                match exited {
                    Some(status_text) => {
                        tokio::time::sleep(Duration::from_millis(50)).await;
                        Err(PluginError::Crashed {
                            package: self.package.clone(),
                            method,
                            status: status_text,
                            output: LoggedOutput::log(&self.package, &self.stderr_tail()),
                        })
                    }
                    None => Err(PluginError::Call {
                        package: self.package.clone(),
                        method,
                        code: format!("{:?}", status.code()),
                        message: status.message().to_string(),
                    }),
                }
            }
        }
    }

    pub async fn get_plugin_info(&self) -> Result<String, PluginError> {
        let mut c = self.client.clone();
        Ok(self.call("GetPluginInfo", async move { c.get_plugin_info(()).await }).await?.version)
    }

    /// The package schema (JSON text). Callers cache it per package and version.
    pub async fn get_schema(&self) -> Result<String, PluginError> {
        let mut c = self.client.clone();
        Ok(self
            .call("GetSchema", async move {
                c.get_schema(GetSchemaRequest { version: 0, ..Default::default() }).await
            })
            .await?
            .schema)
    }

    /// The plugin's mapping for `key` (`terraform`) and the other tool's provider `provider`:
    /// `None` when it maps nothing for them (empty data) or does not answer `GetMapping` at all
    /// (older plugins answer Unimplemented).
    pub async fn get_mapping(
        &self,
        key: &str,
        provider: &str,
    ) -> Result<Option<Vec<u8>>, PluginError> {
        let mut c = self.client.clone();
        let request = GetMappingRequest { key: key.to_string(), provider: provider.to_string() };
        match self.call("GetMapping", async move { c.get_mapping(request).await }).await {
            Ok(r) if r.data.is_empty() => Ok(None),
            Ok(r) => Ok(Some(r.data)),
            Err(PluginError::Call { code, .. }) if code == "Unimplemented" => Ok(None),
            Err(e) => Err(e),
        }
    }

    /// The other tool's providers the plugin maps for `key` (`GetMappings`). A plugin that does
    /// not answer `GetMappings` (older plugins answer Unimplemented) claims, as Pulumi reads it,
    /// the one provider its `GetMapping` for an empty name names, or none.
    pub async fn get_mappings(&self, key: &str) -> Result<Vec<String>, PluginError> {
        let mut c = self.client.clone();
        let request = GetMappingsRequest { key: key.to_string() };
        match self.call("GetMappings", async move { c.get_mappings(request).await }).await {
            Ok(r) => Ok(r.providers),
            Err(PluginError::Call { code, .. }) if code == "Unimplemented" => {
                let mut c = self.client.clone();
                let request = GetMappingRequest { key: key.to_string(), provider: String::new() };
                match self.call("GetMapping", async move { c.get_mapping(request).await }).await {
                    Ok(r) if !r.data.is_empty() && !r.provider.is_empty() => Ok(vec![r.provider]),
                    Ok(_) => Ok(Vec::new()),
                    Err(PluginError::Call { code, .. }) if code == "Unimplemented" => {
                        Ok(Vec::new())
                    }
                    Err(e) => Err(e),
                }
            }
            Err(e) => Err(e),
        }
    }

    /// Turns the plugin into the parameterized package `name`@`version` (called before
    /// `GetSchema`, as Pulumi does). A plugin without `Parameterize` answers Unimplemented.
    pub async fn parameterize(
        &self,
        name: &str,
        version: &str,
        value: Vec<u8>,
    ) -> Result<ParameterizeResponse, PluginError> {
        let mut c = self.client.clone();
        let request = ParameterizeRequest {
            parameters: Some(parameterize_request::Parameters::Value(
                parameterize_request::ParametersValue {
                    name: name.to_string(),
                    version: version.to_string(),
                    value,
                },
            )),
        };
        self.call("Parameterize", async move { c.parameterize(request).await }).await
    }

    /// One page of `List`: the results, and the continuation (or `Computed`) that ends it.
    pub async fn list_page(&self, request: ListRequest) -> Result<Vec<ListResponse>, PluginError> {
        let mut c = self.client.clone();
        let mut stream = self.call("List", async move { c.list(request).await }).await?;
        let mut page = Vec::new();
        loop {
            match tokio::time::timeout(self.options.call_timeout, stream.message()).await {
                Err(_) => {
                    return Err(PluginError::Timeout {
                        package: self.package.clone(),
                        method: "List",
                        timeout: self.options.call_timeout,
                    })
                }
                Ok(Ok(Some(item))) => page.push(item),
                Ok(Ok(None)) => return Ok(page),
                Ok(Err(status)) => {
                    return Err(PluginError::Call {
                        package: self.package.clone(),
                        method: "List",
                        code: format!("{:?}", status.code()),
                        message: status.message().to_string(),
                    })
                }
            }
        }
    }

    pub async fn check_config(
        &self,
        request: CheckRequest,
    ) -> Result<Option<CheckResponse>, PluginError> {
        let mut c = self.client.clone();
        match self.call("CheckConfig", async move { c.check_config(request).await }).await {
            Ok(r) => Ok(Some(r)),
            Err(PluginError::Call { code, .. }) if code == "Unimplemented" => Ok(None),
            Err(e) => Err(e),
        }
    }

    pub async fn configure(
        &self,
        request: ConfigureRequest,
    ) -> Result<ConfigureResponse, PluginError> {
        let mut c = self.client.clone();
        let r = self.call("Configure", async move { c.configure(request).await }).await?;
        let mut caps = self.capabilities.lock().expect("capabilities lock");
        caps.accept_secrets |= r.accept_secrets;
        caps.accept_resources |= r.accept_resources;
        caps.accept_outputs |= r.accept_outputs;
        caps.supports_preview = r.supports_preview;
        Ok(r)
    }

    pub async fn read(&self, request: ReadRequest) -> Result<ReadResponse, PluginError> {
        let mut c = self.client.clone();
        self.call("Read", async move { c.read(request).await }).await
    }

    pub async fn check(&self, request: CheckRequest) -> Result<CheckResponse, PluginError> {
        let mut c = self.client.clone();
        self.call("Check", async move { c.check(request).await }).await
    }

    pub async fn diff(&self, request: DiffRequest) -> Result<DiffResponse, PluginError> {
        let mut c = self.client.clone();
        self.call("Diff", async move { c.diff(request).await }).await
    }

    pub async fn create(&self, request: CreateRequest) -> Result<CreateResponse, PluginError> {
        let mut c = self.client.clone();
        self.call("Create", async move { c.create(request).await }).await
    }

    pub async fn update(&self, request: UpdateRequest) -> Result<UpdateResponse, PluginError> {
        let mut c = self.client.clone();
        self.call("Update", async move { c.update(request).await }).await
    }

    pub async fn delete(&self, request: DeleteRequest) -> Result<(), PluginError> {
        let mut c = self.client.clone();
        self.call("Delete", async move { c.delete(request).await }).await
    }

    /// Stops the plugin (it is also killed when dropped).
    pub async fn shutdown(&self) {
        let mut child = self.child.lock().await;
        let _ = child.start_kill();
        let _ = child.wait().await;
    }
}

fn tail_text(tail: &Arc<Mutex<VecDeque<String>>>) -> String {
    tail.lock().expect("stderr lock").iter().map(|l| format!("{l}\n")).collect()
}

#[cfg(test)]
mod tests {
    use super::AbortOnDropHandle;

    /// A call whose caller stops waiting (its deadline, or a dropped deployment) does not run on
    /// in its task: dropping the wait aborts it (what `call` relies on its task handle for).
    #[tokio::test]
    async fn a_call_nobody_waits_for_is_aborted() {
        struct Dropped(std::sync::Arc<std::sync::atomic::AtomicBool>);
        impl Drop for Dropped {
            fn drop(&mut self) {
                self.0.store(true, std::sync::atomic::Ordering::SeqCst);
            }
        }
        let dropped = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
        let held = Dropped(dropped.clone());
        let task = AbortOnDropHandle::new(tokio::spawn(async move {
            let _held = held;
            std::future::pending::<()>().await
        }));
        assert!(
            tokio::time::timeout(std::time::Duration::from_millis(20), task).await.is_err(),
            "the call never ends"
        );
        for _ in 0..100 {
            if dropped.load(std::sync::atomic::Ordering::SeqCst) {
                return;
            }
            tokio::time::sleep(std::time::Duration::from_millis(10)).await;
        }
        panic!("the call's task still runs after its caller stopped waiting");
    }

    #[tokio::test]
    async fn a_call_task_gives_its_answer() {
        assert_eq!(AbortOnDropHandle::new(tokio::spawn(async { 7 })).await.unwrap(), 7);
    }
}

//! The `Engine` service plugins connect back to (its address is their first argument): it
//! takes their log messages and hands them to whoever runs the engine.

use std::net::SocketAddr;

use ferry_rpc::pulumirpc::engine_server::{Engine, EngineServer};
use ferry_rpc::pulumirpc::{LogRequest, LogSeverity};
use tokio::sync::mpsc;
use tonic::{Request, Response, Status};

/// A message a plugin logged.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LogEvent {
    pub severity: LogSeverity,
    pub message: String,
    /// The resource it is about, when the plugin said.
    pub urn: Option<String>,
}

struct EngineLog {
    events: mpsc::UnboundedSender<LogEvent>,
}

#[tonic::async_trait]
impl Engine for EngineLog {
    async fn log(&self, request: Request<LogRequest>) -> Result<Response<()>, Status> {
        let r = request.into_inner();
        let severity = LogSeverity::try_from(r.severity).unwrap_or(LogSeverity::Info);
        let urn = (!r.urn.is_empty()).then_some(r.urn);
        tracing::debug!(?severity, urn = urn.as_deref().unwrap_or(""), "provider: {}", r.message);
        // Nobody listening is fine: logs are informational.
        let _ = self.events.send(LogEvent { severity, message: r.message, urn });
        Ok(Response::new(()))
    }
}

/// A running `Engine` service on a loopback port.
pub struct EngineService {
    pub addr: SocketAddr,
    server: tokio::task::JoinHandle<()>,
}

impl EngineService {
    /// Serves on 127.0.0.1 (an OS-chosen port); log events arrive on the returned receiver.
    pub async fn start() -> std::io::Result<(EngineService, mpsc::UnboundedReceiver<LogEvent>)> {
        let listener = tokio::net::TcpListener::bind(("127.0.0.1", 0)).await?;
        let addr = listener.local_addr()?;
        let (tx, rx) = mpsc::unbounded_channel();
        let server = tokio::spawn(async move {
            let incoming = tokio_stream::wrappers::TcpListenerStream::new(listener);
            if let Err(e) = tonic::transport::Server::builder()
                .add_service(EngineServer::new(EngineLog { events: tx }))
                .serve_with_incoming(incoming)
                .await
            {
                tracing::error!("engine service stopped: {e}");
            }
        });
        Ok((EngineService { addr, server }, rx))
    }
}

impl Drop for EngineService {
    fn drop(&mut self) {
        self.server.abort();
    }
}

//! What a provider answers, arbitrary: a plugin nobody on the project wrote may send any
//! `Read`, `Check` or `Diff` answer. The engine imports a resource from a provider served over
//! tonic's in-memory transport whose answers are the fuzzer's bytes (decoded as the protocol's
//! messages), so every answer crosses the real protocol; the preview must come out with a
//! status for the resource, never a panic or a hang.
#![no_main]

use std::sync::{Arc, Mutex, OnceLock};

use ferry_engine::import::{preview_import, ImportOptions, SpecPreview, StackContext};
use ferry_engine::import_spec::parse_import_spec;
use ferry_engine::plugin::PluginError;
use ferry_engine::provider::{GrpcProvider, Provider, ProviderInstance, ProviderSource};
use ferry_rpc::pulumirpc::resource_provider_server::{ResourceProvider, ResourceProviderServer};
use ferry_rpc::pulumirpc::{
    CheckRequest, CheckResponse, ConfigureRequest, ConfigureResponse, DiffRequest, DiffResponse,
    GetSchemaRequest, GetSchemaResponse, ReadRequest, ReadResponse,
};
use libfuzzer_sys::fuzz_target;
use prost::Message;
use tokio_stream::StreamExt;
use tonic::{Request, Response, Status};

/// The answers, from the fuzzer's bytes: three messages, each behind a length byte.
#[derive(Clone, Default)]
struct Answers {
    read: Option<ReadResponse>,
    check: Option<CheckResponse>,
    diff: Option<DiffResponse>,
}

impl Answers {
    fn from(data: &[u8]) -> Answers {
        let mut parts = Vec::new();
        let mut rest = data;
        for _ in 0..3 {
            let Some((&len, tail)) = rest.split_first() else { break };
            let len = (len as usize).min(tail.len());
            parts.push(&tail[..len]);
            rest = &tail[len..];
        }
        let part = |i: usize| parts.get(i).copied();
        Answers {
            read: part(0).and_then(|b| ReadResponse::decode(b).ok()),
            check: part(1).and_then(|b| CheckResponse::decode(b).ok()),
            diff: part(2).and_then(|b| DiffResponse::decode(b).ok()),
        }
    }
}

/// The provider's answers to the input being run: one server serves every input (a server
/// and an HTTP/2 connection per input cost more than the engine's work on it), and each input
/// sets what it answers before the engine asks.
#[derive(Clone, Default)]
struct Scripted(Arc<Mutex<Answers>>);

impl Scripted {
    fn answers(&self) -> Answers {
        self.0.lock().expect("no input panics while holding the answers").clone()
    }
}

const SCHEMA: &str = r#"{"name": "fuzz", "version": "1.0.0", "resources": {"fuzz:index:Thing": {
  "inputProperties": {"name": {"type": "string"}, "size": {"type": "integer"}, "secret": {"type": "string", "secret": true}},
  "properties": {"name": {"type": "string"}, "size": {"type": "integer"}, "secret": {"type": "string", "secret": true}}}}}"#;

#[tonic::async_trait]
impl ResourceProvider for Scripted {
    async fn get_schema(
        &self,
        _: Request<GetSchemaRequest>,
    ) -> Result<Response<GetSchemaResponse>, Status> {
        Ok(Response::new(GetSchemaResponse { schema: SCHEMA.into() }))
    }
    async fn configure(
        &self,
        _: Request<ConfigureRequest>,
    ) -> Result<Response<ConfigureResponse>, Status> {
        Ok(Response::new(ConfigureResponse::default()))
    }
    async fn read(&self, _: Request<ReadRequest>) -> Result<Response<ReadResponse>, Status> {
        self.answers().read.map(Response::new).ok_or_else(|| Status::internal("no answer"))
    }
    async fn check(&self, _: Request<CheckRequest>) -> Result<Response<CheckResponse>, Status> {
        self.answers().check.map(Response::new).ok_or_else(|| Status::unimplemented("no Check"))
    }
    async fn diff(&self, _: Request<DiffRequest>) -> Result<Response<DiffResponse>, Status> {
        self.answers().diff.map(Response::new).ok_or_else(|| Status::unimplemented("no Diff"))
    }
}

fn runtime() -> &'static tokio::runtime::Runtime {
    static RUNTIME: OnceLock<tokio::runtime::Runtime> = OnceLock::new();
    RUNTIME
        .get_or_init(|| tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap())
}

/// The channel to the one in-memory provider server, and the answers it gives: made on the
/// first input, on the runtime every input runs on.
fn in_memory() -> &'static (tonic::transport::Channel, Scripted) {
    static SERVER: OnceLock<(tonic::transport::Channel, Scripted)> = OnceLock::new();
    SERVER.get_or_init(|| {
        let scripted = Scripted::default();
        let served = scripted.clone();
        let (client_io, server_io) = tokio::io::duplex(1 << 16);
        runtime().spawn(async move {
            let incoming = tokio_stream::once(Ok::<_, std::io::Error>(server_io))
                .chain(tokio_stream::pending());
            let _ = tonic::transport::Server::builder()
                .add_service(ResourceProviderServer::new(served))
                .serve_with_incoming(incoming)
                .await;
        });
        let mut client_io = Some(client_io);
        let channel = runtime().block_on(async move {
            tonic::transport::Endpoint::try_from("http://in-memory")
                .unwrap()
                .connect_with_connector(tower::service_fn(move |_| {
                    let io = client_io.take();
                    async move {
                        io.map(hyper_util::rt::TokioIo::new)
                            .ok_or_else(|| std::io::Error::other("one connection only"))
                    }
                }))
                .await
                .unwrap()
        });
        (channel, scripted)
    })
}

/// The provider for every input, its schema asked once: a server keeps a package's schema per
/// version (`GetSchema` once), and the schema is not what the fuzzer varies.
struct OneProvider {
    provider: Arc<dyn Provider>,
    schema: Arc<String>,
}

#[tonic::async_trait]
impl ProviderSource for OneProvider {
    async fn provider(&self, _: &ProviderInstance) -> Result<Arc<dyn Provider>, PluginError> {
        Ok(self.provider.clone())
    }
    async fn schema(&self, _: &str, _: Option<&str>) -> Result<Arc<String>, PluginError> {
        Ok(self.schema.clone())
    }
}

fuzz_target!(|data: &[u8]| {
    let (channel, scripted) = in_memory();
    *scripted.0.lock().unwrap() = Answers::from(data);
    runtime().block_on(async move {
        let provider: Arc<dyn Provider> = Arc::new(GrpcProvider::new("fuzz", channel.clone()));
        let providers = OneProvider { provider, schema: Arc::new(SCHEMA.to_string()) };
        let spec = parse_import_spec(
            r#"{"resources": [{"type": "fuzz:index:Thing", "name": "thing", "id": "thing-1"}]}"#,
        )
        .unwrap();
        let deployment: ferry_state::Deployment =
            serde_json::from_value(serde_json::json!({})).unwrap();
        let ctx = StackContext { stack: "dev", project: "fuzz", deployment: &deployment };
        let done = preview_import(&spec, &ctx, &providers, ImportOptions::default()).await;
        let preview = SpecPreview::from_plan(&done.plan);
        assert_eq!(preview.resources.len(), 1, "the resource has a status");
    });
});

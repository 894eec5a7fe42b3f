//! A provider plugin for Ferry's tests: a real process speaking `pulumirpc.ResourceProvider`,
//! whose behaviour `FERRY_TEST_PROVIDER_MODE` chooses:
//!
//! - `ok` (default): answers Handshake, GetPluginInfo, GetSchema (counting calls), Check, Read
//!   (echoing the ID) and logs each Read to the engine; `Parameterize` turns it into the package
//!   it names (its schema then carries that name and the parameter); `List` of `test:index:Thing`
//!   lists `thing-00` to `thing-24` in pages of `page_size`, honours `limit`, answers `Computed`
//!   for a query `{"unknown": true}`, and adds a result without an ID for `{"nonsense": true}`;
//! - `legacy`: the same without Handshake or Parameterize (as older plugins);
//! - `exit`: writes an error to stderr and exits before printing its port;
//! - `garbage`: prints something that is not a port;
//! - `silent`: never prints a port;
//! - `crash-on-read`: exits in the middle of a Read;
//! - `hang-on-read`: never answers a Read;
//! - `naive`: a provider of `test:index:Bucket` whose schema has defaults (`forceDestroy: false`,
//!   `maxSessionDuration: 3600`) but whose Check fills none and whose Diff compares inputs key by
//!   key, so an absent property differs from `false`, `3600` or `{}` (as some real providers do);
//!   its Read also returns a nested zero value (`versioning.mfaDelete: false`).
//!
//! In every mode, some IDs script a misbehaving resource (so one process serves culprits and
//! innocents side by side): `crash-…` exits in the middle of its Read, `hang-…` never answers
//! its Read, `checkcrash-…` reads fine and exits in the middle of its Check, `bad-…` reads
//! fine with an input (`badValue`) that Check reports as a failure, and `slow-<ms>-…` reads fine
//! after `<ms>` milliseconds (a preview that takes a while, to stop an instance in the middle),
//! and `env-<NAME>` reads as gone unless the plugin's environment holds the variable `NAME`.
//!
//! Create, Update and Delete do what they say (the ID `id-<name>`, the new inputs as outputs),
//! except on resources named `crashop-…` (the process exits in the middle of the call) or
//! `hangop-…` (the call never returns). Each call appends `<Method> <name>` to the file
//! `FERRY_TEST_PROVIDER_CALLS` names, when it is set: what a test of "never retried" counts.

use std::sync::atomic::{AtomicU32, Ordering};

use ferry_rpc::prost_types::{value::Kind, Struct, Value};
use ferry_rpc::pulumirpc::engine_client::EngineClient;
use ferry_rpc::pulumirpc::resource_provider_server::{ResourceProvider, ResourceProviderServer};
use ferry_rpc::pulumirpc::{
    diff_response::DiffChanges, CheckFailure, CheckRequest, CheckResponse, ConfigureRequest,
    ConfigureResponse, CreateRequest, CreateResponse, DeleteRequest, DiffRequest, DiffResponse,
    GetSchemaRequest, GetSchemaResponse, ListRequest, ListResponse, LogRequest, LogSeverity,
    ParameterizeRequest, ParameterizeResponse, PluginInfo, ProviderHandshakeRequest,
    ProviderHandshakeResponse, ReadRequest, ReadResponse, UpdateRequest, UpdateResponse,
};
use tonic::{Request, Response, Status};

type ListStream =
    std::pin::Pin<Box<dyn tokio_stream::Stream<Item = Result<ListResponse, Status>> + Send>>;

struct TestProvider {
    mode: String,
    engine: String,
    schema_calls: AtomicU32,
    /// What Configure was given: `args`, and the legacy `variables`.
    configured: std::sync::Mutex<(Struct, Struct)>,
    /// The package `Parameterize` made of it: name, version, parameter.
    parameterized: std::sync::Mutex<Option<(String, String, Vec<u8>)>>,
}

/// The `naive` mode's schema: defaults the provider's own Check never applies.
const NAIVE_SCHEMA: &str = r##"{"name": "test", "version": "1.0.0",
  "resources": {"test:index:Bucket": {
    "inputProperties": {"name": {"type": "string"}, "forceDestroy": {"type": "boolean", "default": false},
      "maxSessionDuration": {"type": "integer", "default": 3600}, "tags": {"type": "object", "additionalProperties": {"type": "string"}},
      "versioning": {"$ref": "#/types/test:index:Versioning"}},
    "properties": {"name": {"type": "string"}, "forceDestroy": {"type": "boolean"}, "maxSessionDuration": {"type": "integer"},
      "tags": {"type": "object", "additionalProperties": {"type": "string"}}, "versioning": {"$ref": "#/types/test:index:Versioning"},
      "arn": {"type": "string"}},
    "requiredInputs": ["name"]}},
  "types": {"test:index:Versioning": {"type": "object",
    "properties": {"enabled": {"type": "boolean"}, "mfaDelete": {"type": "boolean"}}}}}"##;

/// Records a mutating call, then misbehaves where the resource's name says to.
async fn mutating_call(method: &str, urn: &str) {
    let name = urn.rsplit("::").next().unwrap_or(urn).to_string();
    if let Some(path) = std::env::var_os("FERRY_TEST_PROVIDER_CALLS") {
        use std::io::Write as _;
        let mut file = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(path)
            .expect("the calls file opens");
        writeln!(file, "{method} {name}").expect("the calls file takes a line");
    }
    if name.starts_with("crashop-") {
        eprintln!("panic: {method} of {name} exploded");
        std::process::exit(3);
    }
    if name.starts_with("hangop-") {
        std::future::pending::<()>().await;
    }
}

fn string(s: &str) -> Value {
    Value { kind: Some(Kind::StringValue(s.to_string())) }
}

#[tonic::async_trait]
impl ResourceProvider for TestProvider {
    async fn handshake(
        &self,
        _: Request<ProviderHandshakeRequest>,
    ) -> Result<Response<ProviderHandshakeResponse>, Status> {
        if self.mode == "legacy" {
            return Err(Status::unimplemented("no handshake in this plugin"));
        }
        Ok(Response::new(ProviderHandshakeResponse {
            accept_secrets: true,
            accept_resources: true,
            ..Default::default()
        }))
    }

    async fn configure(
        &self,
        request: Request<ConfigureRequest>,
    ) -> Result<Response<ConfigureResponse>, Status> {
        let r = request.into_inner();
        let variables =
            Struct { fields: r.variables.into_iter().map(|(k, v)| (k, string(&v))).collect() };
        *self.configured.lock().unwrap() = (r.args.unwrap_or_default(), variables);
        Ok(Response::new(ConfigureResponse { accept_secrets: true, ..Default::default() }))
    }

    async fn get_plugin_info(&self, _: Request<()>) -> Result<Response<PluginInfo>, Status> {
        Ok(Response::new(PluginInfo { version: "0.0.1".into() }))
    }

    async fn diff(&self, request: Request<DiffRequest>) -> Result<Response<DiffResponse>, Status> {
        if self.mode != "naive" {
            return Err(Status::unimplemented("no Diff in this mode"));
        }
        let r = request.into_inner();
        let (olds, news) = (r.old_inputs.unwrap_or_default(), r.news.unwrap_or_default());
        let mut keys: Vec<&String> = olds.fields.keys().chain(news.fields.keys()).collect();
        keys.sort();
        keys.dedup();
        let diffs: Vec<String> = keys
            .into_iter()
            .filter(|k| olds.fields.get(*k) != news.fields.get(*k))
            .cloned()
            .collect();
        let changes = if diffs.is_empty() { DiffChanges::DiffNone } else { DiffChanges::DiffSome };
        Ok(Response::new(DiffResponse { changes: changes as i32, diffs, ..Default::default() }))
    }

    async fn list(&self, request: Request<ListRequest>) -> Result<Response<ListStream>, Status> {
        use ferry_rpc::pulumirpc::list_response::{
            Computed, Continuation, Response as Item, Result as Found,
        };
        let r = request.into_inner();
        if self.mode != "ok" || r.token != "test:index:Thing" {
            return Err(Status::unimplemented("no List for this type"));
        }
        let flag = |key: &str| {
            r.query
                .as_ref()
                .and_then(|q| q.fields.get(key))
                .is_some_and(|v| v.kind == Some(Kind::BoolValue(true)))
        };
        let item = |response| Ok(ListResponse { response: Some(response) });
        if flag("unknown") {
            return Ok(Response::new(Box::pin(tokio_stream::iter(vec![item(Item::Computed(
                Computed {},
            ))]))));
        }
        let all: Vec<String> = (0..25).map(|i| format!("thing-{i:02}")).collect();
        let start: usize = r.continuation_token.parse().unwrap_or(0);
        let page = if r.page_size > 0 { r.page_size as usize } else { all.len() };
        let page = if r.limit > 0 { page.min(r.limit as usize) } else { page };
        let end = (start + page).min(all.len());
        let mut out: Vec<Result<ListResponse, Status>> = all[start..end]
            .iter()
            .map(|id| item(Item::Result(Found { id: id.clone(), name: id.replace('-', "_") })))
            .collect();
        if flag("nonsense") && start == 0 {
            out.push(item(Item::Result(Found { id: String::new(), name: "no id".into() })));
        }
        if end < all.len() {
            out.push(item(Item::Continuation(Continuation {
                continuation_token: end.to_string(),
            })));
        }
        Ok(Response::new(Box::pin(tokio_stream::iter(out))))
    }

    async fn parameterize(
        &self,
        request: Request<ParameterizeRequest>,
    ) -> Result<Response<ParameterizeResponse>, Status> {
        use ferry_rpc::pulumirpc::parameterize_request::Parameters;
        if self.mode == "legacy" {
            return Err(Status::unimplemented("no Parameterize in this plugin"));
        }
        match request.into_inner().parameters {
            Some(Parameters::Value(v)) => {
                *self.parameterized.lock().unwrap() =
                    Some((v.name.clone(), v.version.clone(), v.value));
                Ok(Response::new(ParameterizeResponse { name: v.name, version: v.version }))
            }
            _ => Err(Status::invalid_argument("this plugin is parameterized by value only")),
        }
    }

    async fn get_schema(
        &self,
        _: Request<GetSchemaRequest>,
    ) -> Result<Response<GetSchemaResponse>, Status> {
        if let Some((name, version, value)) = self.parameterized.lock().unwrap().clone() {
            use base64::Engine as _;
            let parameter = base64::engine::general_purpose::STANDARD.encode(&value);
            return Ok(Response::new(GetSchemaResponse {
                schema: serde_json::json!({"name": name, "version": version, "parameterization": {"baseProvider": {"name": "test", "version": "0.0.1"}, "parameter": parameter}})
                    .to_string(),
            }));
        }
        if self.mode == "naive" {
            return Ok(Response::new(GetSchemaResponse { schema: NAIVE_SCHEMA.to_string() }));
        }
        let calls = self.schema_calls.fetch_add(1, Ordering::SeqCst) + 1;
        Ok(Response::new(GetSchemaResponse {
            schema: format!(r#"{{"name":"test","version":"0.0.1","calls":{calls}}}"#),
        }))
    }

    async fn check(
        &self,
        request: Request<CheckRequest>,
    ) -> Result<Response<CheckResponse>, Status> {
        let r = request.into_inner();
        let news = r.news.unwrap_or_default();
        if let Some(Kind::StringValue(v)) = news.fields.get("value").and_then(|v| v.kind.as_ref()) {
            if v.starts_with("checkcrash-") {
                eprintln!("panic: check of {v} exploded");
                std::process::exit(3);
            }
        }
        if self.mode == "naive" {
            // Fills no defaults: the inputs come back as they were sent.
            return Ok(Response::new(CheckResponse { inputs: Some(news), failures: Vec::new() }));
        }
        let failures = news
            .fields
            .keys()
            .filter(|k| k.starts_with("bad"))
            .map(|k| CheckFailure { property: k.clone(), reason: format!("{k} is not allowed") })
            .collect();
        Ok(Response::new(CheckResponse { inputs: Some(news), failures }))
    }

    async fn create(
        &self,
        request: Request<CreateRequest>,
    ) -> Result<Response<CreateResponse>, Status> {
        let r = request.into_inner();
        mutating_call("Create", &r.urn).await;
        let name = r.urn.rsplit("::").next().unwrap_or_default().to_string();
        Ok(Response::new(CreateResponse {
            id: format!("id-{name}"),
            properties: r.properties,
            ..Default::default()
        }))
    }

    async fn update(
        &self,
        request: Request<UpdateRequest>,
    ) -> Result<Response<UpdateResponse>, Status> {
        let r = request.into_inner();
        mutating_call("Update", &r.urn).await;
        Ok(Response::new(UpdateResponse { properties: r.news, ..Default::default() }))
    }

    async fn delete(&self, request: Request<DeleteRequest>) -> Result<Response<()>, Status> {
        let r = request.into_inner();
        mutating_call("Delete", &r.urn).await;
        Ok(Response::new(()))
    }

    async fn read(&self, request: Request<ReadRequest>) -> Result<Response<ReadResponse>, Status> {
        let r = request.into_inner();
        match self.mode.as_str() {
            "crash-on-read" => {
                eprintln!("panic: read of {} exploded", r.id);
                std::process::exit(3);
            }
            "hang-on-read" => std::future::pending::<()>().await,
            _ => {}
        }
        if r.id.starts_with("crash-") {
            eprintln!("panic: read of {} exploded", r.id);
            std::process::exit(3);
        }
        if r.id.starts_with("hang-") {
            std::future::pending::<()>().await;
        }
        if let Some(ms) =
            r.id.strip_prefix("slow-")
                .and_then(|rest| rest.split('-').next())
                .and_then(|ms| ms.parse::<u64>().ok())
        {
            tokio::time::sleep(std::time::Duration::from_millis(ms)).await;
        }
        if let Ok(mut engine) = EngineClient::connect(format!("http://{}", self.engine)).await {
            let _ = engine
                .log(LogRequest {
                    severity: LogSeverity::Info as i32,
                    message: format!("reading {}", r.id),
                    urn: r.urn.clone(),
                    ..Default::default()
                })
                .await;
        }
        if r.id == "missing" {
            return Ok(Response::new(ReadResponse::default()));
        }
        // `env-<NAME>` exists while the plugin's environment holds `NAME`: what a test of the
        // plugin's environment reads.
        if let Some(name) = r.id.strip_prefix("env-") {
            if std::env::var_os(name).is_none() {
                return Ok(Response::new(ReadResponse::default()));
            }
        }
        if self.mode == "naive" {
            let inputs = Struct {
                fields: [
                    ("name".to_string(), string(&r.id)),
                    ("forceDestroy".to_string(), Value { kind: Some(Kind::BoolValue(false)) }),
                    (
                        "maxSessionDuration".to_string(),
                        Value { kind: Some(Kind::NumberValue(3600.0)) },
                    ),
                    (
                        "tags".to_string(),
                        Value { kind: Some(Kind::StructValue(Struct::default())) },
                    ),
                    // A nested zero value: a program that sets `versioning.enabled` alone differs
                    // at the leaf `versioning.mfaDelete`.
                    (
                        "versioning".to_string(),
                        Value {
                            kind: Some(Kind::StructValue(Struct {
                                fields: [
                                    (
                                        "enabled".to_string(),
                                        Value { kind: Some(Kind::BoolValue(true)) },
                                    ),
                                    (
                                        "mfaDelete".to_string(),
                                        Value { kind: Some(Kind::BoolValue(false)) },
                                    ),
                                ]
                                .into(),
                            })),
                        },
                    ),
                ]
                .into(),
            };
            let mut props = inputs.clone();
            props.fields.insert("arn".into(), string(&format!("arn:test:bucket:{}", r.id)));
            return Ok(Response::new(ReadResponse {
                id: r.id,
                properties: Some(props),
                inputs: Some(inputs),
                ..Default::default()
            }));
        }
        let (args, variables) = self.configured.lock().unwrap().clone();
        let props = Struct {
            fields: [
                ("value".to_string(), string(&r.id)),
                ("echoed".to_string(), Value { kind: Some(Kind::BoolValue(true)) }),
                ("configArgs".to_string(), Value { kind: Some(Kind::StructValue(args)) }),
                ("configVariables".to_string(), Value { kind: Some(Kind::StructValue(variables)) }),
            ]
            .into(),
        };
        let mut inputs = Struct { fields: [("value".to_string(), string(&r.id))].into() };
        if r.id.starts_with("bad-") {
            inputs.fields.insert("badValue".into(), string("not allowed"));
        }
        Ok(Response::new(ReadResponse {
            id: r.id,
            properties: Some(props),
            inputs: Some(inputs),
            ..Default::default()
        }))
    }
}

#[tokio::main(flavor = "current_thread")]
async fn main() {
    let mode = std::env::var("FERRY_TEST_PROVIDER_MODE").unwrap_or_else(|_| "ok".into());
    let engine = std::env::args().nth(1).unwrap_or_default();
    match mode.as_str() {
        "exit" => {
            eprintln!("fatal: no credentials configured");
            std::process::exit(2);
        }
        "garbage" => {
            println!("listening!");
            std::future::pending::<()>().await;
        }
        "silent" => std::future::pending::<()>().await,
        _ => {}
    }
    let listener = tokio::net::TcpListener::bind(("127.0.0.1", 0)).await.expect("bind");
    println!("{}", listener.local_addr().expect("addr").port());
    let provider = TestProvider {
        mode,
        engine,
        schema_calls: AtomicU32::new(0),
        configured: Default::default(),
        parameterized: Default::default(),
    };
    tonic::transport::Server::builder()
        .add_service(ResourceProviderServer::new(provider))
        .serve_with_incoming(tokio_stream::wrappers::TcpListenerStream::new(listener))
        .await
        .expect("serve");
}

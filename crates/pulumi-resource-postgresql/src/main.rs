//! `pulumi-resource-postgresql`: Ferry's provider plugin for Pulumi's `postgresql` package. It
//! speaks `pulumirpc.ResourceProvider` like any Pulumi plugin (started with the engine's address
//! as its argument, it serves on a loopback port and prints that port on its first line) and
//! manages roles, databases, schemas and extensions of a real PostgreSQL server.

mod catalog;
mod connection;
mod mapping;
mod model;
mod schema;

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

use ferry_property::wire::{plain_object_to_struct, struct_to_plain_object};
use ferry_rpc::prost_types::Struct;
use ferry_rpc::pulumirpc::diff_response::DiffChanges;
use ferry_rpc::pulumirpc::property_diff::Kind as DiffKind;
use ferry_rpc::pulumirpc::resource_provider_server::{ResourceProvider, ResourceProviderServer};
use ferry_rpc::pulumirpc::*;
use serde_json::{Map, Value};
use tokio::sync::RwLock;
use tonic::{Request, Response, Status};

use connection::Connections;
use model::{Kind, Props};

/// The @pulumi/postgresql release this plugin stands in for (the crate's version says the same).
const VERSION: &str = env!("CARGO_PKG_VERSION");

#[derive(Default)]
struct PostgresProvider {
    accept_secrets: AtomicBool,
    connections: RwLock<Option<Arc<Connections>>>,
}

fn plain(s: Option<Struct>) -> Result<Props, Status> {
    struct_to_plain_object(&s.unwrap_or_default())
        .map_err(|e| Status::invalid_argument(e.to_string()))
}

fn kind_of(token: &str) -> Result<Kind, Status> {
    Kind::from_token(token).ok_or_else(|| {
        Status::invalid_argument(format!(
            "unknown resource type `{token}`: this plugin manages {}",
            model::KINDS.iter().map(|k| k.token()).collect::<Vec<_>>().join(", ")
        ))
    })
}

/// The type token of a URN (`urn:pulumi:stack::project::[parent$]type::name`).
fn urn_type(urn: &str) -> &str {
    urn.rsplit("::").nth(1).and_then(|q| q.rsplit('$').next()).unwrap_or("")
}

fn urn_name(urn: &str) -> &str {
    urn.rsplit("::").next().unwrap_or("")
}

fn failed(e: String) -> Status {
    Status::unknown(e)
}

impl PostgresProvider {
    /// Outputs for the engine, secret properties marked when the engine accepts that.
    fn outputs(&self, kind: Kind, props: Props) -> Struct {
        let accept = self.accept_secrets.load(Ordering::Relaxed);
        let secret: Vec<&'static str> =
            kind.props().iter().filter(|p| p.secret).map(|p| p.name).collect();
        plain_object_to_struct(props, |k| accept && secret.contains(&k))
    }

    /// The connections Configure set up, or (for a host that calls without configuring) ones
    /// from the environment alone.
    async fn connections(&self) -> Result<Arc<Connections>, Status> {
        if let Some(c) = self.connections.read().await.as_ref() {
            return Ok(c.clone());
        }
        let settings = connection::settings(&Map::new(), |k| std::env::var(k).ok())
            .map_err(|p| Status::failed_precondition(problems_text(&p)))?;
        let c = Arc::new(Connections::new(settings));
        *self.connections.write().await = Some(c.clone());
        Ok(c)
    }
}

fn problems_text(problems: &[(String, String)]) -> String {
    problems.iter().map(|(k, m)| format!("{k}: {m}")).collect::<Vec<_>>().join("; ")
}

/// The provider configuration a Configure request carries: `args` when the engine sends them,
/// otherwise the older `variables` map (`postgresql:config:<key>` → string).
fn configuration(r: &ConfigureRequest) -> Result<Props, Status> {
    if r.args.is_some() {
        return plain(r.args.clone());
    }
    Ok(r.variables
        .iter()
        .map(|(k, v)| {
            let key = k.rsplit(':').next().unwrap_or(k).to_string();
            (
                key,
                serde_json::from_str::<Value>(v)
                    .ok()
                    .filter(|j| !j.is_object() && !j.is_array())
                    .unwrap_or_else(|| Value::String(v.clone())),
            )
        })
        .collect())
}

type ListStream =
    std::pin::Pin<Box<dyn tokio_stream::Stream<Item = Result<ListResponse, Status>> + Send>>;

#[tonic::async_trait]
impl ResourceProvider for PostgresProvider {
    async fn handshake(
        &self,
        _: Request<ProviderHandshakeRequest>,
    ) -> Result<Response<ProviderHandshakeResponse>, Status> {
        Ok(Response::new(ProviderHandshakeResponse { accept_secrets: true, ..Default::default() }))
    }

    async fn get_plugin_info(&self, _: Request<()>) -> Result<Response<PluginInfo>, Status> {
        Ok(Response::new(PluginInfo { version: VERSION.into() }))
    }

    async fn get_schema(
        &self,
        _: Request<GetSchemaRequest>,
    ) -> Result<Response<GetSchemaResponse>, Status> {
        Ok(Response::new(GetSchemaResponse { schema: schema::schema(VERSION) }))
    }

    /// The Terraform mapping (key `terraform`), for reading `cyrilgdn/postgresql` state;
    /// nothing for other keys, as the protocol asks.
    async fn get_mapping(
        &self,
        r: Request<GetMappingRequest>,
    ) -> Result<Response<GetMappingResponse>, Status> {
        let r = r.into_inner();
        let data = if r.key == "terraform" {
            mapping::terraform_mapping(VERSION, &r.provider)
        } else {
            Vec::new()
        };
        let provider =
            if data.is_empty() { String::new() } else { mapping::TERRAFORM_PROVIDER.to_string() };
        Ok(Response::new(GetMappingResponse { provider, data }))
    }

    async fn get_mappings(
        &self,
        r: Request<GetMappingsRequest>,
    ) -> Result<Response<GetMappingsResponse>, Status> {
        let providers = if r.into_inner().key == "terraform" {
            vec![mapping::TERRAFORM_PROVIDER.to_string()]
        } else {
            Vec::new()
        };
        Ok(Response::new(GetMappingsResponse { providers }))
    }

    async fn check_config(
        &self,
        r: Request<CheckRequest>,
    ) -> Result<Response<CheckResponse>, Status> {
        let r = r.into_inner();
        let news = plain(r.news.clone())?;
        let failures = match connection::settings(&news, |k| std::env::var(k).ok()) {
            Ok(_) => Vec::new(),
            Err(problems) => problems
                .into_iter()
                .map(|(property, reason)| CheckFailure { property, reason })
                .collect(),
        };
        Ok(Response::new(CheckResponse { inputs: r.news, failures }))
    }

    async fn diff_config(&self, r: Request<DiffRequest>) -> Result<Response<DiffResponse>, Status> {
        let r = r.into_inner();
        let (olds, news) = (plain(r.old_inputs.or(r.olds))?, plain(r.news)?);
        let changed: Vec<String> = olds
            .keys()
            .chain(news.keys())
            .filter(|k| olds.get(*k) != news.get(*k))
            .cloned()
            .collect::<std::collections::BTreeSet<_>>()
            .into_iter()
            .collect();
        Ok(Response::new(DiffResponse {
            changes: if changed.is_empty() { DiffChanges::DiffNone } else { DiffChanges::DiffSome }
                as i32,
            diffs: changed,
            ..Default::default()
        }))
    }

    async fn configure(
        &self,
        r: Request<ConfigureRequest>,
    ) -> Result<Response<ConfigureResponse>, Status> {
        let r = r.into_inner();
        self.accept_secrets.store(r.accept_secrets, Ordering::Relaxed);
        let config = configuration(&r)?;
        let settings = connection::settings(&config, |k| std::env::var(k).ok())
            .map_err(|p| Status::invalid_argument(problems_text(&p)))?;
        *self.connections.write().await = Some(Arc::new(Connections::new(settings)));
        Ok(Response::new(ConfigureResponse {
            accept_secrets: true,
            supports_preview: true,
            ..Default::default()
        }))
    }

    async fn check(&self, r: Request<CheckRequest>) -> Result<Response<CheckResponse>, Status> {
        let r = r.into_inner();
        let kind = kind_of(&r.r#type)?;
        let (inputs, failures) = model::check(kind, urn_name(&r.urn), &plain(r.news)?);
        Ok(Response::new(CheckResponse {
            inputs: Some(self.outputs(kind, inputs)),
            failures: failures
                .into_iter()
                .map(|(property, reason)| CheckFailure { property, reason })
                .collect(),
        }))
    }

    async fn diff(&self, r: Request<DiffRequest>) -> Result<Response<DiffResponse>, Status> {
        let r = r.into_inner();
        let kind = kind_of(&r.r#type)?;
        let changes = model::diff(kind, &plain(r.olds)?, &plain(r.news)?);
        let diffs: Vec<String> = changes.iter().map(|c| c.name.to_string()).collect();
        let replaces: Vec<String> =
            changes.iter().filter(|c| c.replaces).map(|c| c.name.to_string()).collect();
        let detailed = changes
            .iter()
            .map(|c| {
                (
                    c.name.to_string(),
                    PropertyDiff {
                        kind: if c.replaces { DiffKind::UpdateReplace } else { DiffKind::Update }
                            as i32,
                        input_diff: true,
                    },
                )
            })
            .collect();
        Ok(Response::new(DiffResponse {
            changes: if diffs.is_empty() { DiffChanges::DiffNone } else { DiffChanges::DiffSome }
                as i32,
            replaces,
            diffs,
            detailed_diff: detailed,
            has_detailed_diff: true,
            ..Default::default()
        }))
    }

    async fn read(&self, r: Request<ReadRequest>) -> Result<Response<ReadResponse>, Status> {
        let r = r.into_inner();
        let kind = kind_of(if r.r#type.is_empty() { urn_type(&r.urn) } else { &r.r#type })?;
        let state = plain(r.properties)?;
        let old_inputs = plain(r.inputs)?;
        let conns = self.connections().await?;
        let Some(outputs) = catalog::read(&conns, kind, &r.id, &state).await.map_err(failed)?
        else {
            // Not found: an empty ID, as the protocol asks.
            return Ok(Response::new(ReadResponse::default()));
        };
        let id = outputs.get("id").and_then(Value::as_str).unwrap_or(&r.id).to_string();
        // An import gets the inputs the outputs imply; a refresh keeps the program's inputs.
        let inputs =
            if old_inputs.is_empty() { model::import_inputs(kind, &outputs) } else { old_inputs };
        Ok(Response::new(ReadResponse {
            id,
            properties: Some(self.outputs(kind, outputs)),
            inputs: Some(self.outputs(kind, inputs)),
            ..Default::default()
        }))
    }

    async fn create(&self, r: Request<CreateRequest>) -> Result<Response<CreateResponse>, Status> {
        let r = r.into_inner();
        let kind = kind_of(if r.r#type.is_empty() { urn_type(&r.urn) } else { &r.r#type })?;
        let inputs = plain(r.properties)?;
        if r.preview {
            return Ok(Response::new(CreateResponse {
                id: String::new(),
                properties: Some(self.outputs(kind, inputs)),
                ..Default::default()
            }));
        }
        let conns = self.connections().await?;
        let id = catalog::create(&conns, kind, &inputs).await.map_err(failed)?;
        let outputs = catalog::read(&conns, kind, &id, &inputs)
            .await
            .map_err(failed)?
            .ok_or_else(|| failed(format!("`{id}` was created but cannot be read back")))?;
        Ok(Response::new(CreateResponse {
            id,
            properties: Some(self.outputs(kind, keep_settings(kind, outputs, &inputs))),
            ..Default::default()
        }))
    }

    async fn update(&self, r: Request<UpdateRequest>) -> Result<Response<UpdateResponse>, Status> {
        let r = r.into_inner();
        let kind = kind_of(if r.r#type.is_empty() { urn_type(&r.urn) } else { &r.r#type })?;
        let (olds, news) = (plain(r.olds)?, plain(r.news)?);
        if r.preview {
            return Ok(Response::new(UpdateResponse {
                properties: Some(self.outputs(kind, news)),
                ..Default::default()
            }));
        }
        let conns = self.connections().await?;
        let id = catalog::update(&conns, kind, &r.id, &olds, &news).await.map_err(failed)?;
        let outputs = catalog::read(&conns, kind, &id, &news)
            .await
            .map_err(failed)?
            .ok_or_else(|| failed(format!("`{id}` was changed but cannot be read back")))?;
        Ok(Response::new(UpdateResponse {
            properties: Some(self.outputs(kind, keep_settings(kind, outputs, &news))),
            ..Default::default()
        }))
    }

    async fn delete(&self, r: Request<DeleteRequest>) -> Result<Response<()>, Status> {
        let r = r.into_inner();
        let kind = kind_of(if r.r#type.is_empty() { urn_type(&r.urn) } else { &r.r#type })?;
        let olds = plain(r.properties)?;
        let conns = self.connections().await?;
        catalog::delete(&conns, kind, &r.id, &olds).await.map_err(failed)?;
        Ok(Response::new(()))
    }

    async fn list(&self, r: Request<ListRequest>) -> Result<Response<ListStream>, Status> {
        let r = r.into_inner();
        let kind = kind_of(&r.token)?;
        let query = plain(r.query)?;
        for key in query.keys() {
            if key != "namePrefix"
                && !(key == "database" && matches!(kind, Kind::Schema | Kind::Extension))
            {
                return Err(Status::invalid_argument(format!(
                    "`{key}` is not a list filter of {} (see its schema's listInputs)",
                    kind.token()
                )));
            }
        }
        let prefix = query.get("namePrefix").and_then(Value::as_str).unwrap_or("").to_string();
        let database = query.get("database").and_then(Value::as_str).map(str::to_string);
        let conns = self.connections().await?;
        let all =
            catalog::list(&conns, kind, &prefix, database.as_deref()).await.map_err(failed)?;
        // Keyset paging: the continuation token is the last ID sent; results are in ID order.
        let start = if r.continuation_token.is_empty() {
            0
        } else {
            all.partition_point(|l| l.id.as_str() <= r.continuation_token.as_str())
        };
        let rest = &all[start..];
        let limit = if r.limit > 0 { r.limit as usize } else { usize::MAX };
        let page = if r.page_size > 0 { (r.page_size as usize).min(limit) } else { limit };
        let sent: Vec<catalog::Listed> = rest.iter().take(page).cloned().collect();
        let more = rest.len() > sent.len() && sent.len() < limit;
        let mut responses: Vec<Result<ListResponse, Status>> = sent
            .iter()
            .map(|l| {
                Ok(ListResponse {
                    response: Some(list_response::Response::Result(list_response::Result {
                        id: l.id.clone(),
                        name: l.name.clone(),
                    })),
                })
            })
            .collect();
        if more {
            if let Some(last) = sent.last() {
                responses.push(Ok(ListResponse {
                    response: Some(list_response::Response::Continuation(
                        list_response::Continuation { continuation_token: last.id.clone() },
                    )),
                }));
            }
        }
        Ok(Response::new(Box::pin(tokio_stream::iter(responses))))
    }
}

/// Settings that live only in state (never on the server) carried over from the inputs, as the
/// Terraform provider keeps them in its state.
fn keep_settings(kind: Kind, mut outputs: Props, inputs: &Props) -> Props {
    let kept: &[&str] = match kind {
        Kind::Role => &["skipDropRole", "skipReassignOwned"],
        Kind::Database => &["template", "alterObjectOwnership"],
        Kind::Schema => &["ifNotExists", "dropCascade"],
        Kind::Extension => &["createCascade", "dropCascade"],
    };
    for k in kept {
        if let Some(v) = inputs.get(*k) {
            outputs.insert(k.to_string(), v.clone());
        }
    }
    outputs
}

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    if std::env::args().any(|a| a == "--version") {
        println!("{VERSION}");
        return Ok(());
    }
    let listener = tokio::net::TcpListener::bind(("127.0.0.1", 0)).await?;
    // The port on the first line of stdout is how the engine finds this plugin.
    println!("{}", listener.local_addr()?.port());
    tonic::transport::Server::builder()
        .add_service(ResourceProviderServer::new(PostgresProvider::default()))
        .serve_with_incoming(tokio_stream::wrappers::TcpListenerStream::new(listener))
        .await?;
    Ok(())
}

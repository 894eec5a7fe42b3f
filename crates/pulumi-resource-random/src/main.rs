//! `pulumi-resource-random`: Ferry's provider plugin for Pulumi's `random` package. It speaks
//! `pulumirpc.ResourceProvider` like any Pulumi plugin: started with the engine's address as its
//! argument, it serves on a loopback port and prints that port on its first line.

mod logic;
mod mapping;
mod schema;

use std::sync::atomic::{AtomicBool, Ordering};

use ferry_property::wire::{json_object_to_struct, plain_object_to_struct, struct_to_plain_object};
use ferry_rpc::prost_types::Struct;
use ferry_rpc::pulumirpc::diff_response::DiffChanges;
use ferry_rpc::pulumirpc::property_diff::Kind as DiffKind;
use ferry_rpc::pulumirpc::resource_provider_server::{ResourceProvider, ResourceProviderServer};
use ferry_rpc::pulumirpc::*;
use tonic::{Request, Response, Status};

use logic::Props;

/// The @pulumi/random release this plugin stands in for (the crate's version says the same).
const VERSION: &str = env!("CARGO_PKG_VERSION");

#[derive(Default)]
struct RandomProvider {
    /// Whether the engine takes secrets marked as such (it says so in Configure).
    accept_secrets: AtomicBool,
}

/// The properties of a request, with every secret unwrapped to its value.
fn plain(s: Option<Struct>) -> Result<Props, Status> {
    struct_to_plain_object(&s.unwrap_or_default())
        .map_err(|e| Status::invalid_argument(e.to_string()))
}

impl RandomProvider {
    /// Outputs for the engine: secret properties marked, when the engine accepts that.
    fn outputs(&self, token: &str, props: Props) -> Struct {
        let accept = self.accept_secrets.load(Ordering::Relaxed);
        plain_object_to_struct(props, |k| accept && logic::is_secret_output(token, k))
    }
}

#[tonic::async_trait]
impl ResourceProvider for RandomProvider {
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

    /// The Terraform mapping (key `terraform`), for reading `hashicorp/random` state; nothing
    /// for other keys, as the protocol asks.
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
        Ok(Response::new(CheckResponse { inputs: r.into_inner().news, failures: Vec::new() }))
    }

    async fn diff_config(&self, _: Request<DiffRequest>) -> Result<Response<DiffResponse>, Status> {
        Ok(Response::new(DiffResponse {
            changes: DiffChanges::DiffNone as i32,
            ..Default::default()
        }))
    }

    async fn configure(
        &self,
        r: Request<ConfigureRequest>,
    ) -> Result<Response<ConfigureResponse>, Status> {
        self.accept_secrets.store(r.into_inner().accept_secrets, Ordering::Relaxed);
        Ok(Response::new(ConfigureResponse {
            accept_secrets: true,
            supports_preview: true,
            ..Default::default()
        }))
    }

    async fn check(&self, r: Request<CheckRequest>) -> Result<Response<CheckResponse>, Status> {
        let r = r.into_inner();
        let (inputs, failures) =
            logic::check(&r.r#type, &plain(r.news)?).map_err(Status::invalid_argument)?;
        Ok(Response::new(CheckResponse {
            inputs: Some(json_object_to_struct(inputs)),
            failures: failures
                .into_iter()
                .map(|(property, reason)| CheckFailure { property, reason })
                .collect(),
        }))
    }

    async fn diff(&self, r: Request<DiffRequest>) -> Result<Response<DiffResponse>, Status> {
        let r = r.into_inner();
        let olds = if r.old_inputs.is_some() { plain(r.old_inputs)? } else { plain(r.olds)? };
        let changed = logic::diff(&r.r#type, &olds, &plain(r.news)?);
        let detailed = changed
            .iter()
            .map(|k| {
                (k.clone(), PropertyDiff { kind: DiffKind::UpdateReplace as i32, input_diff: true })
            })
            .collect();
        Ok(Response::new(DiffResponse {
            changes: if changed.is_empty() { DiffChanges::DiffNone } else { DiffChanges::DiffSome }
                as i32,
            replaces: changed.clone(),
            diffs: changed,
            detailed_diff: detailed,
            has_detailed_diff: true,
            ..Default::default()
        }))
    }

    async fn read(&self, r: Request<ReadRequest>) -> Result<Response<ReadResponse>, Status> {
        let r = r.into_inner();
        let existing = plain(r.properties.clone())?;
        if !existing.is_empty() {
            // A refresh: random values never drift.
            let inputs = plain(r.inputs)?;
            return Ok(Response::new(ReadResponse {
                id: r.id,
                properties: Some(self.outputs(&r.r#type, existing)),
                inputs: Some(json_object_to_struct(inputs)),
                ..Default::default()
            }));
        }
        let (id, inputs, outputs) =
            logic::import(&r.r#type, &r.id).map_err(Status::invalid_argument)?;
        Ok(Response::new(ReadResponse {
            id,
            properties: Some(self.outputs(&r.r#type, outputs)),
            inputs: Some(json_object_to_struct(inputs)),
            ..Default::default()
        }))
    }

    async fn create(&self, r: Request<CreateRequest>) -> Result<Response<CreateResponse>, Status> {
        let r = r.into_inner();
        let token = if r.r#type.is_empty() {
            r.urn.rsplit("::").nth(1).and_then(|q| q.rsplit('$').next()).unwrap_or("").to_string()
        } else {
            r.r#type
        };
        let inputs = plain(r.properties)?;
        let (id, outputs) = if r.preview {
            (
                String::new(),
                logic::preview_outputs(&token, &inputs).map_err(Status::invalid_argument)?,
            )
        } else {
            logic::create(&token, &inputs).map_err(Status::invalid_argument)?
        };
        Ok(Response::new(CreateResponse {
            id,
            properties: Some(self.outputs(&token, outputs)),
            ..Default::default()
        }))
    }

    async fn update(&self, _: Request<UpdateRequest>) -> Result<Response<UpdateResponse>, Status> {
        Err(Status::failed_precondition(
            "random resources are never updated in place: every change replaces them",
        ))
    }

    async fn delete(&self, _: Request<DeleteRequest>) -> Result<Response<()>, Status> {
        Ok(Response::new(()))
    }
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
        .add_service(ResourceProviderServer::new(RandomProvider::default()))
        .serve_with_incoming(tokio_stream::wrappers::TcpListenerStream::new(listener))
        .await?;
    Ok(())
}

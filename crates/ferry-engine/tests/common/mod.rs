//! A scriptable provider for engine tests, served over tonic's in-memory transport so every
//! call crosses the real protocol. Its behaviour comes from a scenario's `provider` answers,
//! as Pulumi's test providers take functions for each method:
//! - `reads`: ID → `{inputs, outputs, id?}` (missing: not found);
//! - `defaults`: property → value that `Check` fills in when the inputs leave it out;
//! - `checkFailures`: property → reason;
//! - `replaceOnChanges`: properties whose change forces replacement;
//! - `deleteBeforeReplace`: replacements must delete first;
//! - `noDiff`: `Diff` is unimplemented (the engine compares);
//! - `schema`: the package schema (else a generic one).
//!
//! Create gives `<name>-id` and adds `result: "<name>-result"` to the outputs. Every mutating
//! call is logged.
#![allow(dead_code)]

use std::sync::{Arc, Mutex};

use ferry_engine::provider::{GrpcProvider, Provider};
use ferry_property::json::{decode_map, EncodeOptions};
use ferry_property::wire::{from_struct, to_struct};
use ferry_property::{PropertyMap, PropertyValue};
use ferry_rpc::pulumirpc::resource_provider_server::{ResourceProvider, ResourceProviderServer};
use ferry_rpc::pulumirpc::{
    diff_response::DiffChanges, property_diff::Kind, CheckFailure, CheckRequest, CheckResponse,
    CreateRequest, CreateResponse, DeleteRequest, DiffRequest, DiffResponse, GetSchemaRequest,
    GetSchemaResponse, PropertyDiff, ReadRequest, ReadResponse, UpdateRequest, UpdateResponse,
};
use serde_json::{json, Value};
use tokio_stream::StreamExt;
use tonic::{Request, Response, Status};

pub struct ScriptedProvider {
    pub answers: Value,
    pub log: Arc<Mutex<Vec<String>>>,
}

fn props(v: &Value) -> ferry_rpc::prost_types::Struct {
    let map =
        decode_map(&v.as_object().cloned().unwrap_or_default(), "", &Default::default()).unwrap();
    to_struct(&map, &EncodeOptions::wire())
}

fn name_of(urn: &str) -> String {
    urn.rsplit("::").next().unwrap_or("").to_string()
}

pub fn generic_schema() -> Value {
    let props = json!({"name": {"type": "string"}, "size": {"type": "integer"}, "color": {"type": "string"}, "tags": {"type": "object"},
        "input": {"type": "string"}, "immutable": {"type": "string"}, "enabled": {"type": "boolean"}, "note": {"type": "string"}});
    json!({"name": "test", "resources": {
        "test:index:Thing": {"inputProperties": props, "properties": props},
        "test:index:Other": {"inputProperties": props, "properties": props},
        "test:storage/bucket:Bucket": {"inputProperties": props, "properties": props}
    }, "config": {"variables": {"region": {"type": "string"}}}})
}

impl ScriptedProvider {
    fn record(&self, what: String) {
        self.log.lock().unwrap().push(what);
    }
}

#[tonic::async_trait]
impl ResourceProvider for ScriptedProvider {
    async fn get_schema(
        &self,
        _: Request<GetSchemaRequest>,
    ) -> Result<Response<GetSchemaResponse>, Status> {
        let schema = if self.answers["schema"].is_null() {
            generic_schema()
        } else {
            self.answers["schema"].clone()
        };
        Ok(Response::new(GetSchemaResponse { schema: schema.to_string() }))
    }

    async fn read(&self, request: Request<ReadRequest>) -> Result<Response<ReadResponse>, Status> {
        let r = request.into_inner();
        let answer = &self.answers["reads"][&r.id];
        if answer.is_null() {
            return Ok(Response::new(ReadResponse::default()));
        }
        if let Some(message) = answer.get("error").and_then(Value::as_str) {
            return Err(Status::unavailable(message.to_string()));
        }
        Ok(Response::new(ReadResponse {
            id: answer.get("id").and_then(Value::as_str).unwrap_or(&r.id).to_string(),
            inputs: answer.get("inputs").map(props),
            properties: Some(props(
                answer.get("outputs").or(answer.get("inputs")).unwrap_or(&json!({})),
            )),
            ..Default::default()
        }))
    }

    async fn check(
        &self,
        request: Request<CheckRequest>,
    ) -> Result<Response<CheckResponse>, Status> {
        let r = request.into_inner();
        let mut news = r.news.unwrap_or_default();
        if let Some(defaults) = self.answers["defaults"].as_object() {
            for (k, v) in defaults {
                if !news.fields.contains_key(k) {
                    let s = props(&json!({k: v}));
                    news.fields.extend(s.fields);
                }
            }
        }
        let failures = news
            .fields
            .keys()
            .filter_map(|k| {
                self.answers["checkFailures"][k]
                    .as_str()
                    .map(|reason| CheckFailure { property: k.clone(), reason: reason.into() })
            })
            .collect();
        Ok(Response::new(CheckResponse { inputs: Some(news), failures }))
    }

    async fn diff(&self, request: Request<DiffRequest>) -> Result<Response<DiffResponse>, Status> {
        if self.answers["noDiff"] == json!(true) {
            return Err(Status::unimplemented("no Diff"));
        }
        let r = request.into_inner();
        let olds = from_struct(&r.old_inputs.or(r.olds).unwrap_or_default())
            .map_err(|e| Status::invalid_argument(e.to_string()))?;
        let news = from_struct(&r.news.unwrap_or_default())
            .map_err(|e| Status::invalid_argument(e.to_string()))?;
        let replace_on: Vec<&str> = self.answers["replaceOnChanges"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(Value::as_str)
            .collect();
        let plain = |v: Option<&PropertyValue>| match v {
            Some(PropertyValue::Secret(inner)) => Some((**inner).clone()),
            other => other.cloned(),
        };
        let mut keys: Vec<&String> = olds.keys().chain(news.keys()).collect();
        keys.sort();
        keys.dedup();
        let mut diffs = Vec::new();
        let mut replaces = Vec::new();
        let mut detailed = std::collections::HashMap::new();
        for k in keys {
            if r.ignore_changes.iter().any(|i| i == k) {
                continue;
            }
            let (a, b) = (plain(olds.get(k)), plain(news.get(k)));
            let unknown = b.as_ref().is_some_and(|v| v.contains_unknowns());
            if a == b && !unknown {
                continue;
            }
            let replace = replace_on.contains(&k.as_str());
            let kind = match (&a, &b, replace) {
                (None, _, false) => Kind::Add,
                (None, _, true) => Kind::AddReplace,
                (_, None, false) => Kind::Delete,
                (_, None, true) => Kind::DeleteReplace,
                (_, _, false) => Kind::Update,
                (_, _, true) => Kind::UpdateReplace,
            };
            diffs.push(k.clone());
            if replace {
                replaces.push(k.clone());
            }
            detailed.insert(k.clone(), PropertyDiff { kind: kind as i32, input_diff: true });
        }
        Ok(Response::new(DiffResponse {
            changes: if diffs.is_empty() { DiffChanges::DiffNone } else { DiffChanges::DiffSome }
                as i32,
            delete_before_replace: !replaces.is_empty()
                && self.answers["deleteBeforeReplace"] == json!(true),
            replaces,
            diffs,
            detailed_diff: detailed,
            has_detailed_diff: true,
            ..Default::default()
        }))
    }

    async fn create(
        &self,
        request: Request<CreateRequest>,
    ) -> Result<Response<CreateResponse>, Status> {
        let r = request.into_inner();
        let name = name_of(&r.urn);
        if self.answers["failCreate"].as_str() == Some(name.as_str()) {
            self.record(format!("create {name} (failed)"));
            return Err(Status::internal(format!("cannot create {name}")));
        }
        self.record(format!("create {name}"));
        let mut outputs: PropertyMap = from_struct(&r.properties.unwrap_or_default()).unwrap();
        outputs.insert("result".into(), PropertyValue::String(format!("{name}-result")));
        Ok(Response::new(CreateResponse {
            id: format!("{name}-id"),
            properties: Some(to_struct(&outputs, &EncodeOptions::wire())),
            ..Default::default()
        }))
    }

    async fn update(
        &self,
        request: Request<UpdateRequest>,
    ) -> Result<Response<UpdateResponse>, Status> {
        let r = request.into_inner();
        let name = name_of(&r.urn);
        self.record(format!("update {name}"));
        let mut outputs: PropertyMap = from_struct(&r.news.unwrap_or_default()).unwrap();
        outputs.insert("result".into(), PropertyValue::String(format!("{name}-result")));
        Ok(Response::new(UpdateResponse {
            properties: Some(to_struct(&outputs, &EncodeOptions::wire())),
            ..Default::default()
        }))
    }

    async fn delete(&self, request: Request<DeleteRequest>) -> Result<Response<()>, Status> {
        let r = request.into_inner();
        self.record(format!("delete {}", name_of(&r.urn)));
        Ok(Response::new(()))
    }
}

/// Serves `provider` in memory and connects to it.
pub async fn in_memory<P: ResourceProvider>(package: &str, provider: P) -> Arc<dyn Provider> {
    let (client_io, server_io) = tokio::io::duplex(1 << 20);
    tokio::spawn(async move {
        let incoming =
            tokio_stream::once(Ok::<_, std::io::Error>(server_io)).chain(tokio_stream::pending());
        let _ = tonic::transport::Server::builder()
            .add_service(ResourceProviderServer::new(provider))
            .serve_with_incoming(incoming)
            .await;
    });
    let mut client_io = Some(client_io);
    let channel = tonic::transport::Endpoint::try_from("http://in-memory")
        .unwrap()
        .connect_with_connector(tower::service_fn(move |_| {
            let io = client_io.take();
            async move {
                io.map(hyper_util::rt::TokioIo::new)
                    .ok_or_else(|| std::io::Error::other("one connection only"))
            }
        }))
        .await
        .unwrap();
    Arc::new(GrpcProvider::new(package, channel))
}

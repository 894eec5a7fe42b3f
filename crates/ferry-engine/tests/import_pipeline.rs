//! Data-driven import previews: each `tests/import/*.json` holds a stack, its starting state,
//! an import spec and a fake provider's answers; the snapshot is the preview. The fake provider
//! is a real gRPC server on tonic's in-memory transport.

mod common;

use std::collections::HashMap;

use ferry_engine::deploy::StepOp;
use ferry_engine::import::{
    preview_import, ImportOptions, ImportStrategy, SpecPreview, StackContext,
};
use ferry_engine::import_spec::parse_import_spec;
use ferry_engine::provider::FixedProviders;
use ferry_property::json::EncodeOptions;
use ferry_property::wire::to_struct;
use ferry_rpc::pulumirpc::resource_provider_server::ResourceProvider;
use ferry_rpc::pulumirpc::{
    CheckFailure, CheckRequest, CheckResponse, DiffRequest, DiffResponse, GetSchemaRequest,
    GetSchemaResponse, ReadRequest, ReadResponse,
};
use serde_json::Value;
use tonic::{Request, Response, Status};

/// Answers from the scenario: `reads` by ID, `checkFailures` by property name.
struct FakeProvider {
    answers: Value,
}

fn props(v: &Value) -> ferry_rpc::prost_types::Struct {
    let map =
        ferry_property::json::decode_map(v.as_object().unwrap(), "", &Default::default()).unwrap();
    to_struct(&map, &EncodeOptions::wire())
}

#[tonic::async_trait]
impl ResourceProvider for FakeProvider {
    async fn read(&self, request: Request<ReadRequest>) -> Result<Response<ReadResponse>, Status> {
        let r = request.into_inner();
        let answer = &self.answers["reads"][&r.id];
        if answer.is_null() || answer == "missing" {
            return Ok(Response::new(ReadResponse::default()));
        }
        if let Some(message) = answer.get("error").and_then(Value::as_str) {
            return Err(Status::unavailable(message.to_string()));
        }
        // `rawOutputs` go on the wire as they are, even when they are not valid property values.
        let raw =
            |v: &Value| ferry_property::wire::json_object_to_struct(v.as_object().unwrap().clone());
        Ok(Response::new(ReadResponse {
            id: answer.get("id").and_then(Value::as_str).unwrap_or(&r.id).to_string(),
            inputs: answer.get("inputs").map(props),
            properties: answer
                .get("outputs")
                .map(props)
                .or_else(|| answer.get("rawOutputs").map(raw)),
            ..Default::default()
        }))
    }

    async fn get_schema(
        &self,
        _: Request<GetSchemaRequest>,
    ) -> Result<Response<GetSchemaResponse>, Status> {
        Ok(Response::new(GetSchemaResponse { schema: self.answers["schema"].to_string() }))
    }

    /// Answers `diffsById[id]`, else `diffs` (property names), for every resource.
    async fn diff(&self, request: Request<DiffRequest>) -> Result<Response<DiffResponse>, Status> {
        let id = request.into_inner().id;
        let answer = self.answers["diffsById"].get(&id).unwrap_or(&self.answers["diffs"]);
        let diffs: Vec<String> = answer
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(|d| d.as_str().map(String::from))
            .collect();
        Ok(Response::new(DiffResponse {
            changes: if diffs.is_empty() { 1 } else { 2 },
            diffs,
            ..Default::default()
        }))
    }

    async fn check(
        &self,
        request: Request<CheckRequest>,
    ) -> Result<Response<CheckResponse>, Status> {
        let r = request.into_inner();
        let news = r.news.unwrap_or_default();
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
}

#[tokio::test]
async fn scenarios() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/import");
    let mut files: Vec<_> = std::fs::read_dir(&dir).unwrap().map(|e| e.unwrap().path()).collect();
    files.sort();
    assert!(!files.is_empty());
    for path in files {
        let scenario: Value =
            serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
        let name = path.file_stem().unwrap().to_string_lossy().to_string();
        let spec = parse_import_spec(&scenario["spec"].to_string())
            .unwrap_or_else(|e| panic!("{name}: {e}"));
        let state =
            ferry_state::load_state(scenario["state"].to_string().as_bytes(), Default::default())
                .unwrap_or_else(|e| panic!("{name}: {e}"));
        let mut providers = HashMap::new();
        for (package, answers) in scenario["providers"].as_object().unwrap() {
            providers.insert(
                package.clone(),
                common::in_memory(package, FakeProvider { answers: answers.clone() }).await,
            );
        }
        let parts: Vec<&str> = scenario["stack"].as_str().unwrap().split('/').collect();
        let ctx =
            StackContext { stack: parts[2], project: parts[1], deployment: &state.deployment };
        let strategy = match scenario["strategy"].as_str() {
            Some("minimal") => ImportStrategy::Minimal,
            _ => ImportStrategy::Read,
        };
        let deployed = preview_import(
            &spec,
            &ctx,
            &FixedProviders(providers),
            ImportOptions { concurrency: 4, strategy, ..Default::default() },
        )
        .await;
        let preview = SpecPreview::from_plan(&deployed.plan);
        insta::assert_json_snapshot!(name.clone(), preview);
        // The property the snapshot protects: one row per entry, in the spec's order; a ready
        // entry is an import step whose state a commit writes, anything else writes nothing new.
        assert_eq!(
            preview.resources.iter().map(|r| r.index).collect::<Vec<_>>(),
            (0..spec.file.resources.len()).collect::<Vec<_>>(),
            "{name}"
        );
        for r in &preview.resources {
            let in_state = deployed.states.iter().any(|s| s.urn == r.urn && !s.verbatim);
            assert_eq!(
                in_state,
                r.status.is_ready(),
                "{name}: {} ({}) in the new state: {in_state}",
                r.name,
                r.status
            );
            if r.status.is_ready() && !r.component && !r.type_.starts_with("pulumi:providers:") {
                let step = deployed.plan.steps.iter().find(|s| s.urn == r.urn).unwrap();
                assert_eq!(step.op, StepOp::Import, "{name}: {}", r.name);
            }
        }
        assert!(
            !deployed.plan.needs_execution(),
            "{name}: a spec's plan never changes anything outside the stack"
        );
        // Every resource is in the next state once, whatever happened to the entry naming it.
        let base = state.deployment.resources();
        let mut urns: Vec<&str> = deployed.states.iter().map(|s| s.urn_in(base)).collect();
        urns.sort();
        let before = urns.len();
        urns.dedup();
        assert_eq!(urns.len(), before, "{name}: a URN is written twice");
        // The stack's own resources the spec does not name are written back exactly as stored.
        let claimed: Vec<&str> = deployed.plan.steps.iter().map(|s| s.urn.as_str()).collect();
        let untouched = state
            .deployment
            .resources()
            .iter()
            .filter(|r| !claimed.contains(&r.urn.as_str()))
            .count();
        assert_eq!(preview.untouched, untouched, "{name}");
        // ...and carried by their position alone, not copied: a plan over a big stack costs
        // what it changes.
        let by_position = deployed
            .states
            .iter()
            .filter(|s| s.base.is_some_and(|i| **s == ferry_engine::deploy::ResourceState::kept(i)))
            .count();
        assert!(
            by_position >= untouched,
            "{name}: {by_position} states kept by position, {untouched} untouched"
        );
        // A read-strategy entry whose Diff reports a change is a warning, never a failure.
        for r in
            preview.resources.iter().filter(|r| r.warnings.iter().any(|w| w.starts_with("Diff:")))
        {
            assert_eq!(
                r.status,
                ferry_engine::deploy::ImportStatus::ReadyWithWarnings,
                "{name}: {}",
                r.name
            );
        }
    }
}

/// A provider whose `Read` of `rK` answers after a delay that shrinks with K, so the entries of
/// one level finish in the reverse of the spec's order; it counts the `Read`s in flight.
struct SlowFirstProvider {
    count: usize,
    in_flight: std::sync::Arc<std::sync::atomic::AtomicUsize>,
    most_in_flight: std::sync::Arc<std::sync::atomic::AtomicUsize>,
}

#[tonic::async_trait]
impl ResourceProvider for SlowFirstProvider {
    async fn read(&self, request: Request<ReadRequest>) -> Result<Response<ReadResponse>, Status> {
        use std::sync::atomic::Ordering::SeqCst;
        let r = request.into_inner();
        let k: usize = r.id.trim_start_matches('r').parse().unwrap();
        let now = self.in_flight.fetch_add(1, SeqCst) + 1;
        self.most_in_flight.fetch_max(now, SeqCst);
        tokio::time::sleep(std::time::Duration::from_millis(3 * (self.count - k) as u64)).await;
        self.in_flight.fetch_sub(1, SeqCst);
        let state = props(&serde_json::json!({ "n": k }));
        Ok(Response::new(ReadResponse {
            id: r.id,
            inputs: Some(state.clone()),
            properties: Some(state),
            ..Default::default()
        }))
    }
}

/// One level's registrations run at most the deployment's concurrency at once (each made when
/// its turn comes), and whatever order they finish in, each entry's row and state are its own,
/// in the spec's order.
#[tokio::test]
async fn a_level_registers_at_most_its_concurrency_at_once_and_answers_in_order() {
    const COUNT: usize = 24;
    let entries: Vec<Value> = (0..COUNT)
        .map(|k| serde_json::json!({ "type": "slow:index:Thing", "name": format!("thing-{k}"), "id": format!("r{k}") }))
        .collect();
    let spec = parse_import_spec(&serde_json::json!({ "resources": entries }).to_string()).unwrap();
    let state = ferry_state::load_state(br#"{"version": 3, "deployment": {}}"#, Default::default())
        .unwrap();
    let most_in_flight = std::sync::Arc::new(std::sync::atomic::AtomicUsize::new(0));
    let slow = SlowFirstProvider {
        count: COUNT,
        in_flight: Default::default(),
        most_in_flight: most_in_flight.clone(),
    };
    let providers = HashMap::from([("slow".to_string(), common::in_memory("slow", slow).await)]);
    let ctx = StackContext { stack: "dev", project: "p", deployment: &state.deployment };
    let deployed = preview_import(
        &spec,
        &ctx,
        &FixedProviders(providers),
        ImportOptions { concurrency: 4, ..Default::default() },
    )
    .await;
    let preview = SpecPreview::from_plan(&deployed.plan);
    assert_eq!(
        preview.resources.iter().map(|r| r.name.clone()).collect::<Vec<_>>(),
        (0..COUNT).map(|k| format!("thing-{k}")).collect::<Vec<_>>()
    );
    for (k, row) in preview.resources.iter().enumerate() {
        assert!(row.status.is_ready(), "thing-{k}: {}", row.status);
        let state = deployed.states.iter().find(|s| s.urn == row.urn).unwrap();
        assert_eq!(state.id.as_deref(), Some(format!("r{k}").as_str()));
        assert_eq!(state.inputs.get("n"), Some(&ferry_property::PropertyValue::Number(k as f64)));
    }
    let most = most_in_flight.load(std::sync::atomic::Ordering::SeqCst);
    assert!((1..=4).contains(&most), "{most} Reads in flight at once, with a concurrency of 4");
}

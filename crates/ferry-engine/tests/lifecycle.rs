//! Data-driven lifecycle tests: each `tests/lifecycle/<case>/` holds a YAML program
//! (`Pulumi.yaml`) and `scenario.json` (a starting state, the scripted provider's answers, the
//! mode); the snapshot is the plan's steps with their per-property diffs, the provider calls
//! made, and — in update mode — the state written and a second preview of it.

mod common;

use std::collections::{BTreeMap, HashMap};
use std::sync::{Arc, Mutex};

use ferry_engine::deploy::snapshot::{to_deployment, WriteOptions};
use ferry_engine::deploy::{
    deploy, ConfigValue, DeployContext, DeployMode, DeployOptions, Deployed, PlanScope,
    PriorComponent, PriorState, StepOp,
};
use ferry_engine::program::parse_program;
use ferry_engine::provider::FixedProviders;
use serde_json::{json, Value};

const STACK: &str = "dev";
const PROJECT: &str = "proj";

fn urn(type_: &str, name: &str, parent_type: Option<&str>) -> String {
    let qualified = match parent_type {
        Some(p) => format!("{p}${type_}"),
        None => type_.to_string(),
    };
    format!("urn:pulumi:{STACK}::{PROJECT}::{qualified}::{name}")
}

/// Expands the scenario's compact resources (`name`, `type`, `id`, `inputs`, ...) into a
/// state file with the stack's root and the default `test` provider.
fn state_file(compact: &Value) -> Value {
    let entries = compact.as_array().cloned().unwrap_or_default();
    if entries.is_empty() {
        return json!({"version": 3, "deployment": {}});
    }
    let root = urn("pulumi:pulumi:Stack", &format!("{PROJECT}-{STACK}"), None);
    let provider_urn = urn("pulumi:providers:test", "default", None);
    let mut types: HashMap<String, String> = HashMap::new();
    let mut urns: HashMap<String, String> = HashMap::new();
    let mut resources = vec![
        json!({"urn": root, "custom": false, "type": "pulumi:pulumi:Stack"}),
        json!({"urn": provider_urn, "custom": true, "id": "prov-id", "type": "pulumi:providers:test", "inputs": {}, "outputs": {}}),
    ];
    for e in &entries {
        let name = e["name"].as_str().unwrap();
        let type_ = e["type"].as_str().unwrap_or("test:index:Thing");
        let parent = e["parent"].as_str();
        let u = if e["type"].as_str().is_some_and(|t| t.starts_with("pulumi:providers:")) {
            urn(type_, name, None)
        } else {
            urn(type_, name, parent.map(|p| types[p].as_str()))
        };
        types.insert(name.to_string(), type_.to_string());
        urns.insert(name.to_string(), u.clone());
        let by_name = |v: &Value| -> Value {
            json!(v
                .as_array()
                .into_iter()
                .flatten()
                .map(|n| urns[n.as_str().unwrap()].clone())
                .collect::<Vec<_>>())
        };
        let mut r = json!({"urn": u, "custom": true, "id": e["id"], "type": type_,
            "inputs": e.get("inputs").cloned().unwrap_or(json!({})),
            "outputs": e.get("outputs").or(e.get("inputs")).cloned().unwrap_or(json!({})),
            "parent": parent.map(|p| urns[p].clone()).unwrap_or(root.clone())});
        if e["custom"] == json!(false) {
            // A component: no ID, no provider.
            r["custom"] = json!(false);
            r.as_object_mut().unwrap().remove("id");
        } else if !type_.starts_with("pulumi:providers:") {
            r["provider"] = json!(match e["provider"].as_str() {
                Some(p) => format!("{}::{}", urns[p], "explicit-prov-id"),
                None => format!("{provider_urn}::prov-id"),
            });
        }
        if let Some(d) = e.get("dependencies") {
            r["dependencies"] = by_name(d);
        }
        if let Some(pd) = e.get("propertyDependencies").and_then(Value::as_object) {
            r["propertyDependencies"] = json!(pd
                .iter()
                .map(|(k, v)| (k.clone(), by_name(v)))
                .collect::<serde_json::Map<_, _>>());
        }
        for flag in ["protect", "external", "retainOnDelete", "delete"] {
            if e[flag] == json!(true) {
                r[flag] = json!(true);
            }
        }
        if let Some(i) = e.get("importID") {
            r["importID"] = i.clone();
        }
        resources.push(r);
    }
    json!({"version": 3, "deployment": {"resources": resources}})
}

fn short(urn: &str) -> String {
    urn.rsplit("::").next().unwrap_or(urn).to_string()
}

/// The plan, compacted for reading.
fn plan_view(d: &Deployed) -> Value {
    let steps: Vec<Value> = d
        .plan
        .steps
        .iter()
        .map(|s| {
            let mut v = serde_json::to_value(s).unwrap();
            let m = v.as_object_mut().unwrap();
            m.insert("urn".into(), json!(short(&s.urn)));
            m.remove("provider");
            m.remove("line");
            m.remove("name");
            if s.type_.starts_with("pulumi:providers:") && s.op == StepOp::Create && s.id.is_some()
            {
                m.insert("id".into(), json!("<uuid>"));
            }
            v
        })
        .collect();
    let mut view = json!({"steps": steps, "errors": d.plan.errors, "outputs": d.plan.outputs, "skipped": d.plan.skipped});
    if d.plan.scope == PlanScope::Imports {
        view["untouched"] = json!(d.plan.untouched);
    }
    view
}

fn state_view(deployment: &ferry_state::Deployment) -> Value {
    json!(deployment
        .resources()
        .iter()
        .map(|r| {
            let mut v = json!({"urn": short(&r.urn), "type": r.type_, "id": r.id, "inputs": r.inputs, "outputs": r.outputs});
            for (flag, on) in [("protect", r.protect), ("external", r.external)] {
                if on == Some(true) {
                    v[flag] = json!(true);
                }
            }
            if let Some(i) = r.extra.get("importID") {
                v["importID"] = i.clone();
            }
            if r.type_.starts_with("pulumi:providers:") {
                v["id"] = json!("<uuid>");
                v.as_object_mut().unwrap().remove("outputs");
            }
            if let Some(p) = &r.provider {
                v["provider"] = json!(short(p.rsplit_once("::").map(|x| x.0).unwrap_or(p)));
            }
            v
        })
        .collect::<Vec<_>>())
}

struct Run {
    log: Arc<Mutex<Vec<String>>>,
    providers: FixedProviders,
}

async fn providers(answers: &Value) -> Run {
    let log = Arc::new(Mutex::new(Vec::new()));
    let provider = common::in_memory(
        "test",
        common::ScriptedProvider { answers: answers.clone(), log: log.clone() },
    )
    .await;
    Run { log, providers: FixedProviders(HashMap::from([("test".to_string(), provider)])) }
}

#[tokio::test]
async fn lifecycle_scenarios() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/lifecycle");
    let mut cases: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.is_dir())
        .collect();
    cases.sort();
    assert!(cases.len() >= 10, "the lifecycle cases are missing");
    for case in cases {
        let name = case.file_name().unwrap().to_string_lossy().to_string();
        let scenario: Value =
            serde_json::from_str(&std::fs::read_to_string(case.join("scenario.json")).unwrap())
                .unwrap();
        let text = std::fs::read_to_string(case.join("Pulumi.yaml")).unwrap();
        let program = match parse_program("Pulumi.yaml", &text) {
            Ok(p) => p,
            Err(e) => {
                insta::assert_json_snapshot!(name.clone(), json!({"programError": e}));
                continue;
            }
        };
        let state = ferry_state::load_state(
            state_file(&scenario["state"]).to_string().as_bytes(),
            Default::default(),
        )
        .unwrap_or_else(|e| panic!("{name}: {e}"));
        let config: BTreeMap<String, ConfigValue> =
            serde_json::from_value(scenario.get("config").cloned().unwrap_or(json!({}))).unwrap();
        let mode = if scenario["mode"] == json!("update") {
            DeployMode::Update
        } else {
            DeployMode::Preview
        };
        let mapping: Option<BTreeMap<String, String>> =
            scenario.get("mapping").map(|m| serde_json::from_value(m.clone()).unwrap());
        let run = providers(&scenario["provider"]).await;
        let ctx = DeployContext {
            organization: "org",
            project: PROJECT,
            stack: STACK,
            deployment: &state.deployment,
            config: &config,
            decrypt: None,
        };
        let scope: PlanScope =
            serde_json::from_value(scenario.get("scope").cloned().unwrap_or(json!("whole-stack")))
                .unwrap();
        // Another tool's recorded states: here only the components each places its resource in.
        let prior = scenario.get("prior").map(|p| {
            let by_name = p.as_object().unwrap().iter().map(|(name, components)| {
                let components = components
                    .as_array()
                    .unwrap()
                    .iter()
                    .map(|c| PriorComponent {
                        type_: c["type"].as_str().unwrap().into(),
                        name: c["name"].as_str().unwrap().into(),
                    })
                    .collect();
                (name.clone(), PriorState { components, ..Default::default() })
            });
            Arc::new(by_name.collect::<BTreeMap<_, _>>())
        });
        let options = DeployOptions {
            mode,
            scope,
            concurrency: 4,
            import_mapping: mapping,
            progress: None,
            import_prior: prior.clone(),
            identify: None,
        };
        let deployed = match deploy(&program, &ctx, &run.providers, &options).await {
            Ok(d) => d,
            Err(e) => {
                insta::assert_json_snapshot!(name.clone(), json!({"programError": e}));
                continue;
            }
        };
        // A resource a prior state places in components is the innermost one's child, unless
        // the program gives it a parent; each component is registered once.
        for (name, p) in prior.iter().flat_map(|p| p.iter()) {
            let Some(inner) = p.components.last() else { continue };
            let step = deployed.plan.steps.iter().find(|s| &s.name == name).unwrap();
            let declared = program.resources.iter().find(|r| r.logical_name() == name).unwrap();
            let placed = step
                .parent
                .as_deref()
                .is_some_and(|u| u.ends_with(&format!("{}::{}", inner.type_, inner.name)));
            assert_eq!(placed, declared.options.parent.is_none(), "{name}: {step:?}");
        }
        let mut components: Vec<&str> = deployed
            .plan
            .steps
            .iter()
            .filter(|s| s.type_.starts_with("terraform:module/"))
            .map(|s| s.urn.as_str())
            .collect();
        let registered = components.len();
        components.sort();
        components.dedup();
        assert_eq!(components.len(), registered, "{name}: a component registered twice");
        // Differences are explained down to the leaf: no diff row is an object whose leaves
        // have rows of their own (a provider's nested keys aside).
        for step in &deployed.plan.steps {
            let paths: Vec<&str> = step
                .diffs
                .iter()
                .filter(|d| d.program.is_some() || d.read.is_some())
                .map(|d| d.path.as_str())
                .collect();
            for p in &paths {
                let inner = paths
                    .iter()
                    .find(|q| q.starts_with(&format!("{p}.")) || q.starts_with(&format!("{p}[")));
                assert!(
                    inner.is_none(),
                    "{name}: `{p}` is listed beside its own leaf `{}`",
                    inner.unwrap()
                );
            }
        }
        let mut view = plan_view(&deployed);
        view["calls"] = json!(run.log.lock().unwrap().clone());
        if mode == DeployMode::Update {
            let encrypt = |s: &str| s.to_string();
            let next = to_deployment(
                std::borrow::Cow::Borrowed(&state.deployment),
                &deployed.states,
                &WriteOptions { now: "2026-11-23T00:00:00Z", encrypt: &encrypt },
            );
            // The written state loads as Pulumi state...
            let export = json!({"version": 3, "deployment": serde_json::to_value(&next).unwrap()});
            let reloaded =
                ferry_state::load_state(export.to_string().as_bytes(), Default::default())
                    .unwrap_or_else(|e| panic!("{name}: state written does not load: {e}"));
            view["state"] = state_view(&reloaded.deployment);
            if scope == PlanScope::Imports {
                // Every resource the program does not declare is written back field for field.
                let declared: std::collections::HashSet<&str> =
                    deployed.plan.steps.iter().map(|s| s.urn.as_str()).collect();
                let written: HashMap<&str, &ferry_state::deployment::Resource> =
                    next.resources().iter().map(|r| (r.urn.as_str(), r)).collect();
                let mut kept = 0;
                for old in state.deployment.resources().iter().filter(|r| {
                    !declared.contains(r.urn.as_str()) || r.type_ == "pulumi:pulumi:Stack"
                }) {
                    assert_eq!(
                        written.get(old.urn.as_str()),
                        Some(&old),
                        "{name}: `{}` was not kept as it was",
                        old.urn
                    );
                    kept += 1;
                }
                assert!(
                    kept > deployed.plan.untouched,
                    "{name}: the untouched resources and the root are kept"
                );
                // ...in the base's order, before what the program adds: a commit lists the
                // stack's resources as they were.
                let position: HashMap<&str, usize> =
                    next.resources().iter().enumerate().map(|(i, r)| (r.urn.as_str(), i)).collect();
                let kept_at: Vec<usize> = state
                    .deployment
                    .resources()
                    .iter()
                    .filter(|r| !declared.contains(r.urn.as_str()))
                    .filter_map(|r| position.get(r.urn.as_str()).copied())
                    .collect();
                assert!(
                    kept_at.windows(2).all(|w| w[0] < w[1]),
                    "{name}: the untouched resources are not in the base's order: {kept_at:?}"
                );
                assert!(
                    deployed
                        .plan
                        .steps
                        .iter()
                        .all(|s| !matches!(s.op, StepOp::Delete | StepOp::DeleteReplaced)),
                    "{name}: an imports-scope plan deletes nothing"
                );
                // Written in an order Pulumi accepts: every reference points backwards.
                let mut seen = std::collections::HashSet::new();
                for r in next.resources() {
                    let provider = r
                        .provider
                        .as_deref()
                        .and_then(|p| p.rsplit_once("::"))
                        .map(|(u, _)| u.to_string());
                    for d in r
                        .parent
                        .iter()
                        .cloned()
                        .chain(provider)
                        .chain(r.dependencies.clone().unwrap_or_default())
                    {
                        assert!(
                            seen.contains(&d),
                            "{name}: `{}` is written before `{d}`, which it refers to",
                            r.urn
                        );
                    }
                    seen.insert(r.urn.clone());
                }
            }
            // ...and previewing the same program against it changes nothing.
            let again = providers(&scenario["provider"]).await;
            let ctx = DeployContext { deployment: &reloaded.deployment, ..ctx };
            let second = deploy(
                &program,
                &ctx,
                &again.providers,
                &DeployOptions {
                    mode: DeployMode::Preview,
                    scope,
                    concurrency: 4,
                    import_prior: prior.clone(),
                    ..Default::default()
                },
            )
            .await
            .unwrap();
            let ops: Vec<String> =
                second.plan.steps.iter().map(|s| format!("{} {}", s.op, short(&s.urn))).collect();
            if deployed.plan.failed_steps().next().is_none() {
                assert!(
                    second.plan.steps.iter().all(|s| s.op == StepOp::Same || s.op == StepOp::Read),
                    "{name}: after the update, a preview still has changes: {ops:?}"
                );
            }
            view["previewAfter"] = json!(ops);
        }
        insta::assert_json_snapshot!(name.clone(), view);
    }
}

//! The import pipeline, as Pulumi designed it in 2022: for each entry, `Read(id)`, "not found"
//! when Read returns no resource, `Check` (whose failures are warnings, never fatal), and the
//! resource's inputs and outputs as Read returned them. The result is a [`Preview`]: a value
//! that can be shown, stored and shared. Nothing here writes to a stack.

use std::collections::{BTreeMap, HashMap};
use std::sync::Arc;

use ferry_rpc::pulumirpc::{CheckRequest, DiffRequest, ReadRequest};
use ferry_state::urn::Urn;
use ferry_state::Deployment;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use tokio::sync::Semaphore;

use crate::import_spec::{EntryRef, ImportSpec};
use crate::property::json::{encode_map, EncodeOptions, SecretEncoding};
use crate::property::wire::{from_struct, to_struct};
use crate::property::PropertyMap;
use crate::provider::{Provider, ProviderInstance, ProviderSource};

/// The stack an import goes into.
pub struct StackContext<'a> {
    pub stack: &'a str,
    pub project: &'a str,
    pub deployment: &'a Deployment,
}

#[derive(Debug, Clone)]
pub struct ImportOptions {
    /// Resources read at the same time.
    pub concurrency: usize,
    pub strategy: ImportStrategy,
    /// Told of each resource as it finishes.
    pub progress: Option<crate::progress::Progress>,
}

impl Default for ImportOptions {
    fn default() -> Self {
        ImportOptions { concurrency: 16, strategy: ImportStrategy::Read, progress: None }
    }
}

fn report(progress: &Option<crate::progress::Progress>, r: &PlannedResource) {
    if let Some(p) = progress {
        p.report(crate::progress::ProgressEvent {
            urn: r.urn.clone(),
            name: r.name.clone(),
            type_: r.type_.clone(),
            status: r.status.to_string(),
            message: r.message.clone(),
        });
    }
}

/// Which inputs an imported resource gets.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum ImportStrategy {
    /// Pulumi's 2022 design: the inputs `Read` returned (limited by `properties`).
    #[default]
    Read,
    /// The older design: only the schema's required inputs, then the values `Diff` says differ
    /// from the read state, copied back — the smallest set of inputs that shows no diff.
    Minimal,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum ImportStatus {
    Ready,
    ReadyWithWarnings,
    NotFound,
    Failed,
    /// Same URN and ID already in the stack: skipped.
    AlreadyManaged,
    /// Same URN in the stack with another ID.
    Conflict,
}

impl std::fmt::Display for ImportStatus {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            ImportStatus::Ready => "ready",
            ImportStatus::ReadyWithWarnings => "ready-with-warnings",
            ImportStatus::NotFound => "not-found",
            ImportStatus::Failed => "failed",
            ImportStatus::AlreadyManaged => "already-managed",
            ImportStatus::Conflict => "conflict",
        })
    }
}

impl ImportStatus {
    /// Whether a commit would add the resource.
    pub fn is_ready(self) -> bool {
        matches!(self, ImportStatus::Ready | ImportStatus::ReadyWithWarnings)
    }
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct CheckFailure {
    pub property: String,
    pub reason: String,
}

/// One entry of the spec, as the preview found it.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct PlannedResource {
    /// Position in the spec's `resources`.
    pub index: usize,
    pub urn: String,
    #[serde(rename = "type")]
    pub type_: String,
    pub name: String,
    pub id: Option<String>,
    /// The ID the spec gave, when the provider's ID for the resource differs from it
    /// (`15390,1,50000` imports a RandomInteger whose ID is `15390`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub import_id: Option<String>,
    pub parent: Option<String>,
    /// A provider reference (`<urn>::<id>`), or the URN of a provider the commit creates.
    pub provider: Option<String>,
    pub component: bool,
    pub status: ImportStatus,
    pub message: Option<String>,
    pub warnings: Vec<String>,
    pub check_failures: Vec<CheckFailure>,
    /// Inputs and outputs for display: secrets masked.
    #[serde(rename = "inputs", default)]
    pub inputs_view: Value,
    #[serde(rename = "outputs", default)]
    pub outputs_view: Value,
    /// The values a commit writes (secrets intact); never serialised with the preview.
    #[serde(skip)]
    pub inputs: PropertyMap,
    #[serde(skip)]
    pub outputs: PropertyMap,
}

/// A provider resource the commit would create (a default provider).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PlannedProvider {
    pub urn: String,
    pub package: String,
    pub version: Option<String>,
}

/// The result of a preview.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Preview {
    pub stack: String,
    /// The stack's root resource (`pulumi:pulumi:Stack`), and whether the commit creates it.
    pub root: String,
    pub root_exists: bool,
    pub providers_to_create: Vec<PlannedProvider>,
    pub resources: Vec<PlannedResource>,
    /// Positions in `resources`, parents first: the order a commit adds them in.
    pub order: Vec<usize>,
    pub counts: BTreeMap<ImportStatus, usize>,
}

fn masked(map: &PropertyMap) -> Value {
    let json = encode_map(map, &EncodeOptions { secrets: SecretEncoding::Plaintext, ..EncodeOptions::wire() });
    ferry_state::sig::mask_secrets(&Value::Object(json))
}

fn package_of(type_: &str) -> &str {
    type_.split(':').next().unwrap_or(type_)
}

/// The qualified type of a child of `parent_urn`: the parent's own qualified type (unless it
/// is the stack's root) joined with `$`.
fn qualified_type(parent_urn: Option<&str>, type_: &str) -> String {
    match parent_urn.and_then(Urn::parse) {
        Some(p) if p.type_token() != "pulumi:pulumi:Stack" => format!("{}${type_}", p.qualified_type),
        _ => type_.to_string(),
    }
}

/// Computes the preview of importing `spec` into the stack. Never fails as a whole: each entry
/// ends with a status.
pub async fn preview_import(spec: &ImportSpec, stack: &StackContext<'_>, providers: &dyn ProviderSource, options: ImportOptions) -> Preview {
    let entries = &spec.file.resources;
    let resources = stack.deployment.resources();
    let mut live: HashMap<&str, usize> = HashMap::with_capacity(resources.len());
    for (i, r) in resources.iter().enumerate() {
        if !r.is_pending_delete() {
            live.entry(r.urn.as_str()).or_insert(i);
        }
    }
    let urn_of = |qualified: &str, name: &str| format!("urn:pulumi:{}::{}::{qualified}::{name}", stack.stack, stack.project);

    let existing_root = resources.iter().find(|r| r.type_ == "pulumi:pulumi:Stack" && r.parent().is_none());
    let root = existing_root.map(|r| r.urn.clone()).unwrap_or_else(|| urn_of("pulumi:pulumi:Stack", &format!("{}-{}", stack.project, stack.stack)));

    // URNs, parents first (a child's URN carries its parent's type).
    let mut urns: Vec<String> = vec![String::new(); entries.len()];
    let mut parents: Vec<Option<String>> = vec![None; entries.len()];
    for &i in &spec.order {
        let e = &entries[i];
        let parent = match &spec.parents[i] {
            Some(EntryRef::Entry(j)) => urns[*j].clone(),
            Some(EntryRef::Urn(u)) => u.clone(),
            None => root.clone(),
        };
        urns[i] = urn_of(&qualified_type(Some(&parent), &e.type_), e.urn_name());
        parents[i] = Some(parent);
    }

    // Providers: explicit ones, or the package's default provider (reused from the stack when
    // it has one, else created by the commit). Each resource gets its configured instance.
    let config_of = |inputs: Option<&serde_json::Map<String, Value>>| -> PropertyMap {
        let decoded = inputs.and_then(|m| crate::property::json::decode_map(m, "", &Default::default()).ok()).unwrap_or_default();
        crate::deploy::provider_config(&decoded)
    };
    let version_of = |inputs: Option<&serde_json::Map<String, Value>>| inputs.and_then(|m| m.get("version")).and_then(Value::as_str).map(str::to_string);
    let mut to_create: Vec<PlannedProvider> = Vec::new();
    let mut provider_refs: Vec<Result<Option<ProviderInstance>, String>> = Vec::with_capacity(entries.len());
    for (i, e) in entries.iter().enumerate() {
        if e.component || e.is_provider() {
            provider_refs.push(Ok(None));
            continue;
        }
        let package = package_of(&e.type_);
        let provider_type = format!("pulumi:providers:{package}");
        let reference = match &spec.providers[i] {
            Some(EntryRef::Entry(j)) if entries[*j].type_ != provider_type => {
                Err(format!("provider `{}` is a `{}`, but `{}` needs a `{provider_type}`", entries[*j].name, entries[*j].type_, e.type_))
            }
            Some(EntryRef::Entry(j)) => Ok(Some(ProviderInstance {
                package: package.into(),
                version: entries[*j].version.clone(),
                key: urns[*j].clone(),
                config: config_of(entries[*j].inputs.as_ref()),
            })),
            Some(EntryRef::Urn(u)) => match live.get(u.as_str()).map(|&k| &resources[k]) {
                Some(p) if p.type_ != provider_type => Err(format!("provider `{u}` is a `{}`, but `{}` needs a `{provider_type}`", p.type_, e.type_)),
                Some(p) => Ok(Some(ProviderInstance {
                    package: package.into(),
                    version: version_of(p.inputs.as_ref()),
                    key: format!("{}::{}", p.urn, p.id().unwrap_or("")),
                    config: config_of(p.inputs.as_ref()),
                })),
                None => Err(format!("provider `{u}` is not in the stack")),
            },
            None => {
                let name = match &e.version {
                    Some(v) => format!("default_{}", v.trim_start_matches('v').replace(['.', '-', '+'], "_")),
                    None => "default".to_string(),
                };
                let in_state = resources.iter().find(|r| {
                    !r.is_pending_delete()
                        && r.type_ == provider_type
                        && Urn::parse(&r.urn).is_some_and(|u| if e.version.is_some() { u.name == name } else { u.name.starts_with("default") })
                });
                match in_state {
                    Some(p) => Ok(Some(ProviderInstance {
                        package: package.into(),
                        version: version_of(p.inputs.as_ref()).or(e.version.clone()),
                        key: format!("{}::{}", p.urn, p.id().unwrap_or("")),
                        config: config_of(p.inputs.as_ref()),
                    })),
                    None => {
                        let urn = urn_of(&provider_type, &name);
                        if !to_create.iter().any(|p| p.urn == urn) {
                            to_create.push(PlannedProvider { urn: urn.clone(), package: package.into(), version: e.version.clone() });
                        }
                        Ok(Some(ProviderInstance { package: package.into(), version: e.version.clone(), key: urn, config: PropertyMap::new() }))
                    }
                }
            }
        };
        provider_refs.push(reference);
    }

    // Read and check every custom resource, in parallel with bounded concurrency.
    let limit = Arc::new(Semaphore::new(options.concurrency.max(1)));
    // The minimal strategy needs each package's schema: asked once per package, shared.
    let mut schemas: HashMap<String, Arc<tokio::sync::OnceCell<Result<Value, String>>>> = HashMap::new();
    let mut tasks = tokio::task::JoinSet::new();
    let mut planned: Vec<Option<PlannedResource>> = vec![None; entries.len()];
    for (i, e) in entries.iter().enumerate() {
        let base = PlannedResource {
            index: i,
            urn: urns[i].clone(),
            type_: e.type_.clone(),
            name: e.name.clone(),
            id: e.id.clone().filter(|id| !id.is_empty()),
            import_id: None,
            parent: parents[i].clone(),
            provider: provider_refs[i].as_ref().ok().and_then(|p| p.as_ref().map(|p| p.key.clone())),
            component: e.component,
            status: ImportStatus::Ready,
            message: None,
            warnings: Vec::new(),
            check_failures: Vec::new(),
            inputs_view: Value::Object(Default::default()),
            outputs_view: Value::Object(Default::default()),
            inputs: PropertyMap::new(),
            outputs: PropertyMap::new(),
        };
        // Already in the stack under this URN? Same ID: skipped. Another ID: the provider's
        // canonical ID decides (an import ID like `8080,1,65535` names the resource `8080`).
        let mut existing_id = None;
        if let Some(&k) = live.get(urns[i].as_str()) {
            let stored = resources[k].id().map(str::to_string);
            if e.component || e.is_provider() || stored == base.id {
                let mut done = base;
                done.status = ImportStatus::AlreadyManaged;
                done.message = Some("already in the stack with this ID; skipped".into());
                planned[i] = Some(done);
                continue;
            }
            existing_id = Some(stored.unwrap_or_default());
        }
        if let Err(message) = &provider_refs[i] {
            planned[i] = Some(PlannedResource { status: ImportStatus::Failed, message: Some(message.clone()), ..base });
            continue;
        }
        if e.component || e.is_provider() {
            let inputs = e.inputs.as_ref().map(|m| crate::property::json::decode_map(m, "", &Default::default()));
            let mut done = base;
            match inputs {
                Some(Err(err)) => {
                    done.status = ImportStatus::Failed;
                    done.message = Some(format!("inputs: {err}"));
                }
                Some(Ok(map)) => {
                    done.inputs_view = masked(&map);
                    done.inputs = map;
                }
                None => {}
            }
            planned[i] = Some(done);
            continue;
        }
        if let Some(outputs) = &e.outputs {
            // Given outputs: taken as they are (with the given inputs, if any), without a Read.
            let no_inputs = serde_json::Map::new();
            let inputs = e.inputs.as_ref().unwrap_or(&no_inputs);
            let decoded = crate::property::json::decode_map(inputs, "", &Default::default())
                .and_then(|i| Ok((i, crate::property::json::decode_map(outputs, "", &Default::default())?)));
            let mut done = base;
            match decoded {
                Ok((i, o)) => {
                    done.inputs_view = masked(&i);
                    done.outputs_view = masked(&o);
                    done.inputs = i;
                    done.outputs = o;
                }
                Err(err) => {
                    done.status = ImportStatus::Failed;
                    done.message = Some(format!("given inputs or outputs: {err}"));
                }
            }
            planned[i] = Some(done);
            continue;
        }
        let limit = limit.clone();
        let keep = e.properties.clone();
        let strategy = options.strategy;
        let schema = schemas.entry(package_of(&e.type_).to_string()).or_default().clone();
        let instance = provider_refs[i].clone().ok().flatten().expect("custom resources have a provider instance");
        let provider = providers.provider(&instance).await;
        let existing_id = existing_id.clone();
        tasks.spawn(async move {
            let _permit = limit.acquire_owned().await.expect("the semaphore is never closed");
            match provider {
                Err(err) => PlannedResource { status: ImportStatus::Failed, message: Some(err.to_string()), ..base },
                Ok(provider) => read_and_check(base, provider, keep, existing_id, strategy, schema).await,
            }
        });
    }
    for done in planned.iter().flatten() {
        report(&options.progress, done);
    }
    while let Some(result) = tasks.join_next().await {
        match result {
            Ok(done) => {
                report(&options.progress, &done);
                let i = done.index;
                planned[i] = Some(done);
            }
            Err(e) => tracing::error!("an import task panicked: {e}"),
        }
    }
    let mut planned: Vec<PlannedResource> = planned
        .into_iter()
        .enumerate()
        .map(|(i, p)| {
            p.unwrap_or_else(|| PlannedResource {
                index: i,
                urn: urns[i].clone(),
                type_: entries[i].type_.clone(),
                name: entries[i].name.clone(),
                id: entries[i].id.clone(),
                import_id: None,
                parent: parents[i].clone(),
                provider: None,
                component: entries[i].component,
                status: ImportStatus::Failed,
                message: Some("internal error: the import task for this resource did not finish".into()),
                warnings: Vec::new(),
                check_failures: Vec::new(),
                inputs_view: Value::Null,
                outputs_view: Value::Null,
                inputs: PropertyMap::new(),
                outputs: PropertyMap::new(),
            })
        })
        .collect();

    // A resource whose parent or provider entry will not be added cannot be added either.
    for &i in &spec.order {
        if !planned[i].status.is_ready() {
            continue;
        }
        for (reference, what) in [(&spec.parents[i], "parent"), (&spec.providers[i], "provider")] {
            if let Some(EntryRef::Entry(j)) = reference {
                let other = &planned[*j];
                if !(other.status.is_ready() || other.status == ImportStatus::AlreadyManaged) {
                    let message = format!("its {what} `{}` is not imported ({})", other.name, other.status);
                    planned[i].status = ImportStatus::Failed;
                    planned[i].message = Some(message);
                }
            }
        }
    }

    let mut counts = BTreeMap::new();
    for p in &planned {
        *counts.entry(p.status).or_insert(0) += 1;
    }
    Preview {
        stack: format!("{}/{}", stack.project, stack.stack),
        root,
        root_exists: existing_root.is_some(),
        providers_to_create: to_create,
        resources: planned,
        order: spec.order.clone(),
        counts,
    }
}

/// Whether `value` holds `needle` inside a secret.
pub fn holds_secret_string(value: &crate::property::PropertyValue, needle: &str, in_secret: bool) -> bool {
    use crate::property::PropertyValue as V;
    match value {
        V::String(s) => in_secret && s == needle,
        V::Secret(inner) => holds_secret_string(inner, needle, true),
        V::Output(o) => o.element.as_ref().is_some_and(|e| holds_secret_string(e, needle, in_secret || o.secret)),
        V::Array(items) => items.iter().any(|v| holds_secret_string(v, needle, in_secret)),
        V::Object(map) => map.values().any(|v| holds_secret_string(v, needle, in_secret)),
        _ => false,
    }
}

async fn read_and_check(
    mut r: PlannedResource,
    provider: Arc<dyn Provider>,
    keep: Option<Vec<String>>,
    existing_id: Option<String>,
    strategy: ImportStrategy,
    schema: Arc<tokio::sync::OnceCell<Result<Value, String>>>,
) -> PlannedResource {
    let id = r.id.clone().unwrap_or_default();
    let name = Urn::parse(&r.urn).map(|u| u.name.to_string()).unwrap_or_default();
    let read = provider.read(ReadRequest { id: id.clone(), urn: r.urn.clone(), name: name.clone(), r#type: r.type_.clone(), ..Default::default() }).await;
    let read = match read {
        Ok(read) => read,
        Err(err) => {
            r.status = ImportStatus::Failed;
            r.message = Some(err.to_string());
            return r;
        }
    };
    if read.id.is_empty() {
        r.status = ImportStatus::NotFound;
        r.message = Some(format!("the `{}` provider found no `{}` with ID `{id}`", provider.package(), r.type_));
        return r;
    }
    if let Some(stored) = existing_id {
        if stored == read.id {
            r.status = ImportStatus::AlreadyManaged;
            r.message = Some(format!("already in the stack (as ID `{stored}`); skipped"));
        } else {
            r.status = ImportStatus::Conflict;
            r.message = Some(format!("the stack already has `{}` with ID `{stored}`, not `{}`", r.urn, read.id));
        }
        r.id = Some(read.id.clone());
        return r;
    }
    let Some(read_inputs) = read.inputs.as_ref() else {
        r.status = ImportStatus::Failed;
        r.message = Some(format!("the `{}` provider returned no inputs for `{}`: it cannot import this type", provider.package(), r.type_));
        return r;
    };
    let decoded = from_struct(read_inputs).and_then(|i| Ok((i, from_struct(&read.properties.clone().unwrap_or_default())?)));
    let (mut inputs, outputs) = match decoded {
        Ok(v) => v,
        Err(err) => {
            r.status = ImportStatus::Failed;
            r.message = Some(format!("the `{}` provider's Read answer does not decode: {err}", provider.package()));
            return r;
        }
    };
    if read.id != id {
        // Some import IDs are the secret itself (a RandomPassword is imported by its value):
        // when a secret output holds the import ID, the ID is a secret too.
        let secret = outputs.values().any(|v| holds_secret_string(v, &id, false));
        r.import_id = Some(if secret { "[secret]".to_string() } else { id.clone() });
        r.id = Some(read.id.clone());
    }
    if let Some(keep) = keep {
        inputs.retain(|k, _| keep.iter().any(|p| p == k));
    }
    let wire = EncodeOptions::wire();
    let read_inputs = inputs.clone();
    if strategy == ImportStrategy::Minimal {
        let schema = schema
            .get_or_init(|| async {
                let text = provider.get_schema().await.map_err(|e| e.to_string())?;
                serde_json::from_str::<Value>(&text).map_err(|e| format!("the provider's schema is not JSON: {e}"))
            })
            .await;
        let required: Vec<String> = match schema {
            Ok(schema) => schema["resources"][&r.type_]["requiredInputs"]
                .as_array()
                .map(|a| a.iter().filter_map(Value::as_str).map(str::to_string).collect())
                .unwrap_or_default(),
            Err(e) => {
                r.status = ImportStatus::Failed;
                r.message = Some(format!("the minimal strategy needs the package schema: {e}"));
                return r;
            }
        };
        inputs.retain(|k, _| required.contains(k));
    }
    let check = provider
        .check(CheckRequest {
            urn: r.urn.clone(),
            olds: Some(to_struct(&read_inputs, &wire)),
            news: Some(to_struct(&inputs, &wire)),
            name: name.clone(),
            r#type: r.type_.clone(),
            ..Default::default()
        })
        .await;
    let mut checked = None;
    match check {
        Ok(c) => {
            for f in c.failures {
                r.warnings.push(format!("Check: {}: {}", f.property, f.reason));
                r.check_failures.push(CheckFailure { property: f.property, reason: f.reason });
            }
            checked = c.inputs;
        }
        // The plugin broke on this resource's own Check (twice): the resource fails. A
        // provider that answered with an error leaves a warning, as Pulumi's import does.
        Err(err) if err.is_process_failure() => {
            r.status = ImportStatus::Failed;
            r.message = Some(err.to_string());
            return r;
        }
        Err(err) => r.warnings.push(format!("Check did not run: {err}")),
    }
    if strategy == ImportStrategy::Minimal {
        // Copy back every property whose checked value differs from the read state.
        let diff = provider
            .diff(DiffRequest {
                id: r.id.clone().unwrap_or_default(),
                urn: r.urn.clone(),
                olds: Some(to_struct(&outputs, &wire)),
                news: checked.or_else(|| Some(to_struct(&inputs, &wire))),
                old_inputs: Some(to_struct(&read_inputs, &wire)),
                name,
                r#type: r.type_.clone(),
                ..Default::default()
            })
            .await;
        match diff {
            Ok(d) => {
                let mut keys: Vec<String> = d.diffs.into_iter().chain(d.detailed_diff.into_keys()).collect();
                keys.sort();
                keys.dedup();
                for key in keys {
                    // Top-level property of a detailed-diff path like `tags.team`.
                    let top = key.split(['.', '[']).next().unwrap_or(&key).to_string();
                    if let Some(v) = outputs.get(&top).or_else(|| read_inputs.get(&top)) {
                        inputs.insert(top, v.clone());
                    }
                }
            }
            Err(err) => r.warnings.push(format!("Diff did not run: {err}")),
        }
    }
    if !r.warnings.is_empty() {
        r.status = ImportStatus::ReadyWithWarnings;
    }
    r.inputs_view = masked(&inputs);
    r.outputs_view = masked(&outputs);
    r.inputs = inputs;
    r.outputs = outputs;
    r
}

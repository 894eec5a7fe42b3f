//! The step generator and executor: each registration is matched with its old state (by URN
//! or alias), turned into steps as Pulumi's registration design lays out (import cases 1–3,
//! same/update/replace with create-before-delete or delete-before-replace and its dependents,
//! reads, relinquishes and read replacements, deletions in reverse dependency order), and in
//! update mode executed against the provider. Registrations of one level run concurrently:
//! independent chains in parallel.
//!
//! A goal from an import spec is a planned import (Pulumi's import deployment, `pulumi import
//! --file`): the same import step, with its inputs taken from what Read returned, and the
//! statuses only specs have (not-found, already-managed, conflict) instead of errors.

use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};
use std::sync::{Arc, Mutex};

use ferry_rpc::pulumirpc::{CheckRequest, CreateRequest, DeleteRequest, DiffRequest, ReadRequest, UpdateRequest};
use ferry_state::deployment::Resource;
use ferry_state::urn::{split_provider_reference, Urn};
use tokio::sync::{OnceCell, Semaphore};

use super::diff::{engine_diff, explain, from_response, shown_map, DiffDecision};
use super::eval::{Registered, Scope};
use super::schema::ResolvedType;
use super::step::{CheckFailure, ImportStatus, ResourceState, Step, StepOp};
use super::{DeployContext, DeployMode, DeployOptions, SkippedResource};
use crate::import::ImportStrategy;
use crate::plugin::PluginError;
use crate::program::{AliasSpec, Diagnostic, Pos, Program, ResourceDecl};
use crate::provider::{Provider, ProviderInstance, ProviderSource};
use ferry_property::json::{decode_map, decode_value, DecodeOptions, EncodeOptions};
use ferry_property::wire::{from_struct, to_struct};
use ferry_property::{PropertyMap, PropertyValue};

/// Pulumi's placeholder for an ID not known during a preview.
pub const UNKNOWN_ID: &str = "04da6b54-80e4-46f7-96ec-b56ff0331ba9";

/// The qualified type of a child of `parent_urn` (the parent's type joined with `$`, unless
/// the parent is the stack's root).
pub fn qualified_type(parent_urn: Option<&str>, type_: &str) -> String {
    match parent_urn.and_then(Urn::parse) {
        Some(p) if p.type_token() != "pulumi:pulumi:Stack" => format!("{}${type_}", p.qualified_type),
        _ => type_.to_string(),
    }
}

pub fn make_urn(stack: &str, project: &str, parent: Option<&str>, type_: &str, name: &str) -> String {
    format!("urn:pulumi:{stack}::{project}::{}::{name}", qualified_type(parent, type_))
}

/// A configured provider as a resource sees it.
#[derive(Debug, Clone)]
pub struct ProviderRef {
    pub urn: String,
    pub id: PropertyValue,
    pub config: PropertyMap,
    pub version: Option<String>,
}

impl ProviderRef {
    fn id_text(&self) -> Option<&str> {
        match &self.id {
            PropertyValue::String(s) => Some(s),
            _ => None,
        }
    }
    pub fn reference(&self) -> String {
        format!("{}::{}", self.urn, self.id_text().unwrap_or(UNKNOWN_ID))
    }
    fn instance(&self, package: &str) -> ProviderInstance {
        ProviderInstance {
            package: package.to_string(),
            version: self.version.clone(),
            key: if self.id_text().is_some() { self.reference() } else { self.urn.clone() },
            config: self.config.clone(),
        }
    }
}

/// Provider configuration: the provider resource's inputs without the engine's bookkeeping.
pub fn provider_config(inputs: &PropertyMap) -> PropertyMap {
    let mut config = inputs.clone();
    for internal in ["version", "pluginDownloadURL", "pluginChecksums"] {
        config.remove(internal);
    }
    config
}

/// The plugin version a provider resource's inputs ask for (the engine's `version` input).
pub fn provider_version(inputs: &PropertyMap) -> Option<String> {
    match inputs.get("version") {
        Some(PropertyValue::String(v)) => Some(v.clone()),
        _ => None,
    }
}

/// What makes a goal a planned import: an entry of an import spec.
#[derive(Debug, Clone)]
pub struct PlannedImport {
    /// The entry's position in the spec's `resources`.
    pub index: usize,
    /// Which of the inputs Read returned are kept (all when `None`).
    pub properties: Option<Vec<String>>,
    pub strategy: ImportStrategy,
    pub component: bool,
    /// Outputs the spec gives: the resource is taken as they say, without a Read.
    pub given_outputs: Option<PropertyMap>,
}

/// One resource registration, evaluated.
pub struct Goal {
    pub seq: usize,
    /// The program's key for the resource (what references use).
    pub key: String,
    /// The logical name (in the URN).
    pub name: String,
    pub pos: Pos,
    pub type_: String,
    pub urn: String,
    pub parent: Option<String>,
    pub provider: Option<ProviderRef>,
    pub version: Option<String>,
    pub inputs: PropertyMap,
    pub property_dependencies: BTreeMap<String, BTreeSet<String>>,
    pub dependencies: Vec<String>,
    pub protect: bool,
    pub delete_before_replace: bool,
    pub retain_on_delete: bool,
    pub ignore_changes: Vec<String>,
    pub import_id: Option<String>,
    pub aliases: Vec<String>,
    /// `get`: the ID and the state hints.
    pub read: Option<(String, PropertyMap)>,
    pub planned: Option<PlannedImport>,
}

impl Goal {
    pub fn build(program: &Program, decl: &ResourceDecl, resolved: &ResolvedType, scope: &Scope, seq: usize) -> Result<Goal, Diagnostic> {
        let path = format!("resources.{}", decl.name);
        let err = |pos: Pos, sub: &str, m: String| program.diagnostic(pos, format!("{path}{sub}"), m);
        let urn_of = |name: &str, pos: Pos, what: &str| -> Result<String, Diagnostic> {
            match scope.resources.get(name) {
                Some(r) if !r.urn.is_empty() => Ok(r.urn.clone()),
                _ => Err(err(pos, what, format!("depends on `{name}`, which could not be registered"))),
            }
        };
        let mut inputs = PropertyMap::new();
        let mut property_dependencies = BTreeMap::new();
        let mut all_deps: BTreeSet<String> = BTreeSet::new();
        for (k, pos, e) in &decl.properties {
            let mut deps = BTreeSet::new();
            let v = scope.eval(e, &mut deps).map_err(|(p, m)| err(if p.line > 0 { p } else { *pos }, &format!(".properties.{k}"), m))?;
            let mut urns = BTreeSet::new();
            for d in deps {
                urns.insert(urn_of(&d, *pos, &format!(".properties.{k}"))?);
            }
            all_deps.extend(urns.iter().cloned());
            if !urns.is_empty() {
                property_dependencies.insert(k.clone(), urns);
            }
            inputs.insert(k.clone(), v);
        }
        let option_pos = |o: &str| decl.options_pos.get(o).copied().unwrap_or(decl.pos);
        for d in &decl.options.depends_on {
            all_deps.insert(urn_of(d, option_pos("dependsOn"), ".options.dependsOn")?);
        }
        let parent = match &decl.options.parent {
            Some(p) => Some(urn_of(p, option_pos("parent"), ".options.parent")?),
            None => None,
        };
        let root = make_urn(&scope.stack, &scope.project, None, "pulumi:pulumi:Stack", &format!("{}-{}", scope.project, scope.stack));
        let parent = parent.or(Some(root.clone()));
        let provider = match &decl.options.provider {
            Some(p) => {
                let urn = urn_of(p, option_pos("provider"), ".options.provider")?;
                let r = &scope.resources[p];
                all_deps.insert(urn.clone());
                Some(ProviderRef { urn, id: r.id.clone(), version: provider_version(&r.outputs), config: provider_config(&r.outputs) })
            }
            None => None,
        };
        let text_of = |e: &crate::program::Expr, sub: &str| -> Result<String, Diagnostic> {
            let mut deps = BTreeSet::new();
            let v = scope.eval(e, &mut deps).map_err(|(p, m)| err(p, sub, m))?;
            match v {
                PropertyValue::String(s) => Ok(s),
                PropertyValue::Number(n) => Ok(format!("{n}")),
                PropertyValue::Secret(_) => Err(err(e.pos, sub, "must not be a secret (IDs are stored in plain text)".into())),
                PropertyValue::Computed => Err(err(e.pos, sub, "is not known until other resources exist; it must be known in a preview".into())),
                _ => Err(err(e.pos, sub, "must be a string".into())),
            }
        };
        let import_id = match &decl.options.import {
            Some(e) => Some(text_of(e, ".options.import")?).filter(|s| !s.is_empty()),
            None => None,
        };
        let read = match &decl.get {
            Some(g) => {
                let id = text_of(&g.id, ".get.id")?;
                let mut state = PropertyMap::new();
                for (k, pos, e) in &g.state {
                    let v = scope.eval(e, &mut BTreeSet::new()).map_err(|(p, m)| err(if p.line > 0 { p } else { *pos }, &format!(".get.state.{k}"), m))?;
                    state.insert(k.clone(), v);
                }
                Some((id, state))
            }
            None => None,
        };
        let urn = make_urn(&scope.stack, &scope.project, parent.as_deref(), &resolved.token, decl.logical_name());
        let mut aliases = Vec::new();
        for a in &decl.options.aliases {
            aliases.push(match a {
                AliasSpec::Urn(u) => u.clone(),
                AliasSpec::Parts { name, type_, project, stack, parent: alias_parent, no_parent } => {
                    let p = if *no_parent {
                        Some(root.clone())
                    } else {
                        match alias_parent {
                            Some(n) => Some(urn_of(n, option_pos("aliases"), ".options.aliases")?),
                            None => parent.clone(),
                        }
                    };
                    make_urn(
                        stack.as_deref().unwrap_or(&scope.stack),
                        project.as_deref().unwrap_or(&scope.project),
                        p.as_deref(),
                        type_.as_deref().unwrap_or(&resolved.token),
                        name.as_deref().unwrap_or(decl.logical_name()),
                    )
                }
            });
        }
        if decl.is_provider() {
            if let Some(v) = &decl.options.version {
                inputs.insert("version".into(), PropertyValue::String(v.clone()));
            }
        }
        Ok(Goal {
            seq: seq + 2,
            key: decl.name.clone(),
            name: decl.logical_name().to_string(),
            pos: decl.pos,
            type_: resolved.token.clone(),
            urn,
            parent,
            provider,
            version: decl.options.version.clone(),
            inputs,
            property_dependencies,
            dependencies: all_deps.into_iter().collect(),
            protect: decl.options.protect,
            delete_before_replace: decl.options.delete_before_replace,
            retain_on_delete: decl.options.retain_on_delete,
            ignore_changes: decl.options.ignore_changes.clone(),
            import_id,
            aliases,
            read,
            planned: None,
        })
    }

    fn package(&self) -> &str {
        self.type_.split(':').next().unwrap_or("")
    }

    fn step(&self, op: StepOp) -> Step {
        let mut step = Step::new(op, &self.urn, &self.type_, &self.name).at(self.planned.is_none().then_some(self.pos));
        step.parent = self.parent.clone();
        if let Some(p) = &self.planned {
            step.spec_index = Some(p.index);
            step.component = p.component;
        }
        step
    }

    fn state(&self, id: Option<String>, inputs: PropertyMap, outputs: PropertyMap, provider: Option<String>) -> ResourceState {
        ResourceState {
            urn: self.urn.clone(),
            type_: self.type_.clone(),
            custom: true,
            id,
            inputs,
            outputs,
            parent: self.parent.clone(),
            provider,
            dependencies: self.dependencies.clone(),
            property_dependencies: self.property_dependencies.clone(),
            protect: self.protect,
            external: false,
            delete_before_replace: self.delete_before_replace,
            retain_on_delete: self.retain_on_delete,
            import_id: None,
            base: None,
            verbatim: false,
        }
    }
}

pub enum Outcome {
    Registered(Registered),
    Skipped(SkippedResource, Registered),
}

fn unknown(urn: &str) -> Registered {
    Registered { urn: urn.to_string(), id: PropertyValue::Computed, outputs: PropertyMap::new(), complete: false }
}

#[derive(Default)]
struct GenState {
    counter: usize,
    steps: Vec<((usize, usize), Step)>,
    states: Vec<((usize, usize), ResourceState)>,
    /// Old state entries taken by a registration (by position), and by which URN.
    claimed: HashMap<usize, String>,
    /// Old resources a delete-before-replace already deleted (or, in previews, would).
    dbr_deleted: HashSet<usize>,
    /// Old resources replaced create-before-delete: deleted at the end.
    replaced: Vec<usize>,
    mutated: bool,
    /// An executed step failed: later mutations are not attempted.
    failed: bool,
    /// Each planned import's status, by its position in the spec.
    planned: HashMap<usize, ImportStatus>,
}

pub struct Generator<'a> {
    ctx: &'a DeployContext<'a>,
    providers: &'a dyn ProviderSource,
    options: &'a DeployOptions,
    olds: &'a [Resource],
    live: HashMap<&'a str, usize>,
    root_urn: String,
    limit: Semaphore,
    defaults: tokio::sync::Mutex<HashMap<(String, Option<String>), Arc<OnceCell<Result<ProviderRef, String>>>>>,
    /// Package schemas (the minimal import strategy's required inputs), asked once per package.
    schemas: tokio::sync::Mutex<HashMap<String, Arc<OnceCell<Result<serde_json::Value, String>>>>>,
    /// An import deployment tells progress only of its entries (not of the stack's root or the
    /// default providers, which are no rows of a spec).
    planned_only: bool,
    state: Mutex<GenState>,
}

/// Why a `Check` gave no answer: the plugin broke (a crash or hang that repeated alone on a
/// fresh process), or it answered with an error or something that does not decode.
enum CheckError {
    Process(String),
    Answer(String),
}

impl std::fmt::Display for CheckError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            CheckError::Process(m) | CheckError::Answer(m) => f.write_str(m),
        }
    }
}

fn plugin_message(e: &PluginError) -> String {
    e.to_string()
}

impl<'a> Generator<'a> {
    pub fn new(ctx: &'a DeployContext<'a>, providers: &'a dyn ProviderSource, options: &'a DeployOptions) -> Generator<'a> {
        let olds = ctx.deployment.resources();
        let mut live = HashMap::with_capacity(olds.len());
        for (i, r) in olds.iter().enumerate() {
            if !r.is_pending_delete() {
                live.entry(r.urn.as_str()).or_insert(i);
            }
        }
        let root_urn = olds
            .iter()
            .find(|r| r.type_ == "pulumi:pulumi:Stack" && r.parent().is_none())
            .map(|r| r.urn.clone())
            .unwrap_or_else(|| make_urn(ctx.stack, ctx.project, None, "pulumi:pulumi:Stack", &format!("{}-{}", ctx.project, ctx.stack)));
        Generator {
            ctx,
            providers,
            options,
            olds,
            live,
            root_urn,
            limit: Semaphore::new(options.concurrency.max(1)),
            defaults: Default::default(),
            schemas: Default::default(),
            planned_only: false,
            state: Mutex::new(GenState::default()),
        }
    }

    /// A generator for an import deployment (see `planned_only`).
    pub fn for_import(ctx: &'a DeployContext<'a>, providers: &'a dyn ProviderSource, options: &'a DeployOptions) -> Generator<'a> {
        Generator { planned_only: true, ..Generator::new(ctx, providers, options) }
    }

    fn update_mode(&self) -> bool {
        self.options.mode == DeployMode::Update
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, GenState> {
        self.state.lock().expect("generator state lock")
    }

    fn push(&self, seq: usize, step: Step) {
        if let Some(p) = self.options.progress.as_ref().filter(|_| !self.planned_only || step.spec_index.is_some()) {
            p.report(crate::progress::ProgressEvent {
                urn: step.urn.clone(),
                name: step.name.clone(),
                type_: step.type_.clone(),
                status: step.status_text().to_string(),
                message: step.error.clone().or_else(|| step.warnings.first().cloned()),
            });
        }
        let mut s = self.lock();
        s.counter += 1;
        let key = (seq, s.counter);
        if let (Some(index), Some(status)) = (step.spec_index, step.status) {
            s.planned.insert(index, status);
        }
        s.steps.push((key, step));
    }

    /// The status a planned import ended with, by its position in the spec.
    pub fn planned_status(&self, index: usize) -> Option<ImportStatus> {
        self.lock().planned.get(&index).copied()
    }

    /// The stack's root resource.
    pub fn root_urn(&self) -> &str {
        &self.root_urn
    }

    fn put(&self, seq: usize, state: ResourceState) {
        let mut s = self.lock();
        s.counter += 1;
        let key = (seq, s.counter);
        s.states.push((key, state));
    }

    /// Records that an executed step failed: later mutations are not attempted.
    fn fail(&self) {
        self.lock().failed = true;
    }

    /// Whether update-mode execution may go on.
    fn may_execute(&self) -> bool {
        self.update_mode() && !self.lock().failed
    }

    fn decrypt_opts(&self) -> DecodeOptions<'a> {
        DecodeOptions { decrypt: self.ctx.decrypt }
    }

    fn old_props(&self, i: usize) -> Result<(PropertyMap, PropertyMap), String> {
        let r = &self.olds[i];
        let opts = self.decrypt_opts();
        let decode = |m: serde_json::Map<String, serde_json::Value>, what: &str| {
            decode_map(&m, "", &opts).map_err(|e| {
                if e.message.contains("no key to decrypt") {
                    format!("the stack's {what} of `{}` hold encrypted secrets: give the stack's passphrase", r.urn)
                } else {
                    format!("the stack's {what} of `{}` do not decode: {e}", r.urn)
                }
            })
        };
        Ok((decode(r.inputs_map(), "inputs")?, decode(r.outputs_map(), "outputs")?))
    }

    /// What the stack records of old entry `i`, for the resources that refer to it: its ID and
    /// every output that decodes; an output that does not (a secret without the stack's
    /// passphrase) is unknown.
    fn stored_registration(&self, urn: &str, i: usize) -> Registered {
        let r = &self.olds[i];
        let opts = self.decrypt_opts();
        let outputs: PropertyMap = r
            .outputs_map()
            .iter()
            .map(|(k, v)| (k.clone(), decode_value(v, k, &opts).unwrap_or(PropertyValue::Secret(Box::new(PropertyValue::Computed)))))
            .collect();
        let id = r.id.clone().map(PropertyValue::String).unwrap_or(PropertyValue::Computed);
        Registered { urn: urn.to_string(), id, outputs, complete: true }
    }

    /// The old state entry as a continuing state: same URN, options from the new goal.
    fn continued(&self, i: usize, goal: &Goal, inputs: PropertyMap, outputs: PropertyMap, provider: Option<String>) -> ResourceState {
        let mut s = goal.state(self.olds[i].id.clone(), inputs, outputs, provider);
        s.base = Some(i);
        s.import_id = self.olds[i].extra.get("importID").and_then(|v| v.as_str()).map(str::to_string);
        s
    }

    // ---- the root and providers ----

    pub async fn register_root(&self) {
        let urn = self.root_urn.clone();
        let type_ = "pulumi:pulumi:Stack";
        let name = Urn::parse(&urn).map(|u| u.name.to_string()).unwrap_or_default();
        let old = self.live.get(urn.as_str()).copied();
        let mut state = ResourceState::bare(urn.clone(), type_.into(), old);
        match old {
            Some(i) => {
                self.lock().claimed.insert(i, urn.clone());
                state.protect = self.olds[i].is_protected();
                self.push(0, Step::new(StepOp::Same, &urn, type_, &name));
            }
            None => self.push(0, Step::new(StepOp::Create, &urn, type_, &name)),
        }
        self.put(0, state);
    }

    async fn default_provider(&self, package: &str, version: Option<&str>) -> Result<ProviderRef, String> {
        let cell = self.defaults.lock().await.entry((package.to_string(), version.map(str::to_string))).or_default().clone();
        cell.get_or_init(|| self.register_default_provider(package, version)).await.clone()
    }

    async fn register_default_provider(&self, package: &str, version: Option<&str>) -> Result<ProviderRef, String> {
        let type_ = format!("pulumi:providers:{package}");
        let name = match version {
            Some(v) => format!("default_{}", v.trim_start_matches('v').replace(['.', '-', '+'], "_")),
            None => "default".to_string(),
        };
        let urn = make_urn(self.ctx.stack, self.ctx.project, None, &type_, &name);
        // The exact default provider, or (no version asked) any default one for the package.
        let old = self.live.get(urn.as_str()).copied().or_else(|| {
            version.is_none().then(|| {
                self.olds.iter().position(|r| {
                    !r.is_pending_delete() && r.type_ == type_ && Urn::parse(&r.urn).is_some_and(|u| u.name.starts_with("default")) && r.parent().is_none()
                })
            })?
        });
        let mut inputs = PropertyMap::new();
        if let Some(v) = version {
            inputs.insert("version".into(), PropertyValue::String(v.to_string()));
        }
        let state = |urn: &str, id: Option<String>, inputs: PropertyMap, base: Option<usize>| ResourceState {
            urn: urn.to_string(),
            type_: type_.clone(),
            custom: true,
            id,
            outputs: inputs.clone(),
            inputs,
            parent: None,
            provider: None,
            dependencies: Vec::new(),
            property_dependencies: BTreeMap::new(),
            protect: false,
            external: false,
            delete_before_replace: false,
            retain_on_delete: false,
            import_id: None,
            // A default provider the stack already has is reused as it is stored.
            verbatim: base.is_some(),
            base,
        };
        match old {
            Some(i) => {
                let old = &self.olds[i];
                let (old_inputs, _) = self.old_props(i)?;
                self.lock().claimed.insert(i, old.urn.clone());
                let mut step = Step::new(StepOp::Same, &old.urn, &type_, Urn::parse(&old.urn).map(|u| u.name).unwrap_or(&name));
                step.id = old.id.clone();
                self.push(1, step);
                self.put(1, state(&old.urn, old.id.clone(), old_inputs.clone(), Some(i)));
                let version = provider_version(&old_inputs).or_else(|| version.map(str::to_string));
                Ok(ProviderRef {
                    urn: old.urn.clone(),
                    id: PropertyValue::String(old.id.clone().unwrap_or_default()),
                    config: provider_config(&old_inputs),
                    version,
                })
            }
            None => {
                let id = self.update_mode().then(|| uuid::Uuid::new_v4().to_string());
                let mut step = Step::new(StepOp::Create, &urn, &type_, &name);
                step.id = id.clone();
                self.push(1, step);
                self.put(1, state(&urn, id.clone(), inputs.clone(), None));
                Ok(ProviderRef {
                    urn,
                    id: id.map(PropertyValue::String).unwrap_or(PropertyValue::Computed),
                    config: PropertyMap::new(),
                    version: version.map(str::to_string),
                })
            }
        }
    }

    /// The provider resource a goal uses: its explicit one, or the package's default.
    async fn provider_ref_for(&self, goal: &Goal) -> Result<ProviderRef, String> {
        match &goal.provider {
            Some(p) => Ok(p.clone()),
            None => self.default_provider(goal.package(), goal.version.as_deref()).await,
        }
    }

    async fn provider_for(&self, goal: &Goal) -> Result<(ProviderRef, Arc<dyn Provider>), String> {
        let reference = self.provider_ref_for(goal).await?;
        let provider = self.providers.provider(&reference.instance(goal.package())).await.map_err(|e| plugin_message(&e))?;
        Ok((reference, provider))
    }

    /// The package's schema, asked of `provider` once per package.
    async fn schema_of(&self, package: &str, provider: &dyn Provider) -> Result<serde_json::Value, String> {
        let cell = self.schemas.lock().await.entry(package.to_string()).or_default().clone();
        cell.get_or_init(|| async {
            let text = provider.get_schema().await.map_err(|e| plugin_message(&e))?;
            serde_json::from_str::<serde_json::Value>(&text).map_err(|e| format!("the provider's schema is not JSON: {e}"))
        })
        .await
        .clone()
    }

    /// Whether the goal's type has an output its package's schema marks secret.
    async fn has_secret_outputs(&self, goal: &Goal, provider: &dyn Provider) -> bool {
        match self.schema_of(goal.package(), provider).await {
            Ok(schema) => schema["resources"][&goal.type_]["properties"].as_object().is_some_and(|props| props.values().any(|p| p["secret"] == true)),
            Err(_) => false,
        }
    }

    /// The provider that manages an old resource, from its recorded provider reference.
    async fn old_provider(&self, i: usize) -> Result<Arc<dyn Provider>, String> {
        let r = &self.olds[i];
        let package = r.type_.split(':').next().unwrap_or("");
        let instance = match r.provider().and_then(split_provider_reference) {
            Some((urn, id)) => {
                let config = match self.live.get(urn) {
                    Some(&p) => self.old_props(p)?.0,
                    None => PropertyMap::new(),
                };
                ProviderInstance { package: package.into(), version: provider_version(&config), key: format!("{urn}::{id}"), config: provider_config(&config) }
            }
            // State from before providers were recorded: the package's unconfigured provider.
            None => ProviderInstance { package: package.into(), version: None, key: format!("default:{package}"), config: PropertyMap::new() },
        };
        self.providers.provider(&instance).await.map_err(|e| plugin_message(&e))
    }

    // ---- provider calls ----

    async fn check(
        &self,
        provider: &dyn Provider,
        goal: &Goal,
        olds: &PropertyMap,
        news: &PropertyMap,
    ) -> Result<(PropertyMap, Vec<CheckFailure>), CheckError> {
        let wire = EncodeOptions::wire();
        let r = provider
            .check(CheckRequest {
                urn: goal.urn.clone(),
                olds: Some(to_struct(olds, &wire)),
                news: Some(to_struct(news, &wire)),
                name: goal.name.clone(),
                r#type: goal.type_.clone(),
                ..Default::default()
            })
            .await
            .map_err(|e| if e.is_process_failure() { CheckError::Process(plugin_message(&e)) } else { CheckError::Answer(plugin_message(&e)) })?;
        let failures = r.failures.into_iter().map(|f| CheckFailure { property: f.property, reason: f.reason }).collect();
        let checked = match r.inputs {
            Some(s) => from_struct(&s).map_err(|e| CheckError::Answer(format!("the provider's Check answer does not decode: {e}")))?,
            None => news.clone(),
        };
        Ok((checked, failures))
    }

    #[allow(clippy::too_many_arguments)]
    async fn diff(
        &self,
        provider: &dyn Provider,
        urn: &str,
        type_: &str,
        name: &str,
        id: &str,
        old_outputs: &PropertyMap,
        old_inputs: &PropertyMap,
        news: &PropertyMap,
        ignore: &[String],
    ) -> Result<DiffDecision, String> {
        let wire = EncodeOptions::wire();
        let r = provider
            .diff(DiffRequest {
                id: id.to_string(),
                urn: urn.to_string(),
                olds: Some(to_struct(old_outputs, &wire)),
                news: Some(to_struct(news, &wire)),
                ignore_changes: ignore.to_vec(),
                old_inputs: Some(to_struct(old_inputs, &wire)),
                name: name.to_string(),
                r#type: type_.to_string(),
            })
            .await;
        match r {
            Ok(r) => Ok(from_response(&r).unwrap_or_else(|| engine_diff(old_inputs, news, ignore))),
            // A provider without Diff: the engine compares inputs itself.
            Err(PluginError::Call { code, .. }) if code == "Unimplemented" => Ok(engine_diff(old_inputs, news, ignore)),
            Err(e) => Err(plugin_message(&e)),
        }
    }

    async fn create(&self, provider: &dyn Provider, goal: &Goal, inputs: &PropertyMap) -> Result<(String, PropertyMap), String> {
        let r = provider
            .create(CreateRequest {
                urn: goal.urn.clone(),
                properties: Some(to_struct(inputs, &EncodeOptions::wire())),
                name: goal.name.clone(),
                r#type: goal.type_.clone(),
                ..Default::default()
            })
            .await
            .map_err(|e| plugin_message(&e))?;
        if r.id.is_empty() {
            return Err("the provider's Create returned no ID".into());
        }
        let outputs = from_struct(&r.properties.unwrap_or_default()).map_err(|e| format!("the provider's Create answer does not decode: {e}"))?;
        self.lock().mutated = true;
        Ok((r.id, outputs))
    }

    async fn delete_old(&self, i: usize) -> Result<(), String> {
        let r = &self.olds[i];
        let provider = self.old_provider(i).await?;
        let (inputs, outputs) = self.old_props(i)?;
        let wire = EncodeOptions::wire();
        provider
            .delete(DeleteRequest {
                id: r.id.clone().unwrap_or_default(),
                urn: r.urn.clone(),
                properties: Some(to_struct(&outputs, &wire)),
                old_inputs: Some(to_struct(&inputs, &wire)),
                name: Urn::parse(&r.urn).map(|u| u.name.to_string()).unwrap_or_default(),
                r#type: r.type_.clone(),
                ..Default::default()
            })
            .await
            .map_err(|e| plugin_message(&e))?;
        self.lock().mutated = true;
        Ok(())
    }

    /// Runs a delete of an old resource now (update mode), recording failures on `step`.
    async fn execute_delete(&self, i: usize, step: &mut Step) -> bool {
        if step.error.is_some() || step.state_only || !self.update_mode() {
            return step.error.is_none();
        }
        if !self.may_execute() {
            step.error = Some("not run: an earlier step failed".into());
            return false;
        }
        match self.delete_old(i).await {
            Ok(()) => true,
            Err(e) => {
                step.error = Some(format!("Delete failed: {e}"));
                self.fail();
                false
            }
        }
    }

    // ---- registrations ----

    pub async fn register(&self, mut goal: Goal) -> (String, Outcome) {
        let _permit = self.limit.acquire().await.expect("never closed");
        let name = goal.key.clone();
        // Old state: by URN, else by alias; several matches are an error.
        let mut matches: BTreeSet<usize> = BTreeSet::new();
        matches.extend(self.live.get(goal.urn.as_str()));
        for a in &goal.aliases {
            matches.extend(self.live.get(a.as_str()));
        }
        if matches.len() > 1 {
            let mut step = goal.step(StepOp::Same);
            let urns: Vec<&str> = matches.iter().map(|&i| self.olds[i].urn.as_str()).collect();
            step.error = Some(format!("several resources in the stack match this one through its aliases: {}", urns.join(", ")));
            self.push(goal.seq, step);
            return (name, Outcome::Registered(unknown(&goal.urn)));
        }
        let old = matches.first().copied();
        if let Some(i) = old {
            let mut s = self.lock();
            if let Some(other) = s.claimed.get(&i) {
                let message = format!("the stack's `{}` is already claimed by `{other}`: two resources have the same URN or alias", self.olds[i].urn);
                drop(s);
                let mut step = goal.step(StepOp::Same);
                step.error = Some(message);
                self.push(goal.seq, step);
                return (name, Outcome::Registered(unknown(&goal.urn)));
            }
            s.claimed.insert(i, goal.urn.clone());
        }
        if goal.planned.is_some() {
            return (name, Outcome::Registered(self.register_planned(&goal, old).await));
        }
        if goal.type_.starts_with("pulumi:providers:") {
            return (name, Outcome::Registered(self.register_provider(&goal, old)));
        }
        let (provider_ref, provider) = match self.provider_for(&goal).await {
            Ok(p) => p,
            Err(e) => {
                let mut step = goal.step(if old.is_some() { StepOp::Same } else { StepOp::Create });
                step.error = Some(e);
                self.push(goal.seq, step);
                if let Some(i) = old {
                    self.keep_old(goal.seq, i);
                }
                return (name, Outcome::Registered(unknown(&goal.urn)));
            }
        };
        if goal.read.is_some() {
            return (name, Outcome::Registered(self.read_resource(&goal, old, &provider_ref, provider.as_ref()).await));
        }
        if old.is_none() && goal.import_id.is_none() {
            if let Some(mapping) = &self.options.import_mapping {
                match mapping.get(&goal.name).filter(|id| !id.is_empty()) {
                    Some(id) => goal.import_id = Some(id.clone()),
                    None => {
                        let skipped = SkippedResource { name: goal.name.clone(), type_: goal.type_.clone(), urn: goal.urn.clone() };
                        return (name, Outcome::Skipped(skipped, unknown(&goal.urn)));
                    }
                }
            }
        }
        if let Some(import_id) = goal.import_id.clone() {
            match old {
                None => return (name, Outcome::Registered(self.import(&goal, &import_id, None, &provider_ref, provider.as_ref()).await)),
                Some(i) => {
                    let stored_import = self.olds[i].extra.get("importID").and_then(|v| v.as_str());
                    // A secret import ID (a password imported by its value) is not stored: the
                    // resource's secret outputs recognise it.
                    let secret_match = || self.old_props(i).is_ok_and(|(_, outputs)| outputs.values().any(|v| v.holds_secret_string(&import_id, false)));
                    let same = self.olds[i].id.as_deref() == Some(import_id.as_str()) || stored_import == Some(import_id.as_str()) || secret_match();
                    if !same {
                        return (name, Outcome::Registered(self.import(&goal, &import_id, Some(i), &provider_ref, provider.as_ref()).await));
                    }
                    // Case 2: already imported: treated like any other resource.
                }
            }
        }
        (name, Outcome::Registered(self.update_or_same(&goal, old, &provider_ref, provider.as_ref()).await))
    }

    /// Keeps an old resource's state as it was (its registration failed).
    fn keep_old(&self, seq: usize, i: usize) {
        let (inputs, outputs) = self.old_props(i).unwrap_or_default();
        self.put(seq, self.old_state(i, inputs, outputs));
    }

    /// Keeps an old resource exactly as it is, without a step: the program of an imports-scope
    /// plan does not declare it. Nothing is decoded (its secrets need no passphrase) and nothing
    /// copied: the state is its position in the base, so a plan over a big stack costs what it
    /// changes, not the stack.
    fn untouched(&self, seq: usize, i: usize) {
        self.put(seq, ResourceState::kept(i));
    }

    /// The old entry `i` as a resource state with the given properties, written anew.
    fn old_state(&self, i: usize, inputs: PropertyMap, outputs: PropertyMap) -> ResourceState {
        let r = &self.olds[i];
        ResourceState {
            urn: r.urn.clone(),
            type_: r.type_.clone(),
            custom: r.is_custom(),
            id: r.id.clone(),
            inputs,
            outputs,
            parent: r.parent.clone(),
            provider: r.provider.clone(),
            dependencies: r.dependencies.clone().unwrap_or_default(),
            property_dependencies: BTreeMap::new(),
            protect: r.is_protected(),
            external: r.external == Some(true),
            delete_before_replace: false,
            retain_on_delete: false,
            import_id: None,
            base: Some(i),
            verbatim: false,
        }
    }

    fn register_provider(&self, goal: &Goal, old: Option<usize>) -> Registered {
        let inputs = goal.inputs.clone();
        match old {
            Some(i) => {
                let (old_inputs, _) = match self.old_props(i) {
                    Ok(p) => p,
                    Err(e) => {
                        let mut step = goal.step(StepOp::Same);
                        step.error = Some(e);
                        self.push(goal.seq, step);
                        return unknown(&goal.urn);
                    }
                };
                let decision = engine_diff(&old_inputs, &inputs, &[]);
                let op = if decision.has_changes() { StepOp::Update } else { StepOp::Same };
                let mut step = goal.step(op);
                step.id = self.olds[i].id.clone();
                step.old_id = self.olds[i].id.clone();
                step.changed = decision.changed.clone();
                step.diffs = explain(&inputs, &old_inputs, None, &decision, &[], false);
                self.push(goal.seq, step);
                let mut state = self.continued(i, goal, inputs.clone(), inputs.clone(), None);
                state.dependencies = goal.dependencies.clone();
                self.put(goal.seq, state);
                Registered { urn: goal.urn.clone(), id: PropertyValue::String(self.olds[i].id.clone().unwrap_or_default()), outputs: inputs, complete: true }
            }
            None => {
                let id = self.update_mode().then(|| uuid::Uuid::new_v4().to_string());
                let mut step = goal.step(StepOp::Create);
                step.id = id.clone();
                if goal.planned.is_some() {
                    step.status = Some(ImportStatus::Ready);
                    step.state_only = true;
                    step.inputs = Some(shown_map(&inputs));
                }
                self.push(goal.seq, step);
                self.put(goal.seq, goal.state(id.clone(), inputs.clone(), inputs.clone(), None));
                Registered { urn: goal.urn.clone(), id: id.map(PropertyValue::String).unwrap_or(PropertyValue::Computed), outputs: inputs, complete: true }
            }
        }
    }

    /// A planned import (an entry of an import spec). Components and provider resources exist
    /// only in state; a resource already in the stack under this URN is skipped when its ID
    /// matches, and a conflict otherwise (a spec never replaces what the stack manages).
    async fn register_planned(&self, goal: &Goal, old: Option<usize>) -> Registered {
        let planned = goal.planned.as_ref().expect("a planned import");
        let is_provider = goal.type_.starts_with("pulumi:providers:");
        if let Some(i) = old {
            if planned.component || is_provider || self.olds[i].id.is_some() && self.olds[i].id == goal.import_id {
                return self.already_managed(goal, i);
            }
        }
        if is_provider {
            return self.register_provider(goal, None);
        }
        if planned.component {
            let mut step = goal.step(StepOp::Create);
            step.state_only = true;
            step.status = Some(ImportStatus::Ready);
            self.push(goal.seq, step);
            let mut state = goal.state(None, PropertyMap::new(), PropertyMap::new(), None);
            state.custom = false;
            state.dependencies.clear();
            self.put(goal.seq, state);
            return Registered { urn: goal.urn.clone(), id: PropertyValue::String(String::new()), outputs: PropertyMap::new(), complete: true };
        }
        if let Some(outputs) = &planned.given_outputs {
            // Taken as the spec says: no provider is launched.
            let reference = match self.provider_ref_for(goal).await {
                Ok(r) => r.reference(),
                Err(e) => return self.planned_failure(goal, ImportStatus::Failed, e, old),
            };
            let id = goal.import_id.clone().unwrap_or_default();
            let mut step = goal.step(StepOp::Import);
            step.status = Some(ImportStatus::Ready);
            step.provider = Some(reference.clone());
            step.id = Some(id.clone());
            step.inputs = Some(shown_map(&goal.inputs));
            step.outputs = Some(shown_map(outputs));
            self.push(goal.seq, step);
            let mut state = goal.state(Some(id.clone()), goal.inputs.clone(), outputs.clone(), Some(reference));
            state.import_id = Some(id.clone());
            self.put(goal.seq, state);
            return Registered { urn: goal.urn.clone(), id: PropertyValue::String(id), outputs: outputs.clone(), complete: true };
        }
        let provider_ref = match self.provider_ref_for(goal).await {
            Ok(r) => r,
            Err(e) => return self.planned_failure(goal, ImportStatus::Failed, e, old),
        };
        let provider = match self.providers.provider(&provider_ref.instance(goal.package())).await {
            Ok(p) => p,
            Err(e) => {
                let mut step = goal.step(StepOp::Import);
                step.provider = Some(provider_ref.reference());
                return self.refuse_planned(goal, step, ImportStatus::Failed, plugin_message(&e), old);
            }
        };
        let import_id = goal.import_id.clone().unwrap_or_default();
        self.import(goal, &import_id, old, &provider_ref, provider.as_ref()).await
    }

    /// A planned import of what the stack already manages under this URN (and ID): skipped, the
    /// stack's entry kept exactly as stored.
    fn already_managed(&self, goal: &Goal, i: usize) -> Registered {
        let mut step = goal.step(StepOp::Same);
        step.status = Some(ImportStatus::AlreadyManaged);
        step.old_id = self.olds[i].id.clone();
        step.id = self.olds[i].id.clone();
        self.push(goal.seq, step);
        self.untouched(goal.seq, i);
        Registered {
            urn: goal.urn.clone(),
            id: PropertyValue::String(self.olds[i].id.clone().unwrap_or_default()),
            outputs: PropertyMap::new(),
            complete: true,
        }
    }

    /// A planned import that does not go ahead: its step says why; a stack entry it would have
    /// claimed stays exactly as stored.
    pub fn planned_failure(&self, goal: &Goal, status: ImportStatus, message: String, old: Option<usize>) -> Registered {
        self.refuse_planned(goal, goal.step(StepOp::Import), status, message, old)
    }

    fn refuse_planned(&self, goal: &Goal, mut step: Step, status: ImportStatus, message: String, old: Option<usize>) -> Registered {
        step.status = Some(status);
        step.error = Some(message);
        step.import_id = goal.import_id.clone();
        self.push(goal.seq, step);
        if let Some(i) = old {
            // Claimed here too (a goal refused before its registration never was), so the end
            // of the deployment does not write the entry back a second time.
            self.lock().claimed.entry(i).or_insert_with(|| goal.urn.clone());
            self.untouched(goal.seq, i);
        }
        unknown(&goal.urn)
    }

    /// The import step: Read → ignoreChanges from the read inputs → Check → Diff. A program's
    /// import (the `import` option) brings its own inputs and must show no diff; a planned one
    /// takes the inputs Read returned (limited by the spec's `properties`, or with the minimal
    /// strategy the schema's required inputs plus what Diff says differs), and reports Check
    /// failures and differences as warnings, as `pulumi import` does.
    async fn import(&self, goal: &Goal, import_id: &str, replacing: Option<usize>, provider_ref: &ProviderRef, provider: &dyn Provider) -> Registered {
        let planned = goal.planned.as_ref();
        let op = if replacing.is_some() && planned.is_none() { StepOp::ImportReplacement } else { StepOp::Import };
        let mut step = goal.step(op);
        step.provider = Some(provider_ref.reference());
        step.import_id = Some(import_id.to_string());
        if let Some(i) = replacing {
            step.old_id = self.olds[i].id.clone();
        }
        let fail = |mut step: Step, status: ImportStatus, message: String| {
            if planned.is_some() {
                step.status = Some(status);
            }
            step.error = Some(message);
            self.push(goal.seq, step);
            if let Some(i) = replacing {
                if planned.is_some() {
                    self.untouched(goal.seq, i);
                } else {
                    self.keep_old(goal.seq, i);
                }
            }
            if self.update_mode() {
                self.fail();
            }
            unknown(&goal.urn)
        };
        let read = provider
            .read(ReadRequest { id: import_id.to_string(), urn: goal.urn.clone(), name: goal.name.clone(), r#type: goal.type_.clone(), ..Default::default() })
            .await;
        let read = match read {
            Ok(r) if !r.id.is_empty() => r,
            failed => {
                // A type whose schema marks an output secret may be imported by that secret
                // (a password by its value): then a failure shows neither the ID nor a message
                // that repeats it.
                let secret = self.has_secret_outputs(goal, provider).await;
                let shown = if secret { "[secret]" } else { import_id };
                if secret {
                    step.import_id = Some("[secret]".into());
                }
                let (status, message) = match failed {
                    Ok(_) => (ImportStatus::NotFound, format!("the `{}` provider found no `{}` with ID `{shown}`", goal.package(), goal.type_)),
                    // A plugin's own message already says it failed Read.
                    Err(e) if planned.is_some() => (ImportStatus::Failed, plugin_message(&e)),
                    Err(e) => (ImportStatus::Failed, format!("Read failed: {}", plugin_message(&e))),
                };
                let message = if secret && !import_id.is_empty() { message.replace(import_id, "[secret]") } else { message };
                return fail(step, status, message);
            }
        };
        if let (Some(_), Some(i)) = (planned, replacing) {
            // The provider's canonical ID decides: `8080,1,65535` imports a RandomInteger `8080`.
            let stored = self.olds[i].id.clone().unwrap_or_default();
            if stored == read.id {
                return self.already_managed(goal, i);
            }
            step.id = Some(read.id.clone());
            return fail(step, ImportStatus::Conflict, format!("the stack already has `{}` with ID `{stored}`, not `{}`", goal.urn, read.id));
        }
        let Some(read_inputs) = read.inputs.as_ref() else {
            return fail(
                step,
                ImportStatus::Failed,
                format!("the `{}` provider returned no inputs for `{}`: it cannot import this type", goal.package(), goal.type_),
            );
        };
        let decoded = from_struct(read_inputs).and_then(|i| Ok((i, from_struct(&read.properties.clone().unwrap_or_default())?)));
        let (read_inputs, read_outputs) = match decoded {
            Ok(v) => v,
            Err(e) => return fail(step, ImportStatus::Failed, format!("the `{}` provider's Read answer does not decode: {e}", goal.package())),
        };
        step.id = Some(read.id.clone());
        // Some import IDs are the secret itself: then they are neither shown nor stored.
        let secret_id = read_outputs.values().any(|v| v.holds_secret_string(import_id, false));
        if planned.is_some() && read.id == import_id {
            // A spec's import ID that is the resource's ID says nothing more.
            step.import_id = None;
        } else if secret_id {
            step.import_id = Some("[secret]".into());
        }
        let mut news = match planned {
            None => {
                let mut news = goal.inputs.clone();
                apply_ignore_changes(&mut news, &read_inputs, &goal.ignore_changes);
                news
            }
            Some(p) => {
                let mut news = read_inputs.clone();
                if let Some(keep) = &p.properties {
                    news.retain(|k, _| keep.iter().any(|p| p == k));
                }
                if p.strategy == ImportStrategy::Minimal {
                    let required: Vec<String> = match self.schema_of(goal.package(), provider).await {
                        Ok(schema) => schema["resources"][&goal.type_]["requiredInputs"]
                            .as_array()
                            .map(|a| a.iter().filter_map(serde_json::Value::as_str).map(str::to_string).collect())
                            .unwrap_or_default(),
                        Err(e) => return fail(step, ImportStatus::Failed, format!("the minimal strategy needs the package schema: {e}")),
                    };
                    news.retain(|k, _| required.contains(k));
                }
                news
            }
        };
        let mut checked = None;
        match self.check(provider, goal, &read_inputs, &news).await {
            Ok((c, failures)) => {
                for f in &failures {
                    step.warnings.push(f.to_string());
                }
                if failures.is_empty() || planned.is_some() {
                    checked = Some(c);
                }
                step.check_failures = failures;
            }
            // The plugin broke on this resource's own Check (twice, the second time alone).
            Err(CheckError::Process(e)) => return fail(step, ImportStatus::Failed, e),
            Err(e @ CheckError::Answer(_)) => step.warnings.push(format!("Check did not run: {e}")),
        }
        let desired = checked.clone().unwrap_or_else(|| news.clone());
        let decision =
            match self.diff(provider, &goal.urn, &goal.type_, &goal.name, &read.id, &read_outputs, &read_inputs, &desired, &goal.ignore_changes).await {
                Ok(d) => d,
                Err(e) => {
                    step.warnings.push(format!("Diff did not run: {e}"));
                    engine_diff(&read_inputs, &desired, &goal.ignore_changes)
                }
            };
        match planned {
            Some(p) if p.strategy == ImportStrategy::Minimal => {
                // Copy back every property whose checked value differs from the read state:
                // the smallest set of inputs that shows no diff.
                let mut keys: Vec<&String> = decision.changed.iter().chain(decision.replace_keys.iter()).collect();
                keys.sort();
                keys.dedup();
                for key in keys {
                    let top = key.split(['.', '[']).next().unwrap_or(key);
                    if let Some(v) = read_outputs.get(top).or_else(|| read_inputs.get(top)) {
                        news.insert(top.to_string(), v.clone());
                    }
                }
            }
            Some(_) if decision.has_changes() => step.warnings.push(format!(
                "Diff: the provider reports that the inputs Read returned differ from the resource ({}); code that sets them may preview as an update, as `pulumi import` warns",
                decision.changed.iter().chain(decision.replace_keys.iter()).map(|k| format!("`{k}`")).collect::<Vec<_>>().join(", ")
            )),
            Some(_) => {}
            None if decision.has_changes() => step.warnings.push(format!(
                "the program's inputs differ from the resource read back ({}): an import must leave no diff, so this cannot be committed until the program matches (or lists them in ignoreChanges)",
                decision.changed.iter().map(|k| format!("`{k}`")).collect::<Vec<_>>().join(", ")
            )),
            None => {}
        }
        let program_side = if planned.is_some() { &news } else { &goal.inputs };
        // The minimal strategy copied back what Diff named: nothing is left to differ.
        if !planned.is_some_and(|p| p.strategy == ImportStrategy::Minimal) {
            step.changed = decision.changed.clone();
            step.replace_keys = decision.replace_keys.clone();
        }
        step.diffs = explain(program_side, &read_inputs, checked.as_ref(), &decision, &goal.ignore_changes, true);
        if self.update_mode() && !step.warnings.is_empty() {
            let why = step.warnings.join("; ");
            return fail(step, ImportStatus::Failed, format!("import refused: {why}"));
        }
        if let Some(i) = replacing {
            if self.olds[i].is_protected() {
                return fail(
                    step,
                    ImportStatus::Failed,
                    format!("`{}` is protected: it cannot be replaced by an import until `protect` is removed", self.olds[i].urn),
                );
            }
        }
        // What the stack records: a program's checked inputs; a spec's inputs as Pulumi's import
        // deployment keeps them (what the generated code sets).
        let recorded = if planned.is_some() { news } else { desired };
        if planned.is_some() {
            step.status = Some(if step.warnings.is_empty() { ImportStatus::Ready } else { ImportStatus::ReadyWithWarnings });
        }
        step.inputs = Some(shown_map(&recorded));
        step.outputs = Some(shown_map(&read_outputs));
        self.push(goal.seq, step);
        if let Some(i) = replacing {
            let mut marker = goal.step(StepOp::Replace);
            marker.old_id = self.olds[i].id.clone();
            marker.id = Some(read.id.clone());
            self.push(goal.seq, marker);
            self.lock().replaced.push(i);
        }
        let mut state = goal.state(Some(read.id.clone()), recorded, read_outputs.clone(), Some(provider_ref.reference()));
        state.import_id = (!secret_id).then(|| import_id.to_string());
        self.put(goal.seq, state);
        Registered { urn: goal.urn.clone(), id: PropertyValue::String(read.id), outputs: read_outputs, complete: true }
    }

    /// `get`: read, relinquish, or read-replacement.
    async fn read_resource(&self, goal: &Goal, old: Option<usize>, provider_ref: &ProviderRef, provider: &dyn Provider) -> Registered {
        let (id, hints) = goal.read.clone().expect("a read goal");
        let op = match old {
            None => StepOp::Read,
            Some(i) if self.olds[i].external == Some(true) => StepOp::Read,
            Some(i) if self.olds[i].id.as_deref() == Some(id.as_str()) => StepOp::Relinquish,
            Some(_) => StepOp::ReadReplacement,
        };
        let mut step = goal.step(op);
        step.provider = Some(provider_ref.reference());
        step.old_id = old.and_then(|i| self.olds[i].id.clone());
        let wire = EncodeOptions::wire();
        let read = provider
            .read(ReadRequest {
                id: id.clone(),
                urn: goal.urn.clone(),
                name: goal.name.clone(),
                r#type: goal.type_.clone(),
                properties: Some(to_struct(&hints, &wire)),
                inputs: Some(to_struct(&hints, &wire)),
                ..Default::default()
            })
            .await;
        let result = match read {
            Err(e) => Err(format!("Read failed: {}", plugin_message(&e))),
            Ok(r) if r.id.is_empty() => Err(format!("the `{}` provider found no `{}` with ID `{id}`", goal.package(), goal.type_)),
            Ok(r) => from_struct(&r.properties.clone().unwrap_or_default())
                .and_then(|o| Ok((r.id.clone(), o, r.inputs.as_ref().map(from_struct).transpose()?)))
                .map_err(|e| format!("the provider's Read answer does not decode: {e}")),
        };
        let (read_id, outputs, inputs) = match result {
            Ok(v) => v,
            Err(e) => {
                step.error = Some(e);
                self.push(goal.seq, step);
                if let Some(i) = old {
                    self.keep_old(goal.seq, i);
                }
                return unknown(&goal.urn);
            }
        };
        step.id = Some(read_id.clone());
        if op == StepOp::ReadReplacement {
            let i = old.expect("a replacement has an old resource");
            if self.olds[i].is_protected() {
                step.error = Some(format!("`{}` is protected: it cannot be replaced by a read until `protect` is removed", self.olds[i].urn));
                self.push(goal.seq, step);
                self.keep_old(goal.seq, i);
                return unknown(&goal.urn);
            }
            self.push(goal.seq, step);
            let mut marker = goal.step(StepOp::Replace);
            marker.old_id = self.olds[i].id.clone();
            marker.id = Some(read_id.clone());
            self.push(goal.seq, marker);
            self.lock().replaced.push(i);
        } else {
            self.push(goal.seq, step);
        }
        let mut state = goal.state(Some(read_id.clone()), inputs.unwrap_or(hints), outputs.clone(), Some(provider_ref.reference()));
        state.external = true;
        state.protect = false;
        if op != StepOp::ReadReplacement {
            state.base = old;
        }
        self.put(goal.seq, state);
        Registered { urn: goal.urn.clone(), id: PropertyValue::String(read_id), outputs, complete: true }
    }

    async fn update_or_same(&self, goal: &Goal, old: Option<usize>, provider_ref: &ProviderRef, provider: &dyn Provider) -> Registered {
        let reference = provider_ref.reference();
        let (old_inputs, old_outputs) = match old.map(|i| self.old_props(i)).transpose() {
            Ok(p) => p.unwrap_or_default(),
            Err(e) => {
                let i = old.expect("old");
                let mut step = goal.step(StepOp::Same);
                step.error = Some(e);
                self.push(goal.seq, step);
                self.keep_old(goal.seq, i);
                // The resource stays as it is: what the stack records of it is known to those
                // that refer to it (its ID, and every output that decodes), as Pulumi's
                // preview knows a `same` resource's outputs. Only what did not decode (a secret
                // without the passphrase) is unknown.
                return self.stored_registration(&goal.urn, i);
            }
        };
        let already_deleted = old.is_some_and(|i| self.lock().dbr_deleted.contains(&i));
        let mut news = goal.inputs.clone();
        if old.is_some() {
            apply_ignore_changes(&mut news, &old_inputs, &goal.ignore_changes);
        }
        let check_olds = if already_deleted { PropertyMap::new() } else { old_inputs.clone() };
        let checked = match self.check(provider, goal, &check_olds, &news).await {
            Ok((c, failures)) if failures.is_empty() => Ok(c),
            Ok((_, failures)) => {
                Err((format!("Check failed: {}", failures.iter().map(|f| format!("`{}`: {}", f.property, f.reason)).collect::<Vec<_>>().join("; ")), failures))
            }
            Err(e) => Err((format!("Check failed: {e}"), Vec::new())),
        };
        let checked = match checked {
            Ok(c) => c,
            Err((message, failures)) => {
                let mut step = goal.step(if old.is_some() { StepOp::Update } else { StepOp::Create });
                step.error = Some(message);
                step.check_failures = failures;
                self.push(goal.seq, step);
                if let Some(i) = old.filter(|_| !already_deleted) {
                    self.keep_old(goal.seq, i);
                }
                if self.update_mode() {
                    self.fail();
                }
                return unknown(&goal.urn);
            }
        };
        let Some(i) = old else {
            let decision = engine_diff(&PropertyMap::new(), &checked, &[]);
            let mut step = goal.step(StepOp::Create);
            step.provider = Some(reference.clone());
            step.diffs = explain(&goal.inputs, &PropertyMap::new(), Some(&checked), &decision, &goal.ignore_changes, false);
            return self.finish_create(goal, step, checked, reference, provider).await;
        };
        if already_deleted {
            // A delete-before-replace of a dependency already deleted this one: re-create it.
            let mut step = goal.step(StepOp::CreateReplacement);
            step.provider = Some(reference.clone());
            step.old_id = self.olds[i].id.clone();
            let r = self.finish_create(goal, step, checked, reference, provider).await;
            let mut marker = goal.step(StepOp::Replace);
            marker.old_id = self.olds[i].id.clone();
            self.push(goal.seq, marker);
            return r;
        }
        let old_id = self.olds[i].id.clone().unwrap_or_default();
        let old_provider_urn = self.olds[i].provider().and_then(split_provider_reference).map(|(u, _)| u.to_string());
        let is_default = |u: &str| Urn::parse(u).is_some_and(|u| u.name.starts_with("default"));
        let provider_changed = match &old_provider_urn {
            Some(u) => u != &provider_ref.urn && !(is_default(u) && is_default(&provider_ref.urn)),
            None => false,
        };
        let decision = if provider_changed {
            DiffDecision { changed: vec!["provider".into()], replace_keys: vec!["provider".into()], ..Default::default() }
        } else {
            match self.diff(provider, &goal.urn, &goal.type_, &goal.name, &old_id, &old_outputs, &old_inputs, &checked, &goal.ignore_changes).await {
                Ok(d) => d,
                Err(e) => {
                    let mut step = goal.step(StepOp::Update);
                    step.error = Some(format!("Diff failed: {e}"));
                    self.push(goal.seq, step);
                    self.keep_old(goal.seq, i);
                    return unknown(&goal.urn);
                }
            }
        };
        if !decision.has_changes() {
            let mut step = goal.step(StepOp::Same);
            step.provider = Some(reference.clone());
            step.id = Some(old_id.clone());
            step.old_id = Some(old_id.clone());
            self.push(goal.seq, step);
            // Pulumi keeps the old outputs and records the new (checked) inputs.
            self.put(goal.seq, self.continued(i, goal, checked, old_outputs.clone(), Some(reference)));
            return Registered { urn: goal.urn.clone(), id: PropertyValue::String(old_id), outputs: old_outputs, complete: true };
        }
        let diffs = explain(&goal.inputs, &old_inputs, Some(&checked), &decision, &goal.ignore_changes, false);
        if !decision.replaces() {
            let mut step = goal.step(StepOp::Update);
            step.provider = Some(reference.clone());
            step.id = Some(old_id.clone());
            step.old_id = Some(old_id.clone());
            step.changed = decision.changed.clone();
            step.diffs = diffs;
            let mut outputs = old_outputs.clone();
            outputs.extend(checked.clone());
            if self.may_execute() {
                let wire = EncodeOptions::wire();
                let r = provider
                    .update(UpdateRequest {
                        id: old_id.clone(),
                        urn: goal.urn.clone(),
                        olds: Some(to_struct(&old_outputs, &wire)),
                        news: Some(to_struct(&checked, &wire)),
                        ignore_changes: goal.ignore_changes.clone(),
                        old_inputs: Some(to_struct(&old_inputs, &wire)),
                        name: goal.name.clone(),
                        r#type: goal.type_.clone(),
                        ..Default::default()
                    })
                    .await
                    .map_err(|e| plugin_message(&e))
                    .and_then(|r| from_struct(&r.properties.unwrap_or_default()).map_err(|e| e.to_string()));
                match r {
                    Ok(o) => {
                        self.lock().mutated = true;
                        outputs = o;
                    }
                    Err(e) => {
                        step.error = Some(format!("Update failed: {e}"));
                        self.fail();
                        self.push(goal.seq, step);
                        self.keep_old(goal.seq, i);
                        return unknown(&goal.urn);
                    }
                }
            } else if self.update_mode() {
                step.error = Some("not run: an earlier step failed".into());
                self.push(goal.seq, step);
                self.keep_old(goal.seq, i);
                return unknown(&goal.urn);
            }
            self.push(goal.seq, step);
            self.put(goal.seq, self.continued(i, goal, checked, outputs.clone(), Some(reference)));
            return Registered { urn: goal.urn.clone(), id: PropertyValue::String(old_id), outputs, complete: true };
        }
        // Replacement.
        let dbr = decision.delete_before_replace || goal.delete_before_replace;
        if self.olds[i].is_protected() {
            let mut step = goal.step(StepOp::Replace);
            step.old_id = Some(old_id);
            step.replace_keys = decision.replace_keys.clone();
            step.diffs = diffs;
            step.error =
                Some(format!("`{}` is protected: it must be replaced ({}), which needs `protect` removed first", goal.urn, decision.replace_keys.join(", ")));
            self.push(goal.seq, step);
            self.keep_old(goal.seq, i);
            return unknown(&goal.urn);
        }
        // A replacement's inputs are checked without the old ones (no reused generated names).
        let fresh = match self.check(provider, goal, &PropertyMap::new(), &news).await {
            Ok((c, f)) if f.is_empty() => c,
            _ => checked,
        };
        let mut create = goal.step(StepOp::CreateReplacement);
        create.provider = Some(reference.clone());
        create.old_id = Some(old_id.clone());
        create.delete_before_replace = dbr;
        create.changed = decision.changed.clone();
        create.replace_keys = decision.replace_keys.clone();
        create.diffs = diffs;
        let mut marker = goal.step(StepOp::Replace);
        marker.old_id = Some(old_id.clone());
        marker.delete_before_replace = dbr;
        marker.replace_keys = decision.replace_keys.clone();
        if dbr {
            // Dependents that must go first, deepest first, then the resource itself.
            let dependents = self.dbr_dependents(i).await;
            for &d in dependents.iter().rev() {
                let r = &self.olds[d];
                let mut del = Step::new(StepOp::DeleteReplaced, &r.urn, &r.type_, Urn::parse(&r.urn).map(|u| u.name).unwrap_or(""));
                del.old_id = r.id.clone();
                del.delete_before_replace = true;
                del.warnings.push(format!("replaced because `{}` is replaced delete-before-replace and this resource's inputs come from it", goal.urn));
                if r.is_protected() {
                    del.error = Some(format!("`{}` is protected and would have to be replaced", r.urn));
                }
                let ok = self.execute_delete(d, &mut del).await;
                self.push(goal.seq, del);
                if ok {
                    self.lock().dbr_deleted.insert(d);
                }
            }
            let mut del = goal.step(StepOp::DeleteReplaced);
            del.old_id = Some(old_id.clone());
            del.delete_before_replace = true;
            let ok = self.execute_delete(i, &mut del).await;
            self.push(goal.seq, del);
            if !ok {
                self.keep_old(goal.seq, i);
                return unknown(&goal.urn);
            }
            self.lock().dbr_deleted.insert(i);
            let r = self.finish_create(goal, create, fresh, reference, provider).await;
            self.push(goal.seq, marker);
            r
        } else {
            let r = self.finish_create(goal, create, fresh, reference, provider).await;
            self.push(goal.seq, marker);
            self.lock().replaced.push(i);
            r
        }
    }

    /// Records a create (or create-replacement) step, running Create in update mode.
    async fn finish_create(&self, goal: &Goal, mut step: Step, inputs: PropertyMap, reference: String, provider: &dyn Provider) -> Registered {
        if !self.update_mode() {
            self.push(goal.seq, step);
            self.put(goal.seq, goal.state(None, inputs.clone(), inputs.clone(), Some(reference)));
            return Registered { urn: goal.urn.clone(), id: PropertyValue::Computed, outputs: inputs, complete: false };
        }
        if !self.may_execute() {
            step.error = Some("not run: an earlier step failed".into());
            self.push(goal.seq, step);
            return unknown(&goal.urn);
        }
        match self.create(provider, goal, &inputs).await {
            Ok((id, outputs)) => {
                step.id = Some(id.clone());
                self.push(goal.seq, step);
                self.put(goal.seq, goal.state(Some(id.clone()), inputs, outputs.clone(), Some(reference)));
                Registered { urn: goal.urn.clone(), id: PropertyValue::String(id), outputs, complete: true }
            }
            Err(e) => {
                step.error = Some(format!("Create failed: {e}"));
                self.fail();
                self.push(goal.seq, step);
                unknown(&goal.urn)
            }
        }
    }

    /// Delete-before-replace of `root`: the old resources that must be replaced with it. Of
    /// those depending on it (transitively), only ones with a property dependency on a replaced
    /// resource count, and only when the provider's Diff — given unknowns for those properties —
    /// says they must be replaced.
    async fn dbr_dependents(&self, root: usize) -> Vec<usize> {
        let mut replaced: HashSet<&str> = HashSet::from([self.olds[root].urn.as_str()]);
        let mut out = Vec::new();
        for d in root + 1..self.olds.len() {
            let r = &self.olds[d];
            if r.is_pending_delete() || !r.is_custom() || self.lock().dbr_deleted.contains(&d) {
                continue;
            }
            let touches = r.dependency_urns().any(|u| replaced.contains(u));
            if !touches {
                continue;
            }
            let affected: Vec<String> = r
                .property_dependencies
                .iter()
                .flatten()
                .filter(|(_, urns)| urns.as_array().is_some_and(|a| a.iter().any(|u| u.as_str().is_some_and(|u| replaced.contains(u)))))
                .map(|(k, _)| k.clone())
                .collect();
            if affected.is_empty() {
                continue; // only `dependsOn`: its inputs do not change
            }
            let Ok((inputs, outputs)) = self.old_props(d) else { continue };
            let mut news = inputs.clone();
            for k in &affected {
                news.insert(k.clone(), PropertyValue::Computed);
            }
            let Ok(provider) = self.old_provider(d).await else { continue };
            let name = Urn::parse(&r.urn).map(|u| u.name.to_string()).unwrap_or_default();
            let decision = self.diff(provider.as_ref(), &r.urn, &r.type_, &name, r.id.as_deref().unwrap_or(""), &outputs, &inputs, &news, &[]).await;
            if decision.is_ok_and(|d| d.replaces()) {
                replaced.insert(r.urn.as_str());
                out.push(d);
            }
        }
        out
    }

    /// Deletions: replaced resources, then everything the program no longer declares, in
    /// reverse dependency order. Returns the steps, the new states and whether anything ran.
    /// In the imports scope, what the program does not declare is kept as it is, without a
    /// step, and counted (the fourth value).
    pub async fn finish(&self, outputs: &PropertyMap) -> (Vec<Step>, Vec<ResourceState>, bool, usize) {
        let imports_scope = self.options.scope == super::PlanScope::Imports;
        let mut untouched = 0;
        let end = usize::MAX / 2;
        let replaced: Vec<usize> = self.lock().replaced.clone();
        let replaced_set: HashSet<usize> = replaced.iter().copied().collect();
        let mut kept_olds: Vec<usize> = Vec::new();
        for &i in replaced.iter().rev() {
            let r = &self.olds[i];
            let mut step = Step::new(StepOp::DeleteReplaced, &r.urn, &r.type_, Urn::parse(&r.urn).map(|u| u.name).unwrap_or(""));
            step.old_id = r.id.clone();
            step.state_only = r.external == Some(true) || r.extra.get("retainOnDelete").and_then(|v| v.as_bool()) == Some(true);
            if !self.execute_delete(i, &mut step).await {
                kept_olds.push(i);
            }
            self.push(end, step);
        }
        let (claimed, dbr_deleted) = {
            let s = self.lock();
            (s.claimed.clone(), s.dbr_deleted.clone())
        };
        for (i, r) in self.olds.iter().enumerate().rev() {
            if claimed.contains_key(&i) || dbr_deleted.contains(&i) || replaced_set.contains(&i) {
                continue;
            }
            if imports_scope {
                self.untouched(end + 2, i);
                untouched += 1;
                continue;
            }
            let mut step = Step::new(StepOp::Delete, &r.urn, &r.type_, Urn::parse(&r.urn).map(|u| u.name).unwrap_or(""));
            step.old_id = r.id.clone();
            // Components, provider resources (the engine's own), external and retained
            // resources only leave the stack: no provider is asked to delete them.
            step.state_only =
                !r.is_custom() || r.is_provider() || r.external == Some(true) || r.extra.get("retainOnDelete").and_then(|v| v.as_bool()) == Some(true);
            if r.is_protected() {
                step.error = Some(format!("`{}` is protected: it cannot be deleted until `protect` is removed (it is no longer in the program)", r.urn));
            }
            if !self.execute_delete(i, &mut step).await {
                kept_olds.push(i);
            }
            self.push(end + 1, step);
        }
        let mut s = self.lock();
        s.steps.sort_by_key(|(k, _)| *k);
        s.states.sort_by_key(|(k, _)| *k);
        let steps: Vec<Step> = s.steps.drain(..).map(|(_, st)| st).collect();
        let mut states: Vec<ResourceState> = s.states.drain(..).map(|(_, st)| st).collect();
        if let Some(root) = states.iter_mut().find(|st| st.urn == self.root_urn) {
            if imports_scope && root.base.is_some() {
                // An import snippet does not own the stack's outputs.
                root.verbatim = true;
            } else {
                root.outputs = outputs.clone();
            }
        }
        // Resources not deleted (failed or refused deletes) stay as they were.
        kept_olds.sort();
        for i in kept_olds {
            drop(s);
            self.keep_old(end + 2, i);
            s = self.lock();
            let (_, st) = s.states.pop().expect("just put");
            states.push(st);
        }
        let mutated = s.mutated;
        drop(s);
        (steps, super::snapshot::dependency_order(states, self.olds), mutated, untouched)
    }
}

/// Copies the ignored properties' current values into the program's inputs (a path may reach
/// into objects: `tags.team`). An ignored property the resource does not have is removed.
pub fn apply_ignore_changes(news: &mut PropertyMap, olds: &PropertyMap, paths: &[String]) {
    for path in paths {
        let keys: Vec<&str> = path.split('.').collect();
        fn walk<'v>(m: &'v PropertyMap, keys: &[&str]) -> Option<&'v PropertyValue> {
            let v = m.get(keys[0])?;
            if keys.len() == 1 {
                return Some(v);
            }
            match v {
                PropertyValue::Object(inner) => walk(inner, &keys[1..]),
                _ => None,
            }
        }
        let old = walk(olds, &keys).cloned();
        let mut target = &mut *news;
        for (n, k) in keys.iter().enumerate() {
            if n + 1 == keys.len() {
                match &old {
                    Some(v) => {
                        target.insert(k.to_string(), v.clone());
                    }
                    None => {
                        target.remove(*k);
                    }
                }
                break;
            }
            let entry = target.entry(k.to_string()).or_insert_with(|| PropertyValue::Object(PropertyMap::new()));
            match entry {
                PropertyValue::Object(inner) => target = inner,
                _ => break,
            }
        }
    }
}

//! The step generator and executor: each registration is matched with its old state (by URN
//! or alias), turned into steps as Pulumi's registration design lays out (import cases 1–3,
//! same/update/replace with create-before-delete or delete-before-replace and its dependents,
//! reads, relinquishes and read replacements, deletions in reverse dependency order), and in
//! update mode executed against the provider. Registrations of one level run concurrently:
//! independent chains in parallel.
//!
//! This module is the core: the generator's state and the dispatch of each registration to its
//! step (`provider_calls`, `import_step`, `update_replace`, `finish`); `goal` is what a
//! registration is once evaluated.
//!
//! A goal from an import spec is a planned import (Pulumi's import deployment, `pulumi import
//! --file`): the same import step, with its inputs taken from what Read returned, and the
//! statuses only specs have (not-found, already-managed, conflict) instead of errors.

mod components;
mod finish;
mod goal;
mod identify_step;
mod import_step;
mod log;
mod provider_calls;
mod update_replace;

pub(crate) use goal::goal_seq;
pub use goal::{Goal, PlannedImport};
pub use update_replace::apply_ignore_changes;

use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};
use std::sync::{Arc, Mutex};

use ferry_rpc::pulumirpc::{
    CheckRequest, CreateRequest, DeleteRequest, DiffRequest, ReadRequest, UpdateRequest,
};
use ferry_state::deployment::Resource;
use ferry_state::urn::{split_provider_reference, Urn};
use tokio::sync::OnceCell;

use super::diff::{engine_diff, explain, from_response, shown_map, DiffDecision};
use super::eval::Registered;
use super::options::{DeployContext, DeployMode, DeployOptions, ImportStrategy, SkippedResource};
use super::step::{CheckFailure, ImportStatus, ResourceState, Step, StepOp};
use crate::plugin::PluginError;
use crate::provider::{Provider, ProviderInstance, ProviderSource};
use ferry_property::json::{decode_map, decode_value, DecodeOptions, EncodeOptions};
use ferry_property::wire::{from_struct, to_struct};
use ferry_property::{PropertyMap, PropertyValue};

use super::step::UNKNOWN_ID;
use log::StepLog;

/// The qualified type of a child of `parent_urn` (the parent's type joined with `$`, unless
/// the parent is the stack's root).
pub fn qualified_type(parent_urn: Option<&str>, type_: &str) -> String {
    match parent_urn.and_then(Urn::parse) {
        Some(p) if p.type_token() != "pulumi:pulumi:Stack" => {
            format!("{}${type_}", p.qualified_type)
        }
        _ => type_.to_string(),
    }
}

pub fn make_urn(
    stack: &str,
    project: &str,
    parent: Option<&str>,
    type_: &str,
    name: &str,
) -> String {
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

pub enum Outcome {
    Registered(Registered),
    Skipped(SkippedResource, Registered),
}

fn unknown(urn: &str) -> Registered {
    Registered {
        urn: urn.to_string(),
        id: PropertyValue::Computed,
        outputs: PropertyMap::new(),
        complete: false,
    }
}

pub struct Generator<'a> {
    ctx: &'a DeployContext<'a>,
    providers: &'a dyn ProviderSource,
    options: &'a DeployOptions,
    olds: &'a [Resource],
    live: HashMap<&'a str, usize>,
    root_urn: String,
    defaults: tokio::sync::Mutex<
        HashMap<(String, Option<String>), Arc<OnceCell<Result<ProviderRef, String>>>>,
    >,
    /// Package schemas (the minimal import strategy's required inputs), asked once per package.
    schemas:
        tokio::sync::Mutex<HashMap<String, Arc<OnceCell<Result<Arc<serde_json::Value>, String>>>>>,
    /// Import ID recipes by type (identification), read from the schemas once per type.
    recipes: Mutex<HashMap<String, Option<Arc<ferry_types::identify::IdRecipe>>>>,
    log: StepLog<'a>,
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

/// As Pulumi's engine does: an output whose input is secret is secret too, whatever the
/// provider answered (a provider that does not take secrets returns them plain). Every step
/// that records a provider's outputs (an import's Read, a Create, an Update) goes through it.
fn secret_where_inputs_are(inputs: &PropertyMap, mut outputs: PropertyMap) -> PropertyMap {
    for (key, input) in inputs {
        if input.is_secret() {
            if let Some(out) = outputs.get_mut(key).filter(|o| !o.is_secret()) {
                *out = PropertyValue::Secret(Box::new(std::mem::replace(out, PropertyValue::Null)));
            }
        }
    }
    outputs
}

fn plugin_message(e: &PluginError) -> String {
    e.to_string()
}

impl<'a> Generator<'a> {
    pub fn new(
        ctx: &'a DeployContext<'a>,
        providers: &'a dyn ProviderSource,
        options: &'a DeployOptions,
    ) -> Generator<'a> {
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
            .unwrap_or_else(|| {
                make_urn(
                    ctx.stack,
                    ctx.project,
                    None,
                    "pulumi:pulumi:Stack",
                    &format!("{}-{}", ctx.project, ctx.stack),
                )
            });
        Generator {
            ctx,
            providers,
            options,
            olds,
            live,
            root_urn,
            defaults: Default::default(),
            schemas: Default::default(),
            recipes: Default::default(),
            log: StepLog::new(options.progress.as_ref(), false),
        }
    }

    /// A generator for an import deployment (see `planned_only`).
    pub fn for_import(
        ctx: &'a DeployContext<'a>,
        providers: &'a dyn ProviderSource,
        options: &'a DeployOptions,
    ) -> Generator<'a> {
        let log = StepLog::new(options.progress.as_ref(), true);
        Generator { log, ..Generator::new(ctx, providers, options) }
    }

    fn update_mode(&self) -> bool {
        self.options.mode == DeployMode::Update
    }

    /// The status a planned import ended with, by its position in the spec.
    pub fn planned_status(&self, index: usize) -> Option<ImportStatus> {
        self.log.lock().planned.get(&index).copied()
    }

    /// The stack's root resource.
    pub fn root_urn(&self) -> &str {
        &self.root_urn
    }

    /// Whether update-mode execution may go on.
    fn may_execute(&self) -> bool {
        self.update_mode() && !self.log.lock().failed
    }

    fn old_props(&self, i: usize) -> Result<(PropertyMap, PropertyMap), String> {
        let r = &self.olds[i];
        let opts = DecodeOptions { decrypt: self.ctx.decrypt };
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
        let opts = DecodeOptions { decrypt: self.ctx.decrypt };
        let outputs: PropertyMap = r
            .outputs_map()
            .iter()
            .map(|(k, v)| {
                (
                    k.clone(),
                    decode_value(v, k, &opts)
                        .unwrap_or(PropertyValue::Secret(Box::new(PropertyValue::Computed))),
                )
            })
            .collect();
        let id = r.id.clone().map(PropertyValue::String).unwrap_or(PropertyValue::Computed);
        Registered { urn: urn.to_string(), id, outputs, complete: true }
    }

    /// The old state entry as a continuing state: same URN, options from the new goal.
    fn continued(
        &self,
        i: usize,
        goal: &Goal,
        inputs: PropertyMap,
        outputs: PropertyMap,
        provider: Option<String>,
    ) -> ResourceState {
        let mut s = goal.state(self.olds[i].id.clone(), inputs, outputs, provider);
        s.base = Some(i);
        s.import_id =
            self.olds[i].extra.get("importID").and_then(|v| v.as_str()).map(str::to_string);
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
                self.log.lock().claimed.insert(i, urn.clone());
                state.protect = self.olds[i].is_protected();
                self.log.push(0, Step::new(StepOp::Same, &urn, type_, &name));
            }
            None => self.log.push(0, Step::new(StepOp::Create, &urn, type_, &name)),
        }
        self.log.put(0, state);
    }

    /// Registers one level's goals (none waits for another's registration), at most the
    /// deployment's concurrency at once (the one bound on registrations in flight; levels run
    /// one after another), and answers each goal's outcome with its `tag`, in
    /// the goals' order. A registration's future is kilobytes, so each is made when its turn
    /// comes rather than all at once: 10,000 futures waiting for their turn held 95 MB of a
    /// 10,000-import preview (heaptrack, 2026-12-03). Each is boxed where it is made, so it is
    /// not copied whole on its way into the set that polls it.
    pub async fn register_level<T: Send>(&self, goals: Vec<(T, Goal)>) -> Vec<(T, Outcome)> {
        use futures_util::StreamExt;
        let mut done: Vec<(usize, T, Outcome)> =
            futures_util::stream::iter(goals.into_iter().enumerate())
                .map(|(n, (tag, goal))| {
                    Box::pin(async move { (n, tag, self.register(goal).await) })
                })
                .buffer_unordered(self.options.concurrency.max(1))
                .collect()
                .await;
        done.sort_unstable_by_key(|(n, _, _)| *n);
        done.into_iter().map(|(_, tag, outcome)| (tag, outcome)).collect()
    }

    async fn register(&self, mut goal: Goal) -> Outcome {
        // Old state: by URN, else by alias; several matches are an error.
        let mut matches: BTreeSet<usize> = BTreeSet::new();
        matches.extend(self.live.get(goal.urn.as_str()));
        for a in &goal.aliases {
            matches.extend(self.live.get(a.as_str()));
        }
        if matches.len() > 1 {
            let mut step = goal.step(StepOp::Same);
            let urns: Vec<&str> = matches.iter().map(|&i| self.olds[i].urn.as_str()).collect();
            step.error = Some(format!(
                "several resources in the stack match this one through its aliases: {}",
                urns.join(", ")
            ));
            self.log.push(goal.seq, step);
            return Outcome::Registered(unknown(&goal.urn));
        }
        let old = matches.first().copied();
        if let Some(i) = old {
            let mut s = self.log.lock();
            if let Some(other) = s.claimed.get(&i) {
                let message = format!("the stack's `{}` is already claimed by `{other}`: two resources have the same URN or alias", self.olds[i].urn);
                drop(s);
                let mut step = goal.step(StepOp::Same);
                step.error = Some(message);
                self.log.push(goal.seq, step);
                return Outcome::Registered(unknown(&goal.urn));
            }
            s.claimed.insert(i, goal.urn.clone());
        }
        if goal.planned.is_some() {
            return Outcome::Registered(self.register_planned(&goal, old).await);
        }
        if goal.type_.starts_with("pulumi:providers:") {
            return Outcome::Registered(self.register_provider(&goal, old));
        }
        let (provider_ref, provider) = match self.provider_for(&goal).await {
            Ok(p) => p,
            Err(e) => {
                let mut step = goal.step(if old.is_some() { StepOp::Same } else { StepOp::Create });
                step.error = Some(e);
                self.log.push(goal.seq, step);
                if let Some(i) = old {
                    self.keep_old(goal.seq, i);
                }
                return Outcome::Registered(unknown(&goal.urn));
            }
        };
        if goal.read.is_some() {
            return Outcome::Registered(
                self.read_resource(&goal, old, &provider_ref, provider.as_ref()).await,
            );
        }
        let identifying = self.options.identify.is_some() && goal.planned.is_none();
        if old.is_none() && goal.import_id.is_none() {
            if let Some(mapping) = &self.options.import_mapping {
                match mapping.get(&goal.name).filter(|id| !id.is_empty()) {
                    Some(id) => {
                        goal.import_id = Some(id.clone());
                        goal.attempt = identifying.then(|| {
                            identify_step::given_attempt(ferry_types::identify::IdSource::Mapping)
                        });
                    }
                    None => {
                        let skipped = SkippedResource {
                            name: goal.name.clone(),
                            type_: goal.type_.clone(),
                            urn: goal.urn.clone(),
                        };
                        return Outcome::Skipped(skipped, unknown(&goal.urn));
                    }
                }
            } else if identifying {
                let (attempt, id) = self.identify(&goal, provider.as_ref()).await;
                goal.attempt = Some(attempt);
                goal.import_id = id;
            }
        } else if old.is_none() && identifying {
            goal.attempt =
                Some(identify_step::given_attempt(ferry_types::identify::IdSource::Program));
        }
        if let Some(import_id) = goal.import_id.clone() {
            match old {
                None => {
                    return Outcome::Registered(
                        self.import(&goal, &import_id, None, &provider_ref, provider.as_ref())
                            .await,
                    )
                }
                Some(i) => {
                    let stored_import = self.olds[i].extra.get("importID").and_then(|v| v.as_str());
                    // A secret import ID (a password imported by its value) is not stored: the
                    // resource's secret outputs recognise it.
                    let secret_match = || {
                        self.old_props(i).is_ok_and(|(_, outputs)| {
                            outputs.values().any(|v| v.holds_secret_string(&import_id, false))
                        })
                    };
                    let same = self.olds[i].id.as_deref() == Some(import_id.as_str())
                        || stored_import == Some(import_id.as_str())
                        || secret_match();
                    if !same {
                        return Outcome::Registered(
                            self.import(
                                &goal,
                                &import_id,
                                Some(i),
                                &provider_ref,
                                provider.as_ref(),
                            )
                            .await,
                        );
                    }
                    // Case 2: already imported: treated like any other resource.
                }
            }
        }
        Outcome::Registered(self.update_or_same(&goal, old, &provider_ref, provider.as_ref()).await)
    }

    /// Keeps an old resource's state as it was (its registration failed).
    fn keep_old(&self, seq: usize, i: usize) {
        let (inputs, outputs) = self.old_props(i).unwrap_or_default();
        self.log.put(seq, self.old_state(i, inputs, outputs));
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
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_output_whose_input_is_secret_is_secret() {
        let secret = |v: &str| PropertyValue::Secret(Box::new(PropertyValue::String(v.into())));
        let inputs = PropertyMap::from([
            ("password".into(), secret("hunter2")),
            ("name".into(), PropertyValue::String("db".into())),
        ]);
        let outputs = PropertyMap::from([
            ("password".into(), PropertyValue::String("hunter2".into())),
            ("name".into(), PropertyValue::String("db".into())),
            ("arn".into(), PropertyValue::String("arn:db".into())),
        ]);
        let marked = secret_where_inputs_are(&inputs, outputs);
        assert_eq!(
            marked["password"],
            secret("hunter2"),
            "plain from the provider, secret in the state"
        );
        assert_eq!(marked["name"], PropertyValue::String("db".into()));
        assert_eq!(marked["arn"], PropertyValue::String("arn:db".into()));
        // Already secret: not wrapped twice.
        assert_eq!(secret_where_inputs_are(&inputs, marked.clone())["password"], secret("hunter2"));
    }
}

//! Discovery: what providers' `List` finds, and whether each find is already managed — by this
//! stack, by another stack Ferry holds, or by none — so that people can pick what to import
//! without knowing IDs up front.
//!
//! A discovery is a background job like a preview (`jobs.rs`, kept in the store): results are
//! kept as events, watched over server-sent events from any instance, and the job can be
//! cancelled. Nothing it does touches a stack.

use std::collections::BTreeSet;

use ferry_engine::inquiry::{self, ListCall};
use ferry_engine::plugin::PluginProviders;
use ferry_engine::provider::{Provider, ProviderInstance, ProviderSource};
use ferry_store::jobs::{JobKind, NewJob, StoredJob};
use ferry_types::discovery::{
    Discovered, DiscoveryEvent, DiscoveryRequest, DiscoveryView, ListInputs, ListSource,
    ListableType, Listables, Managed, ProbeItem, ProbeOutcome, ProbeResult, Selected, TypeQuery,
    UnlistablePackage,
};
use ferry_types::plans::PlanInput;
use serde_json::Value;

use crate::jobs::Jobs;
use crate::jobs::{parse_events, JobEnd, JobShown, JobSink};
use crate::plans::Plans;
use crate::plugin_host::PluginHost;
use crate::stack_secrets::StackSecrets;
use crate::stacks::Stacks;
use crate::{EngineSlot, ServiceError};

/// Discovery of what a provider can list (its `List`), and adding what it found to a plan: the
/// top of the domains, above plans.
#[derive(Clone)]
pub struct Discoveries {
    engine: EngineSlot,
    stacks: Stacks,
    plans: Plans,
    jobs: Jobs,
    plugins: PluginHost,
}

/// At most this many types of one package are asked `List` to learn whether it answers, when
/// the schema declares no list support.
const PROBED_TYPES: usize = 32;

/// A provider that keeps handing out new continuation tokens is stopped here.
const MAX_PAGES: usize = 100_000;

fn package_of(token: &str) -> &str {
    token.split(':').next().unwrap_or_default()
}

/// The provider a stack's resources of `package` use: the stack's default provider for it
/// (or its only one), with its inputs as configuration; otherwise an unconfigured one.
fn instance_for(
    package: &str,
    deployment: &ferry_state::Deployment,
    secrets: &StackSecrets,
) -> ProviderInstance {
    let token = format!("pulumi:providers:{package}");
    let providers: Vec<&ferry_state::deployment::Resource> =
        deployment.resources().iter().filter(|r| r.type_ == token).collect();
    let chosen = providers
        .iter()
        .find(|r| ferry_state::urn::name_of(&r.urn).starts_with("default"))
        .or(providers.first());
    match chosen {
        Some(r) => {
            let decrypt = |ct: &str| secrets.decrypt(ct);
            let opts = ferry_property::json::DecodeOptions { decrypt: Some(&decrypt) };
            let inputs =
                ferry_property::json::decode_map(&r.inputs_map(), "", &opts).unwrap_or_default();
            ProviderInstance {
                package: package.into(),
                version: ferry_engine::deploy::provider_version(&inputs),
                key: format!("{}::{}", r.urn, r.id.clone().unwrap_or_default()),
                config: ferry_engine::deploy::provider_config(&inputs),
            }
        }
        None => ProviderInstance {
            package: package.into(),
            version: None,
            key: format!("default:{package}"),
            config: Default::default(),
        },
    }
}

/// Valid, unique names for selected results: the List name (or the ID), reduced to letters,
/// digits, `-` and `_`, starting with a letter, suffixed `-2`, `-3`… when taken.
pub fn entry_names(selected: &[Selected], taken: &BTreeSet<String>) -> Vec<String> {
    let mut used = taken.clone();
    selected
        .iter()
        .map(|s| {
            let source = if s.name.trim().is_empty() { &s.id } else { &s.name };
            let mut base: String = source
                .chars()
                .map(|c| if c.is_ascii_alphanumeric() || c == '_' || c == '-' { c } else { '-' })
                .collect();
            base = base.trim_matches('-').to_string();
            while base.contains("--") {
                base = base.replace("--", "-");
            }
            if !base.starts_with(|c: char| c.is_ascii_alphabetic()) {
                let kind = s.type_.rsplit(':').next().unwrap_or("resource").to_ascii_lowercase();
                base = if base.is_empty() { kind } else { format!("{kind}-{base}") };
            }
            let mut name = base.clone();
            let mut n = 2;
            while used.contains(&name) {
                name = format!("{base}-{n}");
                n += 1;
            }
            used.insert(name.clone());
            name
        })
        .collect()
}

/// The spec `base` (or a new one) with the selected results added as entries; ones already in
/// it (same type and ID) are left out.
pub fn spec_with(base: Option<&str>, selected: &[Selected]) -> Result<String, ServiceError> {
    let mut root = match base.filter(|b| !b.trim().is_empty()) {
        Some(text) => ferry_engine::import_spec::read_spec_json(text)?,
        None => serde_json::json!({"resources": []}),
    };
    let resources = root
        .get_mut("resources")
        .and_then(Value::as_array_mut)
        .ok_or_else(|| ServiceError::Plan("the plan's spec has no `resources` list".into()))?;
    let present: BTreeSet<(String, String)> = resources
        .iter()
        .filter_map(|r| {
            Some((r.get("type")?.as_str()?.to_string(), r.get("id")?.as_str()?.to_string()))
        })
        .collect();
    let taken: BTreeSet<String> = resources
        .iter()
        .filter_map(|r| r.get("name").and_then(Value::as_str).map(str::to_string))
        .collect();
    let fresh: Vec<Selected> = selected
        .iter()
        .filter(|s| !present.contains(&(s.type_.clone(), s.id.clone())))
        .cloned()
        .collect();
    for (s, name) in fresh.iter().zip(entry_names(&fresh, &taken)) {
        resources.push(serde_json::json!({"type": s.type_, "name": name, "id": s.id}));
    }
    Ok(serde_json::to_string_pretty(&root).expect("JSON serialises"))
}

impl Discoveries {
    pub(crate) fn new(
        engine: EngineSlot,
        stacks: Stacks,
        plans: Plans,
        jobs: Jobs,
        plugins: PluginHost,
    ) -> Discoveries {
        Discoveries { engine, stacks, plans, jobs, plugins }
    }

    /// The resource types the stack's providers and the installed plugins can list.
    pub async fn listable_types(&self, stack_id: &str) -> Result<Listables, ServiceError> {
        let version = self.stacks.version(stack_id, None).await?;
        let secrets = StackSecrets::for_reading(&version.deployment, None).ok();
        let mut packages: BTreeSet<String> = version
            .deployment
            .resources()
            .iter()
            .filter_map(|r| r.type_.strip_prefix("pulumi:providers:").map(str::to_string))
            .collect();
        let config = self.engine.get()?.clone();
        packages.extend(
            ferry_engine::plugin::PluginSearch::from_env(config.plugin_dirs.clone())
                .installed_packages(),
        );
        let providers = self.plugins.providers(stack_id).await?;
        let mut result = Listables { types: Vec::new(), packages_without_list: Vec::new() };
        for package in packages {
            match listable_of(&package, &version.deployment, secrets.as_ref(), &providers).await {
                Ok(types) if !types.is_empty() => result.types.extend(types),
                Ok(_) => result.packages_without_list.push(UnlistablePackage {
                    package,
                    reason: "its provider has no List for any resource type".into(),
                }),
                Err(reason) => {
                    result.packages_without_list.push(UnlistablePackage { package, reason })
                }
            }
        }
        providers.shutdown().await;
        Ok(result)
    }

    /// Starts listing the requested types; results arrive as events.
    pub async fn start_discovery(
        &self,
        stack_id: &str,
        request: DiscoveryRequest,
    ) -> Result<DiscoveryView, ServiceError> {
        if request.types.is_empty() {
            return Err(ServiceError::Plan(
                "name at least one resource type to discover (`types`)".into(),
            ));
        }
        for (i, t) in request.types.iter().enumerate() {
            if t.type_.split(':').count() != 3 || t.type_.starts_with("pulumi:") {
                return Err(ServiceError::Plan(format!("types[{i}].type: `{}` is not a resource type token (`<package>:<module>:<Type>`)", t.type_)));
            }
            if t.limit.is_some_and(|l| l < 1) || t.page_size.is_some_and(|p| p < 1) {
                return Err(ServiceError::Plan(format!(
                    "types[{i}]: `limit` and `pageSize` are positive numbers"
                )));
            }
        }
        let version = self.stacks.version(stack_id, None).await?;
        let id = ferry_store::random_id();
        let stack_id = version.summary.id.clone();
        let types: Vec<String> = request.types.iter().map(|t| t.type_.clone()).collect();
        let detail = serde_json::to_string(&types).expect("strings serialise");
        let new = NewJob {
            id: &id,
            kind: JobKind::Discovery,
            stack_id: &stack_id,
            plan: None,
            total: 0,
            detail: Some(&detail),
        };
        let (service, stack) = (self.clone(), stack_id.clone());
        self.jobs
            .start_job(new, move |sink: JobSink<DiscoveryEvent>, _turn| {
                Box::pin(async move {
                    service.run_discovery(&stack, &request, &sink).await?;
                    Ok(JobEnd::default())
                })
            })
            .await?;
        self.jobs.get::<DiscoveryView>(&id, None).await
    }

    async fn run_discovery(
        &self,
        stack_id: &str,
        request: &DiscoveryRequest,
        report: &JobSink<DiscoveryEvent>,
    ) -> Result<(), ServiceError> {
        let version = self.stacks.version(stack_id, None).await?;
        let secrets = StackSecrets::for_reading(&version.deployment, None).ok();
        let providers = self.plugins.providers(stack_id).await?;
        for q in &request.types {
            // What this stack's organisation manages of the type (never another's).
            let index = self.stacks.managed_lookup(stack_id, &q.type_).await?;
            let package = package_of(&q.type_);
            let instance = match &secrets {
                Some(s) => instance_for(package, &version.deployment, s),
                None => ProviderInstance {
                    package: package.into(),
                    version: None,
                    key: format!("default:{package}"),
                    config: Default::default(),
                },
            };
            let provider = match providers.provider(&instance).await {
                Ok(p) => p,
                Err(e) => {
                    report(DiscoveryEvent::Failed {
                        type_: q.type_.clone(),
                        message: e.to_string(),
                    });
                    continue;
                }
            };
            let mut listed = 0;
            let outcome = list_all(provider.as_ref(), q, |found| {
                for (id, name) in found {
                    let managed = index.get(&id).cloned().unwrap_or(Managed::Unmanaged);
                    report(DiscoveryEvent::Result(Discovered {
                        type_: q.type_.clone(),
                        id,
                        name,
                        managed,
                    }));
                    listed += 1;
                }
                report(DiscoveryEvent::Page { type_: q.type_.clone(), listed });
            })
            .await;
            match outcome {
                Ok(ListEnd::Done) => {}
                Ok(ListEnd::Computed) => {
                    report(DiscoveryEvent::Computed { type_: q.type_.clone() })
                }
                Err(ListFailure::Unimplemented(message)) => {
                    report(DiscoveryEvent::NotListable { type_: q.type_.clone(), message })
                }
                Err(ListFailure::Other(message)) => {
                    report(DiscoveryEvent::Failed { type_: q.type_.clone(), message })
                }
            }
        }
        providers.shutdown().await;
        Ok(())
    }

    /// A quick `Read` of each item: is it there to import? Up to the engine's concurrency at
    /// once; answers in the items' order.
    pub async fn probe(
        &self,
        stack_id: &str,
        items: &[ProbeItem],
    ) -> Result<Vec<ProbeResult>, ServiceError> {
        use futures_util::StreamExt as _;
        let version = self.stacks.version(stack_id, None).await?;
        let secrets = StackSecrets::for_reading(&version.deployment, None).ok();
        let concurrency = self.engine.get()?.concurrency;
        let providers = self.plugins.providers(stack_id).await?;
        let probe_one = |item: &ProbeItem| {
            let package = package_of(&item.type_).to_string();
            let instance = match &secrets {
                Some(s) => instance_for(&package, &version.deployment, s),
                None => ProviderInstance {
                    package: package.clone(),
                    version: None,
                    key: format!("default:{package}"),
                    config: Default::default(),
                },
            };
            let providers = &providers;
            let item = item.clone();
            async move {
                let read = match providers.provider(&instance).await {
                    Ok(p) => inquiry::exists(p.as_ref(), &item.type_, &item.id)
                        .await
                        .map_err(|e| e.to_string()),
                    Err(e) => Err(e.to_string()),
                };
                let (outcome, message) = match read {
                    Ok(false) => (ProbeOutcome::NotFound, None),
                    Ok(true) => (ProbeOutcome::Found, None),
                    Err(e) => (ProbeOutcome::Failed, Some(e)),
                };
                ProbeResult { type_: item.type_, id: item.id, outcome, message }
            }
        };
        let results = futures_util::stream::iter(items.iter().map(probe_one))
            .buffered(concurrency.max(1))
            .collect::<Vec<_>>()
            .await;
        providers.shutdown().await;
        Ok(results)
    }

    /// Selected results as entries of a plan's spec: a new plan, or a new revision of
    /// `plan_id` (which must be a plan of this stack) keeping its program and options.
    /// `author` writes the plan or its revision.
    pub async fn add_discovered_to_plan(
        &self,
        author: &crate::access::Caller,
        stack_id: &str,
        selected: &[Selected],
        plan_id: Option<&str>,
    ) -> Result<crate::PlanView, ServiceError> {
        if selected.is_empty() {
            return Err(ServiceError::Plan("select at least one result to add to a plan".into()));
        }
        match plan_id {
            None => {
                let spec = spec_with(None, selected)?;
                self.plans
                    .create_plan(
                        author,
                        stack_id,
                        PlanInput {
                            title: None,
                            spec: Some(spec),
                            program: None,
                            options: Default::default(),
                        },
                    )
                    .await
            }
            Some(plan_id) => {
                let view = self.plans.plan_view(plan_id, None, false).await?;
                if view.plan.stack_id != stack_id {
                    return Err(ServiceError::Plan(format!(
                        "plan `{plan_id}` imports into another stack"
                    )));
                }
                let spec = spec_with(view.current.spec.as_deref(), selected)?;
                let input = PlanInput {
                    title: None,
                    spec: Some(spec),
                    program: view.current.program.clone(),
                    options: view.current.options.clone(),
                };
                self.plans.save_plan(author, plan_id, input).await
            }
        }
    }
}

impl JobShown for DiscoveryView {
    const KIND: JobKind = JobKind::Discovery;
    const END_WITH_EVENTS: bool = true;
    fn shown(job: StoredJob, events: Vec<String>) -> Result<DiscoveryView, ServiceError> {
        let events: Vec<DiscoveryEvent> = parse_events(events)?;
        let types =
            job.detail.as_deref().and_then(|d| serde_json::from_str(d).ok()).unwrap_or_default();
        Ok(DiscoveryView {
            status: job.status,
            id: job.id,
            stack_id: job.stack_id,
            types,
            found: events.iter().filter(|e| matches!(e, DiscoveryEvent::Result(_))).count(),
            events,
            error: job.error,
        })
    }
}

enum ListEnd {
    Done,
    Computed,
}

enum ListFailure {
    Unimplemented(String),
    Other(String),
}

/// Pages through `List` for one type, handing each page's `(id, name)` results on.
async fn list_all(
    provider: &dyn Provider,
    q: &TypeQuery,
    mut on_page: impl FnMut(Vec<(String, String)>),
) -> Result<ListEnd, ListFailure> {
    let mut continuation = String::new();
    let mut listed: i64 = 0;
    let mut nameless = 0usize;
    for _ in 0..MAX_PAGES {
        let call = ListCall {
            token: &q.type_,
            query: Some(&q.query),
            limit: q.limit.map(|l| l - listed).unwrap_or(0),
            page_size: q.page_size.unwrap_or(100),
            continuation: &continuation,
        };
        let page = inquiry::list_page(provider, call).await.map_err(|e| match &e {
            ferry_engine::plugin::PluginError::Call { code, .. } if code == "Unimplemented" => {
                ListFailure::Unimplemented(format!(
                    "the `{}` provider has no List for {}",
                    package_of(&q.type_),
                    q.type_
                ))
            }
            _ => ListFailure::Other(e.to_string()),
        })?;
        // A result without an ID cannot be imported or matched: left out, and said.
        nameless += page.nameless;
        let (mut found, next, computed) = (page.results, page.continuation, page.computed);
        if let Some(limit) = q.limit {
            found.truncate((limit - listed).max(0) as usize);
        }
        listed += found.len() as i64;
        on_page(found);
        if computed {
            return Ok(ListEnd::Computed);
        }
        match next {
            Some(token) if !token.is_empty() && token != continuation && q.limit.is_none_or(|l| listed < l) => continuation = token,
            _ if nameless > 0 => {
                return Err(ListFailure::Other(format!(
                    "the `{}` provider listed {nameless} result(s) of {} without an ID; they were left out",
                    package_of(&q.type_),
                    q.type_
                )))
            }
            _ => return Ok(ListEnd::Done),
        }
    }
    Err(ListFailure::Other(format!(
        "the `{}` provider was still paging {} after {MAX_PAGES} pages; set a limit",
        package_of(&q.type_),
        q.type_
    )))
}

/// The listable types of one package: those its schema gives `listInputs`, or (when it gives
/// none) those whose `List` answers with anything but Unimplemented.
async fn listable_of(
    package: &str,
    deployment: &ferry_state::Deployment,
    secrets: Option<&StackSecrets>,
    providers: &PluginProviders,
) -> Result<Vec<ListableType>, String> {
    let schema = providers.schema(package, None).await.map_err(|e| e.to_string())?;
    let schema: Value =
        serde_json::from_str(&schema).map_err(|e| format!("its schema is not JSON: {e}"))?;
    let resources = schema.get("resources").and_then(Value::as_object).cloned().unwrap_or_default();
    let declared: Vec<ListableType> = resources
        .iter()
        .filter_map(|(token, spec)| {
            let inputs = spec.get("listInputs")?;
            Some(ListableType {
                type_: token.clone(),
                package: package.into(),
                // A filter the schema writes in another shape is not offered: the type is
                // still listed whole (`List` takes no filter then).
                list_inputs: serde_json::from_value(inputs.clone()).unwrap_or_default(),
                source: ListSource::Schema,
            })
        })
        .collect();
    if !declared.is_empty() {
        return Ok(declared);
    }
    let instance = match secrets {
        Some(s) => instance_for(package, deployment, s),
        None => ProviderInstance {
            package: package.into(),
            version: None,
            key: format!("default:{package}"),
            config: Default::default(),
        },
    };
    let provider = providers.provider(&instance).await.map_err(|e| e.to_string())?;
    let mut found = Vec::new();
    for token in resources.keys().take(PROBED_TYPES) {
        let call = ListCall { token, query: None, limit: 1, page_size: 1, continuation: "" };
        match inquiry::list_page(provider.as_ref(), call).await {
            Err(ferry_engine::plugin::PluginError::Call { code, .. })
                if code == "Unimplemented" => {}
            Err(_) | Ok(_) => found.push(ListableType {
                type_: token.clone(),
                package: package.into(),
                list_inputs: ListInputs::default(),
                source: ListSource::Probe,
            }),
        }
    }
    Ok(found)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sel(type_: &str, id: &str, name: &str) -> Selected {
        Selected { type_: type_.into(), id: id.into(), name: name.into() }
    }

    #[test]
    fn names_are_valid_and_unique() {
        let taken: BTreeSet<String> = ["app".to_string()].into();
        let names = entry_names(
            &[
                sel("postgresql:index/role:Role", "app", "app"),
                sel("postgresql:index/role:Role", "app2", "app"),
                sel("postgresql:index/schema:Schema", "db.public", "db_public"),
                sel("postgresql:index/database:Database", "1st db", ""),
            ],
            &taken,
        );
        assert_eq!(names, ["app-2", "app-3", "db_public", "database-1st-db"]);
    }

    #[test]
    fn a_spec_gains_only_what_it_lacks() {
        let base = r#"{"resources": [{"type": "postgresql:index/role:Role", "name": "app", "id": "app"}]}"#;
        let spec = spec_with(
            Some(base),
            &[
                sel("postgresql:index/role:Role", "app", "app"),
                sel("postgresql:index/role:Role", "ops", "ops"),
            ],
        )
        .unwrap();
        let parsed = ferry_engine::import_spec::parse_import_spec(&spec).unwrap();
        let ids: Vec<_> = parsed.file.resources.iter().map(|r| r.id.clone().unwrap()).collect();
        assert_eq!(ids, ["app", "ops"]);
    }
}

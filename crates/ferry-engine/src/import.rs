//! Import specs run as a deployment, as Pulumi runs `pulumi import --file`: each entry becomes a
//! planned import goal through [`crate::deploy`]'s step generator (the one import step: Read →
//! Check → Diff), parents and providers first, and the result is the same
//! [`DeploymentPlan`](crate::deploy::DeploymentPlan) value a program's preview is.
//! [`SpecPreview`] is the spec's view of that plan: one row per entry with its status. Nothing
//! here writes to a stack, and nothing of the stack is deleted or decoded.

use std::collections::{BTreeMap, HashMap};

use ferry_state::Deployment;
use serde_json::Value;

use crate::deploy::generator::{
    make_urn, provider_config, provider_version, Generator, Goal, Outcome, PlannedImport,
    ProviderRef,
};
pub use crate::deploy::ImportStrategy;
use crate::deploy::{DeployContext, DeployMode, DeployOptions, Deployed, ImportStatus, PlanScope};
use crate::import_spec::{EntryRef, ImportSpec};
use crate::provider::ProviderSource;
use ferry_property::json::{decode_map, DecodeOptions};
use ferry_property::{PropertyMap, PropertyValue};
/// A spec's view of its plan is the protocol's.
pub use ferry_types::deployment::{PlannedResource, SpecPreview};

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

/// Runs `spec` against the stack as an import deployment (a preview: nothing is created,
/// changed or deleted). Never fails as a whole: each entry ends with a status on its step.
pub async fn preview_import(
    spec: &ImportSpec,
    stack: &StackContext<'_>,
    providers: &dyn ProviderSource,
    options: ImportOptions,
) -> Deployed {
    let config = BTreeMap::new();
    let ctx = DeployContext {
        organization: "organization",
        project: stack.project,
        stack: stack.stack,
        deployment: stack.deployment,
        config: &config,
        decrypt: None,
    };
    let deploy_options = DeployOptions {
        mode: DeployMode::Preview,
        // A spec names what to import: the rest of the stack stays exactly as it is.
        scope: PlanScope::Imports,
        concurrency: options.concurrency,
        import_mapping: None,
        progress: options.progress.clone(),
        import_prior: None,
        identify: None,
    };
    let generator = Generator::for_import(&ctx, providers, &deploy_options);
    generator.register_root().await;
    let root = generator.root_urn().to_string();
    let entries = &spec.file.resources;

    // URNs, parents first (a child's URN carries its parent's type).
    let mut urns: Vec<String> = vec![String::new(); entries.len()];
    let mut parents: Vec<String> = vec![String::new(); entries.len()];
    for &i in &spec.order {
        let parent = match &spec.parents[i] {
            Some(EntryRef::Entry(j)) => urns[*j].clone(),
            Some(EntryRef::Urn(u)) => u.clone(),
            None => root.clone(),
        };
        urns[i] = make_urn(
            stack.stack,
            stack.project,
            Some(&parent),
            &entries[i].type_,
            entries[i].urn_name(),
        );
        parents[i] = parent;
    }
    // Levels: each entry after the entries it names as parent or provider; a level's entries
    // register at once (the generator bounds how many are in flight).
    let position: HashMap<usize, usize> =
        spec.order.iter().enumerate().map(|(n, &i)| (i, n)).collect();
    let mut level = vec![0usize; entries.len()];
    let mut levels: Vec<Vec<usize>> = Vec::new();
    for &i in &spec.order {
        let l = [&spec.parents[i], &spec.providers[i]]
            .into_iter()
            .filter_map(|r| match r {
                Some(EntryRef::Entry(j)) => Some(level[*j] + 1),
                _ => None,
            })
            .max()
            .unwrap_or(0);
        level[i] = l;
        if levels.len() <= l {
            levels.resize(l + 1, Vec::new());
        }
        levels[l].push(i);
    }

    let live = stack.deployment.reference_index();
    let resources = stack.deployment.resources();
    let plain = DecodeOptions::default();
    let decode = |m: Option<&serde_json::Map<String, Value>>| {
        m.map(|m| decode_map(m, "", &plain)).transpose().map(Option::unwrap_or_default)
    };
    let mut registered: Vec<Option<ProviderRef>> = vec![None; entries.len()];
    for entries_of_level in &levels {
        let mut goals = Vec::new();
        for &i in entries_of_level {
            let e = &entries[i];
            let package = e.type_.split(':').next().unwrap_or("");
            let provider_type = format!("pulumi:providers:{package}");
            let mut problem: Option<String> = None;
            // A resource whose parent or provider entry is not imported cannot be either.
            for (reference, what) in
                [(&spec.parents[i], "parent"), (&spec.providers[i], "provider")]
            {
                if let Some(EntryRef::Entry(j)) = reference {
                    let status = generator.planned_status(*j);
                    if !status.is_some_and(|s| s.is_ready() || s == ImportStatus::AlreadyManaged) {
                        let shown =
                            status.map(|s| s.to_string()).unwrap_or_else(|| "failed".into());
                        problem.get_or_insert(format!(
                            "its {what} `{}` is not imported ({shown})",
                            entries[*j].name
                        ));
                    }
                }
            }
            let provider = if e.component || e.is_provider() {
                None
            } else {
                match &spec.providers[i] {
                    Some(EntryRef::Entry(j)) if entries[*j].type_ != provider_type => {
                        problem = Some(format!(
                            "provider `{}` is a `{}`, but `{}` needs a `{provider_type}`",
                            entries[*j].name, entries[*j].type_, e.type_
                        ));
                        None
                    }
                    Some(EntryRef::Entry(j)) => registered[*j].clone(),
                    Some(EntryRef::Urn(u)) => match live
                        .get(u.as_str())
                        .map(|&k| &resources[k])
                        .filter(|r| !r.is_pending_delete())
                    {
                        Some(p) if p.type_ != provider_type => {
                            problem = Some(format!(
                                "provider `{u}` is a `{}`, but `{}` needs a `{provider_type}`",
                                p.type_, e.type_
                            ));
                            None
                        }
                        Some(p) => {
                            // Provider configuration rarely holds secrets; one that does not decode
                            // without the passphrase configures nothing rather than failing.
                            let inputs = decode(Some(&p.inputs_map())).unwrap_or_default();
                            Some(ProviderRef {
                                urn: p.urn.clone(),
                                id: PropertyValue::String(p.id().unwrap_or_default().to_string()),
                                version: provider_version(&inputs),
                                config: provider_config(&inputs),
                            })
                        }
                        None => {
                            problem = Some(format!("provider `{u}` is not in the stack"));
                            None
                        }
                    },
                    None => None,
                }
            };
            let inputs = match decode(e.inputs.as_ref()) {
                Ok(m) => m,
                Err(err) => {
                    problem.get_or_insert(format!("inputs: {err}"));
                    PropertyMap::new()
                }
            };
            let given_outputs = match decode(e.outputs.as_ref()) {
                Ok(m) => e.outputs.as_ref().map(|_| m),
                Err(err) => {
                    problem.get_or_insert(format!("given outputs: {err}"));
                    None
                }
            };
            let goal = Goal {
                seq: position[&i] + 2,
                key: e.name.clone(),
                name: e.urn_name().to_string(),
                pos: Default::default(),
                type_: e.type_.clone(),
                urn: urns[i].clone(),
                parent: Some(parents[i].clone()),
                provider,
                version: e.version.clone(),
                inputs,
                property_dependencies: BTreeMap::new(),
                dependencies: Vec::new(),
                // Imported resources are protected, as `pulumi import` protects them.
                protect: !e.component && !e.is_provider(),
                delete_before_replace: false,
                retain_on_delete: false,
                ignore_changes: Vec::new(),
                import_id: e.id.clone().filter(|id| !id.is_empty()),
                aliases: Vec::new(),
                read: None,
                planned: Some(PlannedImport {
                    index: i,
                    properties: e.properties.clone(),
                    strategy: options.strategy,
                    component: e.component,
                    given_outputs,
                }),
                attempt: None,
            };
            match problem {
                Some(message) => {
                    let old = live
                        .get(goal.urn.as_str())
                        .copied()
                        .filter(|&k| !resources[k].is_pending_delete());
                    generator.planned_failure(&goal, ImportStatus::Failed, message, old);
                }
                None => {
                    let tag = (i, goal.version.clone(), provider_config(&goal.inputs));
                    goals.push((tag, goal));
                }
            }
        }
        for ((i, version, config), outcome) in generator.register_level(goals).await {
            let (Outcome::Registered(r) | Outcome::Skipped(_, r)) = outcome;
            if entries[i].is_provider() && r.complete {
                registered[i] = Some(ProviderRef { urn: r.urn, id: r.id, config, version });
            }
        }
    }
    crate::deploy::finish_plan(
        &generator,
        &ctx,
        &deploy_options,
        &PropertyMap::new(),
        Vec::new(),
        Vec::new(),
    )
    .await
}

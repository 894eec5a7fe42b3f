//! Deployments of Pulumi YAML programs against a stack, as Pulumi's engine runs them: the
//! program is evaluated (the resource monitor's side, [`eval`]), each resource registration
//! becomes steps ([`generator`]), and, only in [`DeployMode::Update`], the steps are executed
//! against the providers. The result is a [`DeploymentPlan`] (a value: shown, stored, shared)
//! and the resource states a commit would write ([`snapshot`]).
//!
//! Architecture Invariant: a preview calls only the providers' read-only methods (`Read`,
//! `Check`, `Diff`, `GetSchema`); `Create`, `Update` and `Delete` run in update mode only.

pub mod diff;
pub mod eval;
pub(crate) mod generator;
pub mod mapping;
mod options;
pub mod schema;
pub mod snapshot;
pub mod step;

use std::collections::{BTreeMap, BTreeSet, HashMap};

pub use eval::ConfigValue;
use eval::{Registered, Scope};
/// The plan is the protocol's value: the engine makes it, the service stores it, clients read it.
pub use ferry_types::deployment::DeploymentPlan;
pub use generator::{provider_config, provider_version};
use generator::{Generator, Goal};
pub use options::{
    Decrypt, DeployContext, DeployMode, DeployOptions, Identify, ImportStrategy, PlanScope,
    PriorComponent, PriorState, SkippedResource,
};
pub use step::{
    CheckFailure, DiffCause, DiffKind, ImportStatus, PropertyDiff, ResourceState, Step, StepOp,
};

use crate::program::{Diagnostic, Program, ProgramError};
use crate::provider::ProviderSource;
use ferry_property::{PropertyMap, PropertyValue};

/// What a deployment produced.
pub struct Deployed {
    pub plan: DeploymentPlan,
    /// The stack's resources afterwards, in dependency order (only meaningful when every step
    /// succeeded, or in update mode, where it records what was done).
    pub states: Vec<ResourceState>,
    /// Whether any provider's Create, Update or Delete ran.
    pub mutated: bool,
    /// The program's outputs with secrets intact (stored on the stack's root resource).
    pub outputs: PropertyMap,
}

/// Runs `program` against the stack. Fails as a whole only for problems found before any
/// resource is registered (unknown types or properties against the providers' schemas, missing
/// config); problems with single resources are errors on their steps.
pub async fn deploy(
    program: &Program,
    ctx: &DeployContext<'_>,
    providers: &dyn ProviderSource,
    options: &DeployOptions,
) -> Result<Deployed, ProgramError> {
    let types = schema::resolve_types(program, providers).await?;
    let mut scope = Scope {
        stack: ctx.stack.to_string(),
        project: ctx.project.to_string(),
        organization: ctx.organization.to_string(),
        config: HashMap::new(),
        variables: HashMap::new(),
        resources: HashMap::new(),
        raw_config: ctx.config.clone(),
    };
    let mut config_errors = Vec::new();
    for decl in &program.config {
        let given = ctx
            .config
            .get(&decl.key)
            .or_else(|| ctx.config.get(&format!("{}:{}", ctx.project, decl.key)));
        let value = match (given, &decl.default) {
            (Some(c), _) => Scope::typed_config(&decl.key, &c.value, decl.type_.as_deref())
                .map(|v| (v, c.secret)),
            (None, Some(default)) => {
                scope.eval(default, &mut BTreeSet::new()).map(|v| (v, false)).map_err(|(_, m)| m)
            }
            (None, None) => Err(format!(
                "config `{}` is required and not set (`pulumi config set {}{} <value>`)",
                decl.key,
                decl.key,
                if decl.secret { " --secret" } else { "" }
            )),
        };
        match value {
            Ok((v, secret)) => {
                let v = if secret || decl.secret { PropertyValue::Secret(Box::new(v)) } else { v };
                scope.config.insert(decl.key.clone(), v);
            }
            Err(message) => config_errors.push(program.diagnostic(
                decl.pos,
                format!("config.{}", decl.key),
                message,
            )),
        }
    }
    if !config_errors.is_empty() {
        return Err(ProgramError { diagnostics: config_errors });
    }

    stack_references(program, ctx, options.scope, &mut scope)?;

    let generator = Generator::new(ctx, providers, options);
    let mut errors: Vec<Diagnostic> = Vec::new();
    let mut skipped = Vec::new();
    generator.register_root().await;

    // Levels: each node after everything it refers to; a level's resources register at once.
    let by_name: HashMap<&str, (bool, usize)> = program
        .variables
        .iter()
        .enumerate()
        .map(|(i, v)| (v.name.as_str(), (false, i)))
        .chain(program.resources.iter().enumerate().map(|(i, r)| (r.name.as_str(), (true, i))))
        .collect();
    let mut level: HashMap<(bool, usize), usize> = HashMap::new();
    let mut levels: Vec<Vec<(bool, usize)>> = Vec::new();
    for &node in &program.order {
        let refs: Vec<&str> = if node.0 {
            program.resources[node.1].references().into_iter().collect()
        } else {
            program.variables[node.1]
                .value
                .references()
                .into_iter()
                .map(|r| r.root.as_str())
                .collect()
        };
        let l = refs
            .iter()
            .filter_map(|n| by_name.get(n))
            .filter_map(|d| level.get(d))
            .map(|l| l + 1)
            .max()
            .unwrap_or(0);
        level.insert(node, l);
        if levels.len() <= l {
            levels.resize(l + 1, Vec::new());
        }
        levels[l].push(node);
    }
    let seq_of: HashMap<(bool, usize), usize> =
        program.order.iter().enumerate().map(|(i, n)| (*n, i)).collect();
    let placed = place_in_components(program, options, &generator);
    for nodes in &levels {
        for &(is_resource, i) in nodes {
            if is_resource {
                continue;
            }
            let v = &program.variables[i];
            match scope.eval(&v.value, &mut BTreeSet::new()) {
                Ok(value) => {
                    scope.variables.insert(v.name.clone(), value);
                }
                Err((pos, message)) => {
                    errors.push(program.diagnostic(pos, format!("variables.{}", v.name), message));
                    scope.variables.insert(v.name.clone(), PropertyValue::Computed);
                }
            }
        }
        let mut goals = Vec::new();
        for &(is_resource, i) in nodes {
            if !is_resource {
                continue;
            }
            let decl = &program.resources[i];
            let component = placed.get(&i).map(String::as_str);
            match Goal::build(program, decl, &types[i], &scope, seq_of[&(true, i)], component) {
                Ok(goal) => goals.push((goal.key.clone(), goal)),
                Err(diagnostic) => {
                    errors.push(diagnostic);
                    scope.resources.insert(
                        decl.name.clone(),
                        Registered {
                            urn: String::new(),
                            id: PropertyValue::Computed,
                            outputs: PropertyMap::new(),
                            complete: false,
                        },
                    );
                }
            }
        }
        for (name, outcome) in generator.register_level(goals).await {
            match outcome {
                generator::Outcome::Registered(r) => {
                    scope.resources.insert(name, r);
                }
                generator::Outcome::Skipped(s, r) => {
                    skipped.push(s);
                    scope.resources.insert(name, r);
                }
            }
        }
    }
    let mut outputs = PropertyMap::new();
    for (name, pos, e) in &program.outputs {
        match scope.eval(e, &mut BTreeSet::new()) {
            Ok(v) => {
                outputs.insert(name.clone(), v);
            }
            Err((p, message)) => errors.push(program.diagnostic(
                if p.line > 0 { p } else { *pos },
                format!("outputs.{name}"),
                message,
            )),
        }
    }
    Ok(finish_plan(&generator, ctx, options, &outputs, errors, skipped).await)
}

/// Registers the components prior states place resources in (each once, before the first of
/// its resources in program order, so a parent precedes its children in state), and answers
/// each such resource's parent: the innermost component's URN, by the resource's index. A
/// resource the program gives a parent keeps it.
fn place_in_components(
    program: &Program,
    options: &DeployOptions,
    generator: &Generator<'_>,
) -> HashMap<usize, String> {
    let mut placed = HashMap::new();
    let Some(prior) = &options.import_prior else { return placed };
    for (seq, &(is_resource, i)) in program.order.iter().enumerate() {
        let Some(decl) = is_resource.then(|| &program.resources[i]) else { continue };
        if decl.options.parent.is_some() {
            continue;
        }
        match prior.get(decl.logical_name()) {
            Some(p) if !p.components.is_empty() => {
                let seq = generator::goal_seq(seq);
                placed.insert(i, generator.register_components(seq, &p.components));
            }
            _ => {}
        }
    }
    placed
}

/// Ends a deployment: deletions (or, in the imports scope, the untouched rest of the stack), and
/// the [`DeploymentPlan`] value with every step in order.
pub(crate) async fn finish_plan(
    generator: &Generator<'_>,
    ctx: &DeployContext<'_>,
    options: &DeployOptions,
    outputs: &PropertyMap,
    mut errors: Vec<Diagnostic>,
    skipped: Vec<SkippedResource>,
) -> Deployed {
    let (steps, states, mutated, untouched) = generator.finish(outputs).await;
    let mut counts = BTreeMap::new();
    for s in &steps {
        *counts.entry(s.op).or_insert(0) += 1;
    }
    errors.sort_by_key(|d| (d.line, d.column));
    let plan = DeploymentPlan {
        stack: format!("{}/{}", ctx.project, ctx.stack),
        mode: options.mode,
        scope: options.scope,
        steps,
        untouched,
        counts,
        outputs: outputs.iter().map(|(k, v)| (k.clone(), diff::shown(v))).collect(),
        errors,
        skipped,
    };
    Deployed { plan, states, mutated, outputs: outputs.clone() }
}

/// Makes the stack's resources that the program names by URN (`parent`, `provider`,
/// `dependsOn`) known to the evaluation, as registered resources with their stored outputs.
/// Only an imports-scope plan may name them: in a whole-stack plan they would be deleted.
fn stack_references(
    program: &Program,
    ctx: &DeployContext<'_>,
    scope_kind: PlanScope,
    scope: &mut Scope,
) -> Result<(), ProgramError> {
    let mut wanted: Vec<(&crate::program::ResourceDecl, &'static str, &str)> = Vec::new();
    for decl in &program.resources {
        let o = &decl.options;
        wanted.extend(o.parent.iter().map(|t| (decl, "parent", t.as_str())));
        wanted.extend(o.provider.iter().map(|t| (decl, "provider", t.as_str())));
        wanted.extend(o.depends_on.iter().map(|t| (decl, "dependsOn", t.as_str())));
    }
    wanted.retain(|(_, _, t)| crate::program::is_stack_reference(t));
    if wanted.is_empty() {
        return Ok(());
    }
    let index = ctx.deployment.reference_index();
    let resources = ctx.deployment.resources();
    let decode = ferry_property::json::DecodeOptions { decrypt: ctx.decrypt };
    let mut diagnostics = Vec::new();
    for (decl, option, urn) in wanted {
        let pos = decl.options_pos.get(option).copied().unwrap_or(decl.pos);
        let path = format!("resources.{}.options.{option}", decl.name);
        if scope_kind != PlanScope::Imports {
            diagnostics.push(program.diagnostic(
                pos,
                path,
                format!("`{urn}` is a resource of the stack outside the program; only a plan in the `imports` scope may name one (in the `whole-stack` scope it would be deleted)"),
            ));
            continue;
        }
        let Some(r) = index.get(urn).map(|&i| &resources[i]).filter(|r| !r.is_pending_delete())
        else {
            diagnostics.push(program.diagnostic(
                pos,
                path,
                format!("`{urn}` is not a resource in the stack"),
            ));
            continue;
        };
        if option == "provider" && !r.is_provider() {
            diagnostics.push(program.diagnostic(
                pos,
                path,
                format!(
                    "`{urn}` is a `{}`, not a provider (`pulumi:providers:<package>`)",
                    r.type_
                ),
            ));
            continue;
        }
        if scope.resources.contains_key(urn) {
            continue;
        }
        let outputs = match ferry_property::json::decode_map(&r.outputs_map(), "", &decode) {
            Ok(o) => o,
            Err(e) => {
                diagnostics.push(program.diagnostic(
                    pos,
                    path,
                    format!("the stack's outputs of `{urn}` do not decode: {e}"),
                ));
                continue;
            }
        };
        let id = r
            .id()
            .map(|i| PropertyValue::String(i.to_string()))
            .unwrap_or(PropertyValue::String(String::new()));
        scope.resources.insert(
            urn.to_string(),
            Registered { urn: urn.to_string(), id, outputs, complete: true },
        );
    }
    if diagnostics.is_empty() {
        Ok(())
    } else {
        Err(ProgramError { diagnostics })
    }
}

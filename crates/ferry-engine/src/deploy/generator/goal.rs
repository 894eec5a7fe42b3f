//! A goal: one resource registration, evaluated (its URN, parent, provider, inputs and
//! options), or one entry of an import spec as a planned import.

use std::collections::{BTreeMap, BTreeSet};

use ferry_property::{PropertyMap, PropertyValue};

use super::{make_urn, provider_config, provider_version, ProviderRef};
use crate::deploy::eval::Scope;
use crate::deploy::options::ImportStrategy;
use crate::deploy::schema::ResolvedType;
use crate::deploy::step::{ResourceState, Step, StepOp};
use crate::program::{AliasSpec, Diagnostic, Pos, Program, ResourceDecl};

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
#[derive(Clone)]
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
    /// An identifying preview's attempt at this goal (kept on every step it makes).
    pub attempt: Option<ferry_types::identify::IdAttempt>,
}

/// A goal's sequence (its place among the steps and states) from its place in the program's
/// order: after the stack's root (0) and the default providers (1).
pub(crate) fn goal_seq(order: usize) -> usize {
    order + 2
}

impl Goal {
    /// The goal of `decl`; `component` is the parent a prior state places it under, used when
    /// the program gives it none.
    pub fn build(
        program: &Program,
        decl: &ResourceDecl,
        resolved: &ResolvedType,
        scope: &Scope,
        seq: usize,
        component: Option<&str>,
    ) -> Result<Goal, Diagnostic> {
        let path = format!("resources.{}", decl.name);
        let err =
            |pos: Pos, sub: &str, m: String| program.diagnostic(pos, format!("{path}{sub}"), m);
        let urn_of = |name: &str, pos: Pos, what: &str| -> Result<String, Diagnostic> {
            match scope.resources.get(name) {
                Some(r) if !r.urn.is_empty() => Ok(r.urn.clone()),
                _ => Err(err(
                    pos,
                    what,
                    format!("depends on `{name}`, which could not be registered"),
                )),
            }
        };
        let mut inputs = PropertyMap::new();
        let mut property_dependencies = BTreeMap::new();
        let mut all_deps: BTreeSet<String> = BTreeSet::new();
        for (k, pos, e) in &decl.properties {
            let mut deps = BTreeSet::new();
            let v = scope.eval(e, &mut deps).map_err(|(p, m)| {
                err(if p.line > 0 { p } else { *pos }, &format!(".properties.{k}"), m)
            })?;
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
        let root = make_urn(
            &scope.stack,
            &scope.project,
            None,
            "pulumi:pulumi:Stack",
            &format!("{}-{}", scope.project, scope.stack),
        );
        let parent = parent.or(component.map(str::to_string)).or(Some(root.clone()));
        let provider = match &decl.options.provider {
            Some(p) => {
                let urn = urn_of(p, option_pos("provider"), ".options.provider")?;
                let r = &scope.resources[p];
                all_deps.insert(urn.clone());
                Some(ProviderRef {
                    urn,
                    id: r.id.clone(),
                    version: provider_version(&r.outputs),
                    config: provider_config(&r.outputs),
                })
            }
            None => None,
        };
        let text_of = |e: &crate::program::Expr, sub: &str| -> Result<String, Diagnostic> {
            let mut deps = BTreeSet::new();
            let v = scope.eval(e, &mut deps).map_err(|(p, m)| err(p, sub, m))?;
            match v {
                PropertyValue::String(s) => Ok(s),
                PropertyValue::Number(n) => Ok(format!("{n}")),
                PropertyValue::Secret(_) => Err(err(
                    e.pos,
                    sub,
                    "must not be a secret (IDs are stored in plain text)".into(),
                )),
                PropertyValue::Computed => Err(err(
                    e.pos,
                    sub,
                    "is not known until other resources exist; it must be known in a preview"
                        .into(),
                )),
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
                    let v = scope.eval(e, &mut BTreeSet::new()).map_err(|(p, m)| {
                        err(if p.line > 0 { p } else { *pos }, &format!(".get.state.{k}"), m)
                    })?;
                    state.insert(k.clone(), v);
                }
                Some((id, state))
            }
            None => None,
        };
        let urn = make_urn(
            &scope.stack,
            &scope.project,
            parent.as_deref(),
            &resolved.token,
            decl.logical_name(),
        );
        let mut aliases = Vec::new();
        for a in &decl.options.aliases {
            aliases.push(match a {
                AliasSpec::Urn(u) => u.clone(),
                AliasSpec::Parts {
                    name,
                    type_,
                    project,
                    stack,
                    parent: alias_parent,
                    no_parent,
                } => {
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
            seq: goal_seq(seq),
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
            attempt: None,
        })
    }

    pub(super) fn package(&self) -> &str {
        self.type_.split(':').next().unwrap_or("")
    }

    pub(super) fn step(&self, op: StepOp) -> Step {
        let mut step = Step::new(op, &self.urn, &self.type_, &self.name)
            .at_line(self.planned.is_none().then_some(self.pos.line));
        step.parent = self.parent.clone();
        step.identification = self.attempt.clone();
        if let Some(p) = &self.planned {
            step.spec_index = Some(p.index);
            step.component = p.component;
        }
        step
    }

    pub(super) fn state(
        &self,
        id: Option<String>,
        inputs: PropertyMap,
        outputs: PropertyMap,
        provider: Option<String>,
    ) -> ResourceState {
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

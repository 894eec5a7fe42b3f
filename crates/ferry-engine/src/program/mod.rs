//! Pulumi YAML programs (`Pulumi.yaml` with `runtime: yaml`, or the program body alone):
//! parsed into a [`Program`] whose every part knows its line, then checked for what can be
//! checked without providers (references, cycles, options). Evaluation is in [`crate::deploy`].

mod check;
pub mod edit;
pub mod expr;
mod parse;

use std::collections::{BTreeSet, HashMap};

use serde::Serialize;

pub use expr::{Accessor, Expr, ExprKind, Pos, Reference};
/// A program's problems are told to clients as they are.
pub use ferry_types::deployment::Diagnostic;
pub use parse::{is_stack_reference, parse_program};

/// Every problem found in a program, in file order.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, thiserror::Error)]
pub struct ProgramError {
    pub diagnostics: Vec<Diagnostic>,
}

impl std::fmt::Display for ProgramError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let n = self.diagnostics.len();
        write!(f, "the program has {n} problem{}", if n == 1 { "" } else { "s" })?;
        for d in &self.diagnostics {
            write!(f, "\n  {d}")?;
        }
        Ok(())
    }
}

/// A config value the program declares.
#[derive(Debug, Clone, PartialEq)]
pub struct ConfigDecl {
    pub key: String,
    pub pos: Pos,
    /// `string`, `integer`, `number`, `boolean`, or `List<...>`; `None` when not given.
    pub type_: Option<String>,
    pub default: Option<Expr>,
    pub secret: bool,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Variable {
    pub name: String,
    pub pos: Pos,
    pub value: Expr,
}

/// An alias: a full URN, or parts of the old identity (missing parts are the resource's own).
#[derive(Debug, Clone, PartialEq)]
pub enum AliasSpec {
    Urn(String),
    Parts {
        name: Option<String>,
        type_: Option<String>,
        project: Option<String>,
        stack: Option<String>,
        parent: Option<String>,
        no_parent: bool,
    },
}

/// Resource options, as the program gives them.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct ResourceOptions {
    pub import: Option<Expr>,
    pub ignore_changes: Vec<String>,
    /// Resource names.
    pub parent: Option<String>,
    pub depends_on: Vec<String>,
    pub provider: Option<String>,
    pub protect: bool,
    pub delete_before_replace: bool,
    pub retain_on_delete: bool,
    pub aliases: Vec<AliasSpec>,
    pub version: Option<String>,
}

/// `get:` — read an existing resource instead of managing it.
#[derive(Debug, Clone, PartialEq)]
pub struct GetSpec {
    pub id: Expr,
    pub state: Vec<(String, Pos, Expr)>,
}

#[derive(Debug, Clone, PartialEq)]
pub struct ResourceDecl {
    /// The key references use.
    pub name: String,
    /// `name:` when the logical name (in the URN) differs from the key.
    pub logical_name: Option<String>,
    pub pos: Pos,
    /// The type as written (`random:RandomPet`); resolved against the schema later.
    pub type_: String,
    pub type_pos: Pos,
    pub properties: Vec<(String, Pos, Expr)>,
    pub options: ResourceOptions,
    pub options_pos: HashMap<&'static str, Pos>,
    pub get: Option<GetSpec>,
}

impl ResourceDecl {
    /// The name in the resource's URN.
    pub fn logical_name(&self) -> &str {
        self.logical_name.as_deref().unwrap_or(&self.name)
    }

    pub fn is_provider(&self) -> bool {
        self.type_.starts_with("pulumi:providers:")
    }

    /// The names this resource refers to (properties, `get`, `import`, options).
    pub fn references(&self) -> BTreeSet<&str> {
        let mut out: BTreeSet<&str> = BTreeSet::new();
        for (_, _, e) in &self.properties {
            out.extend(e.references().into_iter().map(|r| r.root.as_str()));
        }
        if let Some(get) = &self.get {
            out.extend(get.id.references().into_iter().map(|r| r.root.as_str()));
            for (_, _, e) in &get.state {
                out.extend(e.references().into_iter().map(|r| r.root.as_str()));
            }
        }
        if let Some(i) = &self.options.import {
            out.extend(i.references().into_iter().map(|r| r.root.as_str()));
        }
        out.extend(self.options.parent.as_deref());
        out.extend(self.options.provider.as_deref());
        out.extend(self.options.depends_on.iter().map(String::as_str));
        out
    }
}

#[derive(Debug, Clone, PartialEq)]
pub struct Program {
    /// The file name used in messages.
    pub file: String,
    pub name: Option<String>,
    pub config: Vec<ConfigDecl>,
    pub variables: Vec<Variable>,
    pub resources: Vec<ResourceDecl>,
    pub outputs: Vec<(String, Pos, Expr)>,
    /// Variables and resources, each after everything it refers to: `(is_resource, index)`.
    pub order: Vec<(bool, usize)>,
}

impl Program {
    pub fn resource(&self, name: &str) -> Option<&ResourceDecl> {
        self.resources.iter().find(|r| r.name == name)
    }

    pub fn diagnostic(
        &self,
        pos: Pos,
        path: impl Into<String>,
        message: impl Into<String>,
    ) -> Diagnostic {
        Diagnostic {
            file: self.file.clone(),
            line: pos.line,
            column: pos.column,
            path: path.into(),
            message: message.into(),
        }
    }
}

//! A Terraform configuration (its `.tf` files), read beside the state it was applied from: each
//! resource block's text, what each of its arguments says — a literal, a reference to another
//! resource's attribute, a variable, a local, a template of them, or an expression — and its
//! nested blocks, by module, local
//! modules followed through their `source`. Read with `hcl-edit`; pure. What the migration
//! makes of it is `migration`'s business.

use std::collections::{BTreeMap, BTreeSet};

use hcl_edit::expr::{Expression, ObjectKey, TraversalOperator};
use hcl_edit::structure::{Block, BlockLabel, Body};
use hcl_edit::template::Element;
use hcl_edit::Span as _;
use serde_json::Value;

pub use ferry_types::terraform::{ConfigurationFile, ConfigurationSource};

use crate::address::{parse_module_path, Address, IndexKey};
use crate::TerraformError;

/// Modules nested deeper than this are not followed (a module whose source is itself).
const MAX_MODULE_DEPTH: usize = 16;

/// The arguments Terraform itself reads rather than the provider: never properties.
const META_ARGUMENTS: &[&str] =
    &["count", "for_each", "depends_on", "provider", "lifecycle", "connection", "provisioner"];

/// What one argument of a resource block says.
#[derive(Debug, Clone, PartialEq)]
pub enum Argument {
    /// A value written out (`16`, `"logs"`, `[1, 2]`).
    Literal(Value),
    /// Another resource's attribute: `aws_s3_bucket.b.id`, `random_string.r[0].result`.
    Reference(Reference),
    /// A list whose elements are read one by one (some references, some not).
    List(Vec<Argument>),
    /// A map (`tags = { owner = aws_iam_user.u.name }`) whose values are read one by one, by key.
    Map(Vec<(String, Argument)>),
    /// `var.<name>`.
    Variable(String),
    /// `local.<name>`.
    Local(String),
    /// A string template of text, references, variables and locals
    /// (`"${var.env}-${aws_s3_bucket.b.id}"`).
    Template(Vec<TemplatePart>),
    /// Anything else (a function call, a conditional, a template with a directive or another
    /// expression inside, a module's output, a data source): its value is what the state holds.
    Expression,
}

/// A piece of a string template.
#[derive(Debug, Clone, PartialEq)]
pub enum TemplatePart {
    Text(String),
    Reference(Reference),
    Variable(String),
    Local(String),
}

/// A reference to an attribute of another resource of the same module.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Reference {
    /// The declaration referred to, with its module path (`module.web.aws_s3_bucket.logs`).
    pub resource: String,
    /// The instance's key, when the reference names one.
    pub key: Option<IndexKey>,
    pub attribute: String,
    /// Whether the reference goes further into the attribute (`.tags["a"]`, `[0]`): then the
    /// program cannot say it as one property.
    pub deeper: bool,
}

impl Reference {
    /// As the configuration writes it, for messages.
    pub fn text(&self) -> String {
        let key = self.key.as_ref().map(|k| k.to_string()).unwrap_or_default();
        format!("{}{key}.{}{}", self.resource, self.attribute, if self.deeper { "…" } else { "" })
    }
}

/// A resource block of the configuration.
#[derive(Debug, Clone, PartialEq)]
pub struct ResourceBlock {
    /// The module path it is declared in, without instance keys (`module.web`; empty at the
    /// root).
    pub module: String,
    pub source: ConfigurationSource,
    /// Its arguments (meta-arguments left out), by Terraform name.
    pub arguments: BTreeMap<String, Argument>,
    /// Its nested blocks (`versioning { enabled = true }`).
    pub blocks: NestedBlocks,
}

/// The nested blocks of a block, by type, in the order written.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct NestedBlocks {
    pub by_type: BTreeMap<String, Vec<NestedBlock>>,
    /// Types some `dynamic` block makes: how many there are is not written.
    pub dynamic: BTreeSet<String>,
}

/// One nested block, as written.
#[derive(Debug, Clone, PartialEq)]
pub struct NestedBlock {
    pub arguments: BTreeMap<String, Argument>,
    pub blocks: NestedBlocks,
}

/// Nested blocks deeper than this are not read (no provider's schema nests so deep; a file
/// that does would only spend the stack).
const MAX_BLOCK_DEPTH: usize = 32;

/// What `body` nests, in `module` (Terraform's own blocks, `lifecycle` and the rest, left out),
/// `depth` blocks down.
fn nested_blocks(body: &Body, module: &str, depth: usize) -> NestedBlocks {
    let mut blocks = NestedBlocks::default();
    if depth >= MAX_BLOCK_DEPTH {
        return blocks;
    }
    for block in body.blocks() {
        let ident = block.ident.as_str();
        if META_ARGUMENTS.contains(&ident) {
            continue;
        }
        if ident == "dynamic" {
            if let Some(type_) = block.labels.first() {
                blocks.dynamic.insert(label(type_).to_string());
            }
            continue;
        }
        blocks.by_type.entry(ident.to_string()).or_default().push(NestedBlock {
            arguments: arguments_of(&block.body, module),
            blocks: nested_blocks(&block.body, module, depth + 1),
        });
    }
    blocks
}

/// What `body`'s arguments say (meta-arguments left out), by name.
fn arguments_of(body: &Body, module: &str) -> BTreeMap<String, Argument> {
    body.attributes()
        .filter(|a| !META_ARGUMENTS.contains(&a.key.as_str()))
        .map(|a| (a.key.as_str().to_string(), argument(&a.value, module)))
        .collect()
}

/// A configuration, read.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Configuration {
    /// Managed resources, by declaration (module path without keys, type, name).
    pub resources: BTreeMap<String, ResourceBlock>,
    /// The root module's variables.
    pub variables: BTreeSet<String>,
    /// What was not followed (a remote module, a local one not among the files).
    pub notes: Vec<String>,
}

/// The declaration an instance belongs to: its address without any instance key
/// (`module.web[0].aws_s3_bucket.logs[1]` is `module.web.aws_s3_bucket.logs`).
pub fn declaration(address: &Address) -> String {
    let module: Vec<String> = parse_module_path(&address.module)
        .unwrap_or_default()
        .into_iter()
        .map(|(name, _)| format!("module.{name}"))
        .collect();
    let mut out = module.join(".");
    if !out.is_empty() {
        out.push('.');
    }
    out.push_str(&format!("{}.{}", address.type_, address.name));
    out
}

/// Reads the `.tf` files among `files` (others are ignored): the root module is the folder
/// nearest the top that holds one, and each local module call is followed into its folder.
/// A file that does not parse is an error naming it and the line.
pub fn read_configuration(files: &[ConfigurationFile]) -> Result<Configuration, TerraformError> {
    let mut folders: BTreeMap<String, Vec<&ConfigurationFile>> = BTreeMap::new();
    for file in files.iter().filter(|f| f.path.ends_with(".tf")) {
        let path = normalize(&file.path).ok_or_else(|| {
            error(format!("`{}` is not a path inside the configuration's folder", file.path))
        })?;
        let folder = path.rsplit_once('/').map(|(dir, _)| dir.to_string()).unwrap_or_default();
        folders.entry(folder).or_default().push(file);
    }
    if folders.is_empty() {
        return Err(error("the configuration holds no `.tf` file".into()));
    }
    let depth = |folder: &str| if folder.is_empty() { 0 } else { folder.split('/').count() };
    let top = folders.keys().map(|f| depth(f)).min().unwrap_or(0);
    let roots: Vec<&String> = folders.keys().filter(|f| depth(f) == top).collect();
    if roots.len() > 1 {
        return Err(error(format!(
            "the configuration's root folder is unclear: `{}` and `{}` both hold `.tf` files at the top",
            shown(roots[0]),
            shown(roots[1])
        )));
    }
    let root = roots[0].clone();
    let mut configuration = Configuration::default();
    let mut reader = Reader { folders: &folders, configuration: &mut configuration };
    reader.module(&root, "", 0)?;
    Ok(configuration)
}

fn shown(folder: &str) -> &str {
    if folder.is_empty() {
        "."
    } else {
        folder
    }
}

fn error(message: String) -> TerraformError {
    TerraformError { message, path: None }
}

/// `a/./b/../c` as `a/c`; `None` when it leaves the top (or is absolute).
fn normalize(path: &str) -> Option<String> {
    if path.starts_with('/') || path.contains('\\') || path.contains('\0') {
        return None;
    }
    let mut parts: Vec<&str> = Vec::new();
    for part in path.split('/') {
        match part {
            "" | "." => {}
            ".." => {
                parts.pop()?;
            }
            other => parts.push(other),
        }
    }
    Some(parts.join("/"))
}

struct Reader<'a> {
    folders: &'a BTreeMap<String, Vec<&'a ConfigurationFile>>,
    configuration: &'a mut Configuration,
}

impl Reader<'_> {
    /// Reads the module in `folder`, whose resources' addresses start with `module`.
    fn module(&mut self, folder: &str, module: &str, depth: usize) -> Result<(), TerraformError> {
        for file in self.folders.get(folder).map(Vec::as_slice).unwrap_or_default() {
            let body = hcl_edit::parser::parse_body(&file.text).map_err(|e| TerraformError {
                message: format!("{e}"),
                path: Some(file.path.clone()),
            })?;
            self.body(file, &body, folder, module, depth)?;
        }
        Ok(())
    }

    fn body(
        &mut self,
        file: &ConfigurationFile,
        body: &Body,
        folder: &str,
        module: &str,
        depth: usize,
    ) -> Result<(), TerraformError> {
        for block in body.blocks() {
            let labels: Vec<&str> = block.labels.iter().map(label).collect();
            match (block.ident.as_str(), labels.as_slice()) {
                ("resource", [type_, name]) => {
                    let declared = if module.is_empty() {
                        format!("{type_}.{name}")
                    } else {
                        format!("{module}.{type_}.{name}")
                    };
                    let source = source_of(file, block);
                    let at = format!("{}:{}", file.path, source.line);
                    let block = ResourceBlock {
                        module: module.to_string(),
                        source,
                        arguments: arguments_of(&block.body, module),
                        blocks: nested_blocks(&block.body, module, 0),
                    };
                    if let Some(first) =
                        self.configuration.resources.insert(declared.clone(), block)
                    {
                        return Err(TerraformError {
                            message: format!(
                                "`{declared}` is declared twice (first at {}:{})",
                                first.source.file, first.source.line
                            ),
                            path: Some(at),
                        });
                    }
                }
                ("variable", [name]) if module.is_empty() => {
                    self.configuration.variables.insert(name.to_string());
                }
                ("module", [name]) => {
                    let called = if module.is_empty() {
                        format!("module.{name}")
                    } else {
                        format!("{module}.module.{name}")
                    };
                    let source = block.body.get_attribute("source").and_then(|a| literal(&a.value));
                    match source {
                        Some(Value::String(s)) if s.starts_with("./") || s.starts_with("../") => {
                            let target = normalize(&if folder.is_empty() { s.clone() } else { format!("{folder}/{s}") });
                            match target.filter(|t| self.folders.contains_key(t)) {
                                Some(_) if depth >= MAX_MODULE_DEPTH => self.configuration.notes.push(format!(
                                    "`{called}` is nested more than {MAX_MODULE_DEPTH} modules deep: not followed, its resources keep the state's values"
                                )),
                                Some(target) => self.module(&target, &called, depth + 1)?,
                                None => self
                                    .configuration
                                    .notes
                                    .push(format!("`{called}`'s source `{s}` is not among the configuration's files: its resources keep the state's values")),
                            }
                        }
                        Some(Value::String(s)) => self
                            .configuration
                            .notes
                            .push(format!("`{called}` comes from `{s}`, which Ferry does not fetch: its resources keep the state's values")),
                        _ => self.configuration.notes.push(format!("`{called}` has no literal `source`: its resources keep the state's values")),
                    }
                }
                _ => {}
            }
        }
        Ok(())
    }
}

fn label(l: &BlockLabel) -> &str {
    match l {
        BlockLabel::Ident(i) => i.as_str(),
        BlockLabel::String(s) => s.as_str(),
    }
}

/// The block's first line and text, as written.
fn source_of(file: &ConfigurationFile, block: &Block) -> ConfigurationSource {
    let span = block.span().unwrap_or(0..0);
    let start = span.start.min(file.text.len());
    let end = span.end.clamp(start, file.text.len());
    let line = file.text.get(..start).map(|before| before.matches('\n').count() + 1).unwrap_or(1);
    let text = file.text.get(start..end).unwrap_or_default().to_string();
    ConfigurationSource { file: file.path.clone(), line, text }
}

/// What `expr` says, in `module`.
fn argument(expr: &Expression, module: &str) -> Argument {
    if let Some(value) = literal(expr) {
        return Argument::Literal(value);
    }
    match expr {
        Expression::Parenthesis(p) => argument(p.inner(), module),
        Expression::Array(items) => {
            Argument::List(items.iter().map(|item| argument(item, module)).collect())
        }
        // Keys written out (a name or a string); a computed key makes the whole an expression.
        Expression::Object(object) => {
            let mut entries = Vec::new();
            for (key, value) in object.iter() {
                let key = match key {
                    ObjectKey::Ident(i) => i.as_str().to_string(),
                    ObjectKey::Expression(e) => match literal(e) {
                        Some(Value::String(s)) => s,
                        _ => return Argument::Expression,
                    },
                };
                entries.push((key, argument(value.expr(), module)));
            }
            Argument::Map(entries)
        }
        // `"${aws_s3_bucket.b.id}"`: the interpolation alone is its expression's value.
        Expression::StringTemplate(t) => match t.iter().collect::<Vec<_>>().as_slice() {
            [Element::Interpolation(i)] => argument(&i.expr, module),
            elements => template(elements, module),
        },
        Expression::Traversal(t) => {
            let Expression::Variable(root) = &t.expr else { return Argument::Expression };
            let ops: Vec<&TraversalOperator> = t.operators.iter().map(|o| o.value()).collect();
            let attr = |op: &TraversalOperator| match op {
                TraversalOperator::GetAttr(name) => Some(name.as_str().to_string()),
                _ => None,
            };
            match (root.as_str(), ops.as_slice()) {
                ("var", [name]) => {
                    attr(name).map(Argument::Variable).unwrap_or(Argument::Expression)
                }
                ("local", [name]) => {
                    attr(name).map(Argument::Local).unwrap_or(Argument::Expression)
                }
                (
                    "var" | "local" | "data" | "module" | "count" | "each" | "path" | "terraform"
                    | "self",
                    _,
                ) => Argument::Expression,
                (type_, [name, rest @ ..]) => {
                    let Some(name) = attr(name) else { return Argument::Expression };
                    let (key, rest) = match rest {
                        [TraversalOperator::Index(index), rest @ ..] => match literal(index) {
                            Some(Value::Number(n)) => match n.as_i64() {
                                Some(n) => (Some(IndexKey::Number(n)), rest),
                                None => return Argument::Expression,
                            },
                            Some(Value::String(s)) => (Some(IndexKey::Text(s)), rest),
                            _ => return Argument::Expression,
                        },
                        [TraversalOperator::LegacyIndex(n), rest @ ..] => {
                            match i64::try_from(*n.value()) {
                                Ok(n) => (Some(IndexKey::Number(n)), rest),
                                Err(_) => return Argument::Expression,
                            }
                        }
                        rest => (None, rest),
                    };
                    let Some((first, deeper)) = rest.split_first() else {
                        return Argument::Expression;
                    };
                    let Some(attribute) = attr(first) else { return Argument::Expression };
                    let resource = if module.is_empty() {
                        format!("{type_}.{name}")
                    } else {
                        format!("{module}.{type_}.{name}")
                    };
                    Argument::Reference(Reference {
                        resource,
                        key,
                        attribute,
                        deeper: !deeper.is_empty(),
                    })
                }
                _ => Argument::Expression,
            }
        }
        _ => Argument::Expression,
    }
}

/// A template's pieces, when each is text or an interpolation of a reference, a variable, a
/// local or a literal; anything else (a directive, a call) makes it an expression.
fn template(elements: &[&Element], module: &str) -> Argument {
    let mut parts = Vec::new();
    for element in elements {
        let part = match element {
            Element::Literal(text) => TemplatePart::Text(text.value().to_string()),
            Element::Interpolation(i) => match argument(&i.expr, module) {
                Argument::Literal(Value::String(text)) => TemplatePart::Text(text),
                Argument::Literal(v @ (Value::Number(_) | Value::Bool(_))) => {
                    TemplatePart::Text(v.to_string())
                }
                Argument::Reference(r) => TemplatePart::Reference(r),
                Argument::Variable(name) => TemplatePart::Variable(name),
                Argument::Local(name) => TemplatePart::Local(name),
                _ => return Argument::Expression,
            },
            Element::Directive(_) => return Argument::Expression,
        };
        parts.push(part);
    }
    Argument::Template(parts)
}

/// `expr`'s value when it is written out whole (no reference, call or template).
fn literal(expr: &Expression) -> Option<Value> {
    match expr {
        Expression::Null(_) => Some(Value::Null),
        Expression::Bool(b) => Some(Value::Bool(*b.value())),
        Expression::Number(n) => {
            let n = n.value();
            if let Some(i) = n.as_i64() {
                Some(Value::from(i))
            } else if let Some(u) = n.as_u64() {
                Some(Value::from(u))
            } else {
                n.as_f64().and_then(serde_json::Number::from_f64).map(Value::Number)
            }
        }
        Expression::String(s) => Some(Value::String(s.value().clone())),
        Expression::StringTemplate(t) => {
            let mut text = String::new();
            for element in t.iter() {
                match element {
                    Element::Literal(l) => text.push_str(l.value()),
                    _ => return None,
                }
            }
            Some(Value::String(text))
        }
        Expression::Parenthesis(p) => literal(p.inner()),
        Expression::Array(items) => {
            items.iter().map(literal).collect::<Option<Vec<_>>>().map(Value::Array)
        }
        Expression::Object(object) => {
            let mut out = serde_json::Map::new();
            for (key, value) in object.iter() {
                let key = match key {
                    ObjectKey::Ident(i) => i.as_str().to_string(),
                    ObjectKey::Expression(e) => match literal(e)? {
                        Value::String(s) => s,
                        _ => return None,
                    },
                };
                out.insert(key, literal(value.expr())?);
            }
            Some(Value::Object(out))
        }
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn file(path: &str, text: &str) -> ConfigurationFile {
        ConfigurationFile { path: path.into(), text: text.into() }
    }

    #[test]
    fn arguments_are_literals_references_variables_or_expressions() {
        let c = read_configuration(&[file(
            "main.tf",
            r#"
variable "prefix" {}
resource "random_string" "r" {
  count  = 2
  length = 16
  tags   = { a = "b" }
}
resource "random_shuffle" "s" {
  input  = [random_string.r[0].result, "x", random_string.r[1].result]
  seed   = "${random_string.r[0].id}"
  keeper = var.prefix
  other  = local.thing
  call   = upper("x")
  deep   = random_string.r[0].tags["a"]
  legacy = random_string.r.0.result
  keepers = { first = random_string.r[0].result, "fixed" = "x" }
  computed = { (var.prefix) = "x" }
}
"#,
        )])
        .unwrap();
        let r = &c.resources["random_string.r"];
        assert_eq!(r.source.line, 3);
        assert!(
            r.source.text.starts_with("resource \"random_string\" \"r\" {"),
            "{}",
            r.source.text
        );
        assert!(!r.arguments.contains_key("count"), "meta-arguments are not properties");
        assert_eq!(r.arguments["length"], Argument::Literal(16.into()));
        assert_eq!(r.arguments["tags"], Argument::Literal(serde_json::json!({"a": "b"})));
        let s = &c.resources["random_shuffle.s"].arguments;
        let reference = |key: i64| {
            Argument::Reference(Reference {
                resource: "random_string.r".into(),
                key: Some(IndexKey::Number(key)),
                attribute: "result".into(),
                deeper: false,
            })
        };
        assert_eq!(
            s["input"],
            Argument::List(vec![reference(0), Argument::Literal("x".into()), reference(1)])
        );
        assert!(matches!(&s["seed"], Argument::Reference(r) if r.attribute == "id"));
        assert_eq!(s["keeper"], Argument::Variable("prefix".into()));
        assert_eq!(s["other"], Argument::Local("thing".into()));
        assert_eq!(s["call"], Argument::Expression);
        assert!(matches!(&s["deep"], Argument::Reference(r) if r.deeper));
        assert_eq!(s["legacy"], reference(0));
        assert_eq!(
            s["keepers"],
            Argument::Map(vec![
                ("first".into(), reference(0)),
                ("fixed".into(), Argument::Literal("x".into()))
            ])
        );
        assert_eq!(s["computed"], Argument::Expression, "a computed key: no map to read by key");
        assert!(c.variables.contains("prefix"));
    }

    #[test]
    fn local_modules_are_followed_and_remote_ones_noted() {
        let c = read_configuration(&[
            file("infra/main.tf", "module \"web\" {\n  source = \"./modules/web\"\n}\nmodule \"vpc\" {\n  source = \"terraform-aws-modules/vpc/aws\"\n}\nmodule \"gone\" {\n  source = \"./nowhere\"\n}\n"),
            file("infra/modules/web/main.tf", "resource \"random_pet\" \"p\" {\n  length = 2\n}\nresource \"random_id\" \"i\" {\n  prefix = random_pet.p.id\n}\n"),
            file("infra/README.md", "not read"),
        ])
        .unwrap();
        assert_eq!(
            c.resources.keys().collect::<Vec<_>>(),
            ["module.web.random_id.i", "module.web.random_pet.p"]
        );
        assert!(
            matches!(&c.resources["module.web.random_id.i"].arguments["prefix"], Argument::Reference(r) if r.resource == "module.web.random_pet.p")
        );
        assert_eq!(c.notes.len(), 2, "{:?}", c.notes);
        assert!(c.notes[0].contains("terraform-aws-modules/vpc/aws"), "{:?}", c.notes);
        assert!(c.notes[1].contains("./nowhere"), "{:?}", c.notes);
    }

    #[test]
    fn a_module_that_calls_itself_stops() {
        let c = read_configuration(&[file(
            "main.tf",
            "module \"me\" {\n  source = \"./\"\n}\nresource \"random_pet\" \"p\" {}\n",
        )]);
        // `./` from the root is the root again: followed to the depth limit, then noted; the
        // resource declared at each depth is a different address.
        let c = c.unwrap();
        assert!(c.notes.iter().any(|n| n.contains("deep")), "{:?}", c.notes);
    }

    #[test]
    fn what_does_not_read_is_named() {
        let e = read_configuration(&[file("a/main.tf", "resource \"x\" \"y\" {\n  a = \n}\n")])
            .unwrap_err();
        assert_eq!(e.path.as_deref(), Some("a/main.tf"));
        assert!(e.message.contains("line 2"), "{}", e.message);
        let e = read_configuration(&[
            file("a.tf", "resource \"x\" \"y\" {}\n"),
            file("b.tf", "resource \"x\" \"y\" {}\n"),
        ])
        .unwrap_err();
        assert!(e.to_string().contains("declared twice"), "{e}");
        let e = read_configuration(&[file("a/main.tf", ""), file("b/main.tf", "")]).unwrap_err();
        assert!(e.message.contains("root folder is unclear"), "{e}");
        let e = read_configuration(&[file("../main.tf", "")]).unwrap_err();
        assert!(e.message.contains("not a path inside"), "{e}");
        assert!(read_configuration(&[file("notes.txt", "")])
            .unwrap_err()
            .message
            .contains("no `.tf`"));
    }

    #[test]
    fn declarations_drop_instance_keys() {
        let address = Address {
            module: "module.web[0].module.db[\"a\"]".into(),
            mode: crate::Mode::Managed,
            type_: "t".into(),
            name: "n".into(),
            key: Some(IndexKey::Number(1)),
        };
        assert_eq!(declaration(&address), "module.web.module.db.t.n");
    }
}

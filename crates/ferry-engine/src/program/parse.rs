//! Reading a Pulumi YAML program from text: structure, expressions, options, then the checks
//! that need no provider ([`super::check`]: unknown names, cycles, conflicting options). Every
//! problem is reported at once, each with its line.

use std::collections::HashMap;

use marked_yaml::loader::LoaderOptions;
use marked_yaml::{Node, Span};

use super::expr::{parse_reference, parse_template, Builtin, Expr, ExprKind, Pos};
use super::{
    AliasSpec, ConfigDecl, Diagnostic, GetSpec, Program, ProgramError, ResourceDecl,
    ResourceOptions, Variable,
};

/// Keys of a `Pulumi.yaml` that belong to the project, not the program: accepted, unused.
const PROJECT_KEYS: &[&str] = &[
    "runtime",
    "description",
    "main",
    "stackConfigDir",
    "backend",
    "options",
    "plugins",
    "template",
    "author",
    "license",
    "website",
    "packages",
];
const PROGRAM_KEYS: &[&str] =
    &["name", "config", "configuration", "variables", "resources", "outputs"];
const RESOURCE_KEYS: &[&str] = &["type", "name", "properties", "options", "get", "defaultProvider"];
const OPTION_KEYS: &[&str] = &[
    "import",
    "ignoreChanges",
    "parent",
    "dependsOn",
    "provider",
    "protect",
    "deleteBeforeReplace",
    "aliases",
    "retainOnDelete",
    "version",
    "additionalSecretOutputs",
    "customTimeouts",
    "replaceOnChanges",
    "pluginDownloadURL",
];
/// Options Ferry reads but does not act on in previews; accepted so real programs load.
const PASSIVE_OPTIONS: &[&str] =
    &["additionalSecretOutputs", "customTimeouts", "replaceOnChanges", "pluginDownloadURL"];

fn pos_of(span: &Span) -> Pos {
    span.start().map(|m| Pos { line: m.line(), column: m.column() }).unwrap_or_default()
}

pub(super) fn suggest(word: &str, known: &[&str]) -> String {
    known
        .iter()
        .map(|k| (strsim::jaro_winkler(word, k), *k))
        .filter(|(score, _)| *score > 0.8)
        .max_by(|a, b| a.0.total_cmp(&b.0))
        .map(|(_, k)| format!(" (did you mean `{k}`?)"))
        .unwrap_or_default()
}

/// Where diagnostics are gathered while a program is read and checked.
pub(super) struct Reader {
    file: String,
    pub(super) diagnostics: Vec<Diagnostic>,
}

impl Reader {
    pub(super) fn error(&mut self, pos: Pos, path: &str, message: impl Into<String>) {
        self.diagnostics.push(Diagnostic {
            file: self.file.clone(),
            line: pos.line,
            column: pos.column,
            path: path.to_string(),
            message: message.into(),
        });
    }

    fn expr(&mut self, node: &Node, path: &str) -> Expr {
        let pos = pos_of(node.span());
        let kind = match node {
            Node::Scalar(s) => {
                let text = s.as_str();
                if !s.may_coerce() {
                    self.template(text, pos, path)
                } else if let Some(b) = s.as_bool() {
                    ExprKind::Bool(b)
                } else if matches!(text, "null" | "~" | "") {
                    ExprKind::Null
                } else if let Some(n) = text
                    .parse::<f64>()
                    .ok()
                    .filter(|n| n.is_finite() && !text.starts_with(['+', '.']))
                {
                    ExprKind::Number(n)
                } else {
                    self.template(text, pos, path)
                }
            }
            Node::Sequence(items) => ExprKind::List(
                items
                    .iter()
                    .enumerate()
                    .map(|(i, n)| self.expr(n, &format!("{path}[{i}]")))
                    .collect(),
            ),
            Node::Mapping(map) => {
                let first = map.iter().next().map(|(k, _)| k.as_str().to_string());
                match first.filter(|k| k.starts_with("fn::")) {
                    Some(f) if map.len() == 1 => {
                        let arg = map.iter().next().map(|(_, v)| v).expect("one entry");
                        match Builtin::NAMES.iter().find(|(n, _)| *n == f) {
                            Some((_, builtin)) => ExprKind::Call(
                                *builtin,
                                Box::new(self.expr(arg, &format!("{path}.{f}"))),
                            ),
                            None => {
                                let known: Vec<&str> =
                                    Builtin::NAMES.iter().map(|(n, _)| *n).collect();
                                let why = if f == "fn::invoke" {
                                    " (Ferry does not call provider functions: put the value in the program or in config)".to_string()
                                } else if f.starts_with("fn::file") || f == "fn::readFile" {
                                    " (Ferry never reads files named by a program)".to_string()
                                } else {
                                    suggest(&f, &known)
                                };
                                self.error(pos, path, format!("`{f}` is not supported{why}"));
                                ExprKind::Null
                            }
                        }
                    }
                    _ => ExprKind::Object(
                        map.iter()
                            .map(|(k, v)| {
                                (
                                    k.as_str().to_string(),
                                    self.expr(v, &format!("{path}.{}", k.as_str())),
                                )
                            })
                            .collect(),
                    ),
                }
            }
        };
        Expr { kind, pos }
    }

    fn template(&mut self, text: &str, pos: Pos, path: &str) -> ExprKind {
        match parse_template(text, pos) {
            Ok(k) => k,
            Err(e) => {
                self.error(pos, path, e);
                ExprKind::Null
            }
        }
    }

    fn string(&mut self, node: &Node, path: &str) -> Option<String> {
        match node.as_scalar() {
            Some(s) => Some(s.as_str().to_string()),
            None => {
                self.error(pos_of(node.span()), path, "expected a string");
                None
            }
        }
    }

    fn boolean(&mut self, node: &Node, path: &str) -> bool {
        match node.as_scalar().and_then(|s| s.as_bool()) {
            Some(b) => b,
            None => {
                self.error(pos_of(node.span()), path, "expected `true` or `false`");
                false
            }
        }
    }

    /// `${name}`: a whole resource.
    fn resource_ref(&mut self, node: &Node, path: &str) -> Option<String> {
        let pos = pos_of(node.span());
        let text = node.as_scalar().map(|s| s.as_str().trim().to_string());
        // A resource already in the stack, by URN: an import plan's snippet refers to the
        // stack's other resources this way (the deployment checks the scope and the URN).
        if let Some(urn) = text.as_deref().filter(|t| is_stack_reference(t)) {
            if ferry_state::urn::Urn::parse(urn).is_none() {
                self.error(pos, path, format!("`{urn}` is not a valid URN"));
                return None;
            }
            return Some(urn.to_string());
        }
        let inner =
            text.as_deref().and_then(|t| t.strip_prefix("${")).and_then(|t| t.strip_suffix('}'));
        match inner.map(|i| parse_reference(i.trim(), pos)) {
            Some(Ok(r)) if r.path.is_empty() => Some(r.root),
            _ => {
                self.error(pos, path, "expected a resource, written `${name}` (or, for a resource already in the stack, its URN)");
                None
            }
        }
    }

    fn options(
        &mut self,
        node: &Node,
        path: &str,
        positions: &mut HashMap<&'static str, Pos>,
    ) -> ResourceOptions {
        let mut o = ResourceOptions::default();
        let Some(map) = node.as_mapping() else {
            self.error(pos_of(node.span()), path, "`options` must be a mapping");
            return o;
        };
        for (k, v) in map.iter() {
            let key = k.as_str();
            let p = format!("{path}.{key}");
            let Some(known) = OPTION_KEYS.iter().find(|o| **o == key) else {
                self.error(
                    pos_of(k.span()),
                    &p,
                    format!("unknown resource option `{key}`{}", suggest(key, OPTION_KEYS)),
                );
                continue;
            };
            positions.insert(known, pos_of(v.span()));
            match key {
                "import" => {
                    let e = self.expr(v, &p);
                    if matches!(
                        e.kind,
                        ExprKind::List(_)
                            | ExprKind::Object(_)
                            | ExprKind::Null
                            | ExprKind::Bool(_)
                    ) {
                        self.error(
                            e.pos,
                            &p,
                            "`import` takes the ID of the resource to import, a string",
                        );
                    }
                    o.import = Some(e);
                }
                "ignoreChanges" => match v.as_sequence() {
                    Some(items) => {
                        for (i, item) in items.iter().enumerate() {
                            if let Some(s) = self.string(item, &format!("{p}[{i}]")) {
                                o.ignore_changes.push(s);
                            }
                        }
                    }
                    None => self.error(
                        pos_of(v.span()),
                        &p,
                        "`ignoreChanges` must be a list of property paths",
                    ),
                },
                "dependsOn" => match v.as_sequence() {
                    Some(items) => {
                        for (i, item) in items.iter().enumerate() {
                            if let Some(r) = self.resource_ref(item, &format!("{p}[{i}]")) {
                                o.depends_on.push(r);
                            }
                        }
                    }
                    None => {
                        self.error(pos_of(v.span()), &p, "`dependsOn` must be a list of resources")
                    }
                },
                "parent" => o.parent = self.resource_ref(v, &p),
                "provider" => o.provider = self.resource_ref(v, &p),
                "protect" => o.protect = self.boolean(v, &p),
                "deleteBeforeReplace" => o.delete_before_replace = self.boolean(v, &p),
                "retainOnDelete" => o.retain_on_delete = self.boolean(v, &p),
                "version" => o.version = self.string(v, &p),
                "aliases" => match v.as_sequence() {
                    Some(items) => {
                        for (i, item) in items.iter().enumerate() {
                            let ip = format!("{p}[{i}]");
                            if let Some(s) = item.as_scalar() {
                                if !s.as_str().starts_with("urn:pulumi:") {
                                    self.error(
                                        pos_of(item.span()),
                                        &ip,
                                        "an alias is a URN (`urn:pulumi:...`) or a mapping of `name`, `type`, `parent`, `project`, `stack`",
                                    );
                                }
                                o.aliases.push(AliasSpec::Urn(s.as_str().to_string()));
                            } else if let Some(m) = item.as_mapping() {
                                let get = |k: &str| m.get_scalar(k).map(|s| s.as_str().to_string());
                                for (ak, _) in m.iter() {
                                    if !["name", "type", "parent", "project", "stack", "noParent"]
                                        .contains(&ak.as_str())
                                    {
                                        self.error(
                                            pos_of(ak.span()),
                                            &format!("{ip}.{}", ak.as_str()),
                                            format!("unknown alias field `{}`", ak.as_str()),
                                        );
                                    }
                                }
                                let parent = m
                                    .get_node("parent")
                                    .and_then(|n| self.resource_ref(n, &format!("{ip}.parent")));
                                o.aliases.push(AliasSpec::Parts {
                                    name: get("name"),
                                    type_: get("type"),
                                    project: get("project"),
                                    stack: get("stack"),
                                    parent,
                                    no_parent: m
                                        .get_scalar("noParent")
                                        .and_then(|s| s.as_bool())
                                        .unwrap_or(false),
                                });
                            } else {
                                self.error(
                                    pos_of(item.span()),
                                    &ip,
                                    "an alias is a URN or a mapping",
                                );
                            }
                        }
                    }
                    None => self.error(pos_of(v.span()), &p, "`aliases` must be a list"),
                },
                k if PASSIVE_OPTIONS.contains(&k) => {}
                _ => unreachable!("every known option is handled"),
            }
        }
        o
    }
}

/// Reads `text` (a `Pulumi.yaml` or a program body) named `file` in messages.
pub fn parse_program(file: &str, text: &str) -> Result<Program, ProgramError> {
    let mut r = Reader { file: file.to_string(), diagnostics: Vec::new() };
    let options = LoaderOptions::default().error_on_duplicate_keys(true).prevent_coercion(true);
    let root = match marked_yaml::parse_yaml_with_options(0, text, options) {
        Ok(root) => root,
        Err(e) => {
            let message = e.to_string();
            // The loader's messages start with `<source>:<line>:<column>: `; keep the rest.
            let (line, column, rest) = load_error_position(&e, &message);
            return Err(ProgramError {
                diagnostics: vec![Diagnostic {
                    file: file.into(),
                    line,
                    column,
                    path: String::new(),
                    message: rest,
                }],
            });
        }
    };
    let map = root.as_mapping().expect("the loader requires a mapping at the top");
    let mut program = Program {
        file: file.to_string(),
        name: None,
        config: Vec::new(),
        variables: Vec::new(),
        resources: Vec::new(),
        outputs: Vec::new(),
        order: Vec::new(),
    };
    if let Some(runtime) = map.get_node("runtime") {
        let name = runtime.as_scalar().map(|s| s.as_str()).or_else(|| {
            runtime.as_mapping().and_then(|m| m.get_scalar("name")).map(|s| s.as_str())
        });
        if name != Some("yaml") {
            r.error(
                pos_of(runtime.span()),
                "runtime",
                format!(
                    "Ferry reads Pulumi YAML programs (`runtime: yaml`), not `{}`",
                    name.unwrap_or("?")
                ),
            );
        }
    }
    for (k, v) in map.iter() {
        let key = k.as_str();
        if PROJECT_KEYS.contains(&key) {
            continue;
        }
        if !PROGRAM_KEYS.contains(&key) {
            let mut known = PROGRAM_KEYS.to_vec();
            known.extend(PROJECT_KEYS);
            r.error(
                pos_of(k.span()),
                key,
                format!("unknown top-level key `{key}`{}", suggest(key, &known)),
            );
            continue;
        }
        match key {
            "name" => program.name = r.string(v, "name"),
            "config" | "configuration" => match v.as_mapping() {
                Some(m) => {
                    for (ck, cv) in m.iter() {
                        let path = format!("{key}.{}", ck.as_str());
                        let mut decl = ConfigDecl {
                            key: ck.as_str().to_string(),
                            pos: pos_of(ck.span()),
                            type_: None,
                            default: None,
                            secret: false,
                        };
                        match cv.as_mapping() {
                            Some(cm) => {
                                for (f, fv) in cm.iter() {
                                    match f.as_str() {
                                        "type" => {
                                            decl.type_ = r.string(fv, &format!("{path}.type"))
                                        }
                                        "default" | "value" => {
                                            decl.default =
                                                Some(r.expr(fv, &format!("{path}.default")))
                                        }
                                        "secret" => {
                                            decl.secret = r.boolean(fv, &format!("{path}.secret"))
                                        }
                                        "description" | "items" => {}
                                        other => r.error(
                                            pos_of(f.span()),
                                            &format!("{path}.{other}"),
                                            format!("unknown config field `{other}`"),
                                        ),
                                    }
                                }
                            }
                            // A bare value is its default (the shorthand of newer Pulumi YAML).
                            None => decl.default = Some(r.expr(cv, &path)),
                        }
                        if let Some(t) = &decl.type_ {
                            let base = t.trim_start_matches("List<").trim_end_matches('>');
                            if ![
                                "string", "String", "integer", "Integer", "number", "Number",
                                "boolean", "Boolean",
                            ]
                            .contains(&base)
                            {
                                r.error(
                                    decl.pos,
                                    &format!("{path}.type"),
                                    format!("unknown config type `{t}` (string, integer, number, boolean, or List<...>)"),
                                );
                            }
                        }
                        program.config.push(decl);
                    }
                }
                None => r.error(pos_of(v.span()), key, "must be a mapping of config keys"),
            },
            "variables" => match v.as_mapping() {
                Some(m) => {
                    for (vk, vv) in m.iter() {
                        let value = r.expr(vv, &format!("variables.{}", vk.as_str()));
                        program.variables.push(Variable {
                            name: vk.as_str().to_string(),
                            pos: pos_of(vk.span()),
                            value,
                        });
                    }
                }
                None => {
                    r.error(pos_of(v.span()), key, "must be a mapping of variable names to values")
                }
            },
            "outputs" => match v.as_mapping() {
                Some(m) => {
                    for (ok, ov) in m.iter() {
                        let value = r.expr(ov, &format!("outputs.{}", ok.as_str()));
                        program.outputs.push((ok.as_str().to_string(), pos_of(ok.span()), value));
                    }
                }
                None => {
                    r.error(pos_of(v.span()), key, "must be a mapping of output names to values")
                }
            },
            "resources" => match v.as_mapping() {
                Some(m) => {
                    for (rk, rv) in m.iter() {
                        if let Some(decl) = resource(&mut r, rk.as_str(), pos_of(rk.span()), rv) {
                            program.resources.push(decl);
                        }
                    }
                }
                None => r.error(
                    pos_of(v.span()),
                    key,
                    "must be a mapping of resource names to resources",
                ),
            },
            _ => unreachable!(),
        }
    }
    super::check::check_names(&mut r, &mut program);
    if r.diagnostics.is_empty() {
        Ok(program)
    } else {
        r.diagnostics.sort_by_key(|d| (d.line, d.column));
        Err(ProgramError { diagnostics: r.diagnostics })
    }
}

fn load_error_position(e: &marked_yaml::LoadError, message: &str) -> (usize, usize, String) {
    use marked_yaml::LoadError::*;
    let marker = match e {
        TopLevelMustBeMapping(m)
        | TopLevelMustBeSequence(m)
        | UnexpectedAnchor(m)
        | MappingKeyMustBeScalar(m)
        | UnexpectedTag(m)
        | ScanError(m, _) => Some(*m),
        DuplicateKey(inner) => inner.key.span().start().copied(),
    };
    let rest = match e {
        TopLevelMustBeMapping(_) => {
            "a program must be a YAML mapping (`resources:`, `variables:`, ...)".to_string()
        }
        UnexpectedAnchor(_) => "YAML anchors and aliases are not supported in programs".to_string(),
        UnexpectedTag(_) => "YAML tags (`!Tag`) are not supported in programs".to_string(),
        _ => message
            .split_once(": ")
            .filter(|_| !matches!(e, DuplicateKey(_)))
            .map(|(_, r)| r.to_string())
            .unwrap_or_else(|| message.to_string()),
    };
    let (line, column) = marker.map(|m| (m.line(), m.column())).unwrap_or((1, 1));
    (line, column, rest)
}

fn resource(r: &mut Reader, name: &str, pos: Pos, node: &Node) -> Option<ResourceDecl> {
    let path = format!("resources.{name}");
    let Some(map) = node.as_mapping() else {
        r.error(
            pos_of(node.span()),
            &path,
            "a resource must be a mapping with `type` and `properties`",
        );
        return None;
    };
    for (k, _) in map.iter() {
        if !RESOURCE_KEYS.contains(&k.as_str()) {
            r.error(
                pos_of(k.span()),
                &format!("{path}.{}", k.as_str()),
                format!(
                    "unknown resource field `{}`{}",
                    k.as_str(),
                    suggest(k.as_str(), RESOURCE_KEYS)
                ),
            );
        }
    }
    let (type_, type_pos) = match map.get_node("type") {
        Some(t) => (r.string(t, &format!("{path}.type")).unwrap_or_default(), pos_of(t.span())),
        None => {
            r.error(pos, &path, "missing `type` (a type token like `random:RandomPet`)");
            (String::new(), pos)
        }
    };
    if !type_.is_empty() && type_.split(':').count() < 2 {
        r.error(
            type_pos,
            &format!("{path}.type"),
            format!("`{type_}` is not a type token (`package:Type` or `package:module:Type`)"),
        );
    }
    let mut properties = Vec::new();
    if let Some(props) = map.get_node("properties") {
        match props.as_mapping() {
            Some(m) => {
                for (k, v) in m.iter() {
                    let p = format!("{path}.properties.{}", k.as_str());
                    properties.push((k.as_str().to_string(), pos_of(k.span()), r.expr(v, &p)));
                }
            }
            None => r.error(
                pos_of(props.span()),
                &format!("{path}.properties"),
                "`properties` must be a mapping",
            ),
        }
    }
    let mut options_pos = HashMap::new();
    let options = match map.get_node("options") {
        Some(o) => r.options(o, &format!("{path}.options"), &mut options_pos),
        None => ResourceOptions::default(),
    };
    let get = match map.get_node("get") {
        Some(g) => match g.as_mapping() {
            Some(m) => {
                let id = match m.get_node("id") {
                    Some(id) => r.expr(id, &format!("{path}.get.id")),
                    None => {
                        r.error(
                            pos_of(g.span()),
                            &format!("{path}.get"),
                            "`get` needs the `id` of the resource to read",
                        );
                        Expr { kind: ExprKind::Null, pos: pos_of(g.span()) }
                    }
                };
                let mut state = Vec::new();
                for (k, v) in m.iter() {
                    match k.as_str() {
                        "id" => {}
                        "state" => match v.as_mapping() {
                            Some(sm) => {
                                for (sk, sv) in sm.iter() {
                                    state.push((
                                        sk.as_str().to_string(),
                                        pos_of(sk.span()),
                                        r.expr(sv, &format!("{path}.get.state.{}", sk.as_str())),
                                    ));
                                }
                            }
                            None => r.error(
                                pos_of(v.span()),
                                &format!("{path}.get.state"),
                                "`state` must be a mapping",
                            ),
                        },
                        other => r.error(
                            pos_of(k.span()),
                            &format!("{path}.get.{other}"),
                            format!("unknown `get` field `{other}` (`id`, `state`)"),
                        ),
                    }
                }
                Some(GetSpec { id, state })
            }
            None => {
                r.error(
                    pos_of(g.span()),
                    &format!("{path}.get"),
                    "`get` must be a mapping with `id`",
                );
                None
            }
        },
        None => None,
    };
    if get.is_some() {
        if !properties.is_empty() {
            r.error(
                pos,
                &format!("{path}.properties"),
                "a resource read with `get` takes no `properties`",
            );
        }
        if let Some(p) = options_pos.get("import") {
            r.error(
                *p,
                &format!("{path}.options.import"),
                "a resource read with `get` cannot also be imported",
            );
        }
    }
    if type_.starts_with("pulumi:providers:") && options.import.is_some() {
        r.error(
            options_pos["import"],
            &format!("{path}.options.import"),
            "provider resources cannot be imported",
        );
    }
    let logical_name = map
        .get_node("name")
        .and_then(|n| r.string(n, &format!("{path}.name")))
        .filter(|n| !n.is_empty());
    Some(ResourceDecl {
        name: name.to_string(),
        logical_name,
        pos,
        type_,
        type_pos,
        properties,
        options,
        options_pos,
        get,
    })
}

/// Whether an option's target is a URN (a resource of the stack) rather than a program name.
pub fn is_stack_reference(target: &str) -> bool {
    target.starts_with("urn:pulumi:")
}

//! The program's side of the resource monitor: evaluates expressions against config,
//! variables and the results of registered resources. In a preview, what a resource's
//! registration does not know yet (a created resource's ID and outputs) is unknown, as in Pulumi.

use std::collections::{BTreeMap, BTreeSet, HashMap};

use base64::Engine as _;

use crate::program::expr::{Accessor, Builtin, Expr, ExprKind, Part, Pos, Reference};
use ferry_property::{Asset, AssetSource, PropertyMap, PropertyValue, ResourceReference};

/// What a registration handed back to the program.
#[derive(Debug, Clone)]
pub struct Registered {
    pub urn: String,
    /// The ID, or `Computed` until known.
    pub id: PropertyValue,
    pub outputs: PropertyMap,
    /// Whether `outputs` is complete: a property missing from a complete set is null; from an
    /// incomplete one (a create in a preview), unknown.
    pub complete: bool,
}

pub use ferry_types::previews::ConfigValue;

pub type EvalError = (Pos, String);

/// Everything an expression can refer to.
pub struct Scope {
    pub stack: String,
    pub project: String,
    pub organization: String,
    pub config: HashMap<String, PropertyValue>,
    pub variables: HashMap<String, PropertyValue>,
    pub resources: HashMap<String, Registered>,
    /// Raw stack config (`key` or `project:key`) for namespaced keys the program does not declare.
    pub raw_config: BTreeMap<String, ConfigValue>,
}

fn secret_if(secret: bool, v: PropertyValue) -> PropertyValue {
    match v {
        PropertyValue::Secret(_) | PropertyValue::Computed => v,
        v if secret => PropertyValue::Secret(Box::new(v)),
        v => v,
    }
}

/// The value inside secrets, and whether there was one.
fn reveal(v: PropertyValue) -> (PropertyValue, bool) {
    match v {
        PropertyValue::Secret(inner) => (reveal(*inner).0, true),
        PropertyValue::Output(o) => match o.element {
            Some(e) => {
                let (v, s) = reveal(*e);
                (v, s || o.secret)
            }
            None => (PropertyValue::Computed, o.secret),
        },
        v => (v, false),
    }
}

fn to_text(v: &PropertyValue) -> Option<String> {
    match v {
        PropertyValue::String(s) => Some(s.clone()),
        PropertyValue::Number(n) if n.fract() == 0.0 && n.abs() < 1e15 => {
            Some(format!("{}", *n as i64))
        }
        PropertyValue::Number(n) => Some(n.to_string()),
        PropertyValue::Bool(b) => Some(b.to_string()),
        PropertyValue::Null => Some(String::new()),
        _ => None,
    }
}

fn plain_json(v: &PropertyValue) -> Option<serde_json::Value> {
    use serde_json::Value as J;
    Some(match v {
        PropertyValue::Null => J::Null,
        PropertyValue::Bool(b) => J::Bool(*b),
        PropertyValue::Number(n) => {
            serde_json::Number::from_f64(*n).map(J::Number).unwrap_or(J::Null)
        }
        PropertyValue::String(s) => J::String(s.clone()),
        PropertyValue::Array(a) => J::Array(a.iter().map(plain_json).collect::<Option<_>>()?),
        PropertyValue::Object(o) => J::Object(
            o.iter().map(|(k, v)| Some((k.clone(), plain_json(v)?))).collect::<Option<_>>()?,
        ),
        PropertyValue::Secret(inner) => plain_json(inner)?,
        _ => return None,
    })
}

impl Scope {
    /// Parses a config value by its declared type.
    pub fn typed_config(
        key: &str,
        text: &str,
        type_: Option<&str>,
    ) -> Result<PropertyValue, String> {
        let t = type_.unwrap_or("string").to_ascii_lowercase();
        let bad = |what: &str| format!("config `{key}` must be {what}, not `{text}`");
        Ok(match t.as_str() {
            "integer" => PropertyValue::Number(
                text.trim().parse::<i64>().map_err(|_| bad("an integer"))? as f64,
            ),
            "number" => {
                PropertyValue::Number(text.trim().parse::<f64>().map_err(|_| bad("a number"))?)
            }
            "boolean" => PropertyValue::Bool(
                text.trim().parse::<bool>().map_err(|_| bad("`true` or `false`"))?,
            ),
            t if t.starts_with("list<") => {
                let json: serde_json::Value =
                    serde_json::from_str(text).map_err(|_| bad("a JSON list"))?;
                let arr = json.as_array().cloned().ok_or_else(|| bad("a JSON list"))?;
                PropertyValue::Array(
                    arr.iter()
                        .map(|v| {
                            ferry_property::json::decode_value(v, key, &Default::default())
                                .map_err(|e| e.to_string())
                        })
                        .collect::<Result<_, _>>()?,
                )
            }
            _ => PropertyValue::String(text.to_string()),
        })
    }

    /// Evaluates `e`; `deps` collects the names of the resources it used.
    pub fn eval(&self, e: &Expr, deps: &mut BTreeSet<String>) -> Result<PropertyValue, EvalError> {
        Ok(match &e.kind {
            ExprKind::Null => PropertyValue::Null,
            ExprKind::Bool(b) => PropertyValue::Bool(*b),
            ExprKind::Number(n) => PropertyValue::Number(*n),
            ExprKind::String(s) => PropertyValue::String(s.clone()),
            ExprKind::Ref(r) => self.resolve(r, deps)?,
            ExprKind::Interpolate(parts) => {
                let mut out = String::new();
                let mut secret = false;
                for p in parts {
                    match p {
                        Part::Text(t) => out.push_str(t),
                        Part::Ref(r) => {
                            let (v, s) = reveal(self.resolve(r, deps)?);
                            secret |= s;
                            if v.contains_unknowns() {
                                return Ok(PropertyValue::Computed);
                            }
                            out.push_str(
                                &to_text(&v).ok_or_else(|| {
                                    (r.pos, format!("`${{{}}}` is not a string, number or boolean, so it cannot be part of a string", r.text))
                                })?,
                            );
                        }
                    }
                }
                secret_if(secret, PropertyValue::String(out))
            }
            ExprKind::List(items) => PropertyValue::Array(
                items.iter().map(|i| self.eval(i, deps)).collect::<Result<_, _>>()?,
            ),
            ExprKind::Object(entries) => PropertyValue::Object(
                entries
                    .iter()
                    .map(|(k, v)| Ok((k.clone(), self.eval(v, deps)?)))
                    .collect::<Result<_, EvalError>>()?,
            ),
            ExprKind::Call(f, arg) => self.call(*f, arg, deps)?,
        })
    }

    fn call(
        &self,
        f: Builtin,
        arg: &Expr,
        deps: &mut BTreeSet<String>,
    ) -> Result<PropertyValue, EvalError> {
        let pos = arg.pos;
        let value = self.eval(arg, deps)?;
        if f == Builtin::Secret {
            return Ok(match value {
                PropertyValue::Secret(_) => value,
                v => PropertyValue::Secret(Box::new(v)),
            });
        }
        let (value, secret) = reveal(value);
        if value.contains_unknowns() {
            return Ok(PropertyValue::Computed);
        }
        let args = |n: usize| -> Result<Vec<PropertyValue>, EvalError> {
            match &value {
                PropertyValue::Array(a) if a.len() == n => {
                    Ok(a.iter().cloned().map(|v| reveal(v).0).collect())
                }
                _ => Err((pos, format!("`{}` takes a list of {n} arguments", f.name()))),
            }
        };
        let text = |v: &PropertyValue, what: &str| {
            to_text(v).ok_or_else(|| (pos, format!("`{}`: {what} must be a string", f.name())))
        };
        let result = match f {
            Builtin::Secret => unreachable!(),
            Builtin::Join => {
                let a = args(2)?;
                let sep = text(&a[0], "the separator")?;
                let PropertyValue::Array(items) = &a[1] else {
                    return Err((pos, "`fn::join`: the second argument must be a list".into()));
                };
                let mut parts = Vec::new();
                let mut any_secret = false;
                for i in items {
                    let (v, s) = reveal(i.clone());
                    any_secret |= s;
                    if v.contains_unknowns() {
                        return Ok(PropertyValue::Computed);
                    }
                    parts.push(text(&v, "every item")?);
                }
                secret_if(any_secret, PropertyValue::String(parts.join(&sep)))
            }
            Builtin::Split => {
                let a = args(2)?;
                let sep = text(&a[0], "the separator")?;
                let s = text(&a[1], "the value")?;
                PropertyValue::Array(
                    s.split(sep.as_str()).map(|p| PropertyValue::String(p.to_string())).collect(),
                )
            }
            Builtin::Select => {
                let a = args(2)?;
                let PropertyValue::Number(i) = a[0] else {
                    return Err((pos, "`fn::select`: the index must be a number".into()));
                };
                let PropertyValue::Array(items) = &a[1] else {
                    return Err((pos, "`fn::select`: the second argument must be a list".into()));
                };
                items.get(i as usize).cloned().ok_or_else(|| {
                    (
                        pos,
                        format!("`fn::select`: index {i} is past the list's {} items", items.len()),
                    )
                })?
            }
            Builtin::ToJson => {
                let json =
                    plain_json(&value).ok_or_else(|| (pos, "`fn::toJSON`: the value holds something JSON cannot (an asset or a resource)".to_string()))?;
                PropertyValue::String(json.to_string())
            }
            Builtin::ToBase64 => PropertyValue::String(
                base64::engine::general_purpose::STANDARD.encode(text(&value, "the value")?),
            ),
            Builtin::FromBase64 => {
                let bytes = base64::engine::general_purpose::STANDARD
                    .decode(text(&value, "the value")?)
                    .map_err(|e| (pos, format!("`fn::fromBase64`: {e}")))?;
                PropertyValue::String(String::from_utf8(bytes).map_err(|_| {
                    (pos, "`fn::fromBase64`: the result is not UTF-8 text".to_string())
                })?)
            }
            Builtin::StringAsset => PropertyValue::Asset(Asset {
                hash: None,
                source: AssetSource::Text(text(&value, "the value")?),
            }),
        };
        Ok(secret_if(secret, result))
    }

    fn resolve(
        &self,
        r: &Reference,
        deps: &mut BTreeSet<String>,
    ) -> Result<PropertyValue, EvalError> {
        let root = r.root.as_str();
        let (mut value, mut complete, path): (PropertyValue, bool, &[Accessor]) = if root
            == "pulumi"
        {
            let which = match r.path.first() {
                Some(Accessor::Property(p)) => p.as_str(),
                _ => "",
            };
            let v = match which {
                "stack" => &self.stack,
                "project" => &self.project,
                _ => &self.organization,
            };
            (PropertyValue::String(v.clone()), true, &[])
        } else if let Some(res) = self.resources.get(root) {
            deps.insert(root.to_string());
            match r.path.first() {
                None => (
                    PropertyValue::ResourceReference(ResourceReference {
                        urn: res.urn.clone(),
                        id: Some(Box::new(res.id.clone())),
                        package_version: String::new(),
                    }),
                    true,
                    &[],
                ),
                Some(Accessor::Property(p)) if p == "id" => (res.id.clone(), true, &r.path[1..]),
                Some(Accessor::Property(p)) if p == "urn" => {
                    (PropertyValue::String(res.urn.clone()), true, &r.path[1..])
                }
                Some(Accessor::Property(p)) => match res.outputs.get(p) {
                    Some(v) => (v.clone(), res.complete, &r.path[1..]),
                    None if res.complete => (PropertyValue::Null, true, &r.path[1..]),
                    None => (PropertyValue::Computed, false, &[]),
                },
                Some(Accessor::Index(_)) => {
                    return Err((r.pos, format!("`${{{}}}`: a resource cannot be indexed", r.text)))
                }
            }
        } else if let Some(v) = self.variables.get(root).or_else(|| self.config.get(root)) {
            (v.clone(), true, &r.path[..])
        } else if let Some(c) = self
            .raw_config
            .get(root)
            .or_else(|| self.raw_config.get(&format!("{}:{root}", self.project)))
        {
            (secret_if(c.secret, PropertyValue::String(c.value.clone())), true, &r.path[..])
        } else {
            return Err((r.pos, format!("`${{{}}}`: config `{root}` is not set", r.text)));
        };
        let mut secret = false;
        for step in path {
            let (inner, s) = reveal(value);
            secret |= s;
            value = match (inner, step) {
                (PropertyValue::Computed, _) => PropertyValue::Computed,
                (PropertyValue::Object(mut m), Accessor::Property(p)) => match m.remove(p) {
                    Some(v) => v,
                    None if complete => PropertyValue::Null,
                    None => PropertyValue::Computed,
                },
                (PropertyValue::Array(mut a), Accessor::Index(i)) if *i < a.len() => {
                    a.swap_remove(*i)
                }
                (PropertyValue::Array(a), Accessor::Index(i)) => {
                    if !complete {
                        PropertyValue::Computed
                    } else {
                        return Err((
                            r.pos,
                            format!(
                                "`${{{}}}`: index {i} is past the list's {} items",
                                r.text,
                                a.len()
                            ),
                        ));
                    }
                }
                (PropertyValue::Null, _) => PropertyValue::Null,
                (other, _) => {
                    let kind = match other {
                        PropertyValue::String(_) => "a string",
                        PropertyValue::Number(_) => "a number",
                        PropertyValue::Bool(_) => "a boolean",
                        PropertyValue::Array(_) => "a list",
                        PropertyValue::Object(_) => "an object",
                        _ => "a value that has no properties",
                    };
                    return Err((
                        r.pos,
                        format!("`${{{}}}`: cannot take {step:?} of {kind}", r.text),
                    ));
                }
            };
            complete = complete && !matches!(value, PropertyValue::Computed);
        }
        Ok(secret_if(secret, value))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn config_values_take_their_declared_types() {
        assert_eq!(
            Scope::typed_config("n", "42", Some("integer")),
            Ok(PropertyValue::Number(42.0))
        );
        assert_eq!(
            Scope::typed_config("b", "true", Some("boolean")),
            Ok(PropertyValue::Bool(true))
        );
        assert_eq!(Scope::typed_config("s", "x", None), Ok(PropertyValue::String("x".into())));
        assert_eq!(
            Scope::typed_config("l", r#"["a", "b"]"#, Some("List<String>")),
            Ok(PropertyValue::Array(vec![
                PropertyValue::String("a".into()),
                PropertyValue::String("b".into())
            ]))
        );
        assert!(Scope::typed_config("l", r#"{"a": 1}"#, Some("List<String>"))
            .unwrap_err()
            .contains("a JSON list"));
        assert!(Scope::typed_config("n", "4.5", Some("integer"))
            .unwrap_err()
            .contains("must be an integer"));
    }
}

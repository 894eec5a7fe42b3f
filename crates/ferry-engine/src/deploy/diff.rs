//! Diffs: the provider's `Diff` answer read into a decision, the engine's own comparison for
//! providers without one, and the per-property explanation shown to users.

use std::collections::BTreeSet;

use ferry_rpc::pulumirpc::{property_diff, DiffResponse};
use serde_json::Value;

use super::step::{DiffCause, DiffKind, PropertyDiff};
use ferry_property::json::{encode_value, EncodeOptions, SecretEncoding};
use ferry_property::{PropertyMap, PropertyValue};

/// What a diff decided.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct DiffDecision {
    pub changed: Vec<String>,
    pub replace_keys: Vec<String>,
    pub delete_before_replace: bool,
    /// Per top-level property: the provider's kind for it.
    pub kinds: Vec<(String, DiffKind)>,
}

impl DiffDecision {
    pub fn has_changes(&self) -> bool {
        !self.changed.is_empty() || !self.replace_keys.is_empty()
    }
    pub fn replaces(&self) -> bool {
        !self.replace_keys.is_empty()
    }
}

fn top(path: &str) -> &str {
    path.split(['.', '[']).next().unwrap_or(path)
}

/// Reads a provider's answer; `None` when the provider could not tell (`DIFF_UNKNOWN`), so the
/// engine compares for itself.
pub fn from_response(r: &DiffResponse) -> Option<DiffDecision> {
    use ferry_rpc::pulumirpc::diff_response::DiffChanges;
    let changes = DiffChanges::try_from(r.changes).unwrap_or(DiffChanges::DiffUnknown);
    if changes == DiffChanges::DiffUnknown
        && r.diffs.is_empty()
        && r.replaces.is_empty()
        && r.detailed_diff.is_empty()
    {
        return None;
    }
    if changes == DiffChanges::DiffNone {
        return Some(DiffDecision::default());
    }
    let mut changed: BTreeSet<String> = r.diffs.iter().cloned().collect();
    let mut replace: BTreeSet<String> = r.replaces.iter().cloned().collect();
    let mut kinds = Vec::new();
    for (path, d) in &r.detailed_diff {
        use property_diff::Kind;
        let kind = match Kind::try_from(d.kind).unwrap_or(Kind::Update) {
            Kind::Add => DiffKind::Add,
            Kind::Delete => DiffKind::Delete,
            Kind::Update => DiffKind::Update,
            Kind::AddReplace | Kind::DeleteReplace | Kind::UpdateReplace => {
                replace.insert(top(path).to_string());
                DiffKind::Replace
            }
        };
        changed.insert(top(path).to_string());
        kinds.push((path.clone(), kind));
    }
    for k in &replace {
        changed.insert(top(k).to_string());
    }
    Some(DiffDecision {
        changed: changed.into_iter().collect(),
        replace_keys: replace.into_iter().collect(),
        delete_before_replace: r.delete_before_replace,
        kinds,
    })
}

/// The engine's comparison of old and new inputs, for providers without a Diff (Pulumi's
/// legacy diff): every differing top-level input is an update; unknowns count as changes.
pub fn engine_diff(
    old_inputs: &PropertyMap,
    news: &PropertyMap,
    ignore: &[String],
) -> DiffDecision {
    let keys: BTreeSet<&String> = old_inputs.keys().chain(news.keys()).collect();
    let mut d = DiffDecision::default();
    for k in keys {
        if ignore.iter().any(|i| top(i) == k) {
            continue;
        }
        let (a, b) = (old_inputs.get(k), news.get(k));
        let differs = match (a, b) {
            (Some(a), Some(b)) => b.contains_unknowns() || strip_secret(a) != strip_secret(b),
            (None, None) => false,
            _ => true,
        };
        if differs {
            d.changed.push(k.clone());
            d.kinds.push((
                k.clone(),
                if a.is_none() {
                    DiffKind::Add
                } else if b.is_none() {
                    DiffKind::Delete
                } else {
                    DiffKind::Update
                },
            ));
        }
    }
    d
}

fn strip_secret(v: &PropertyValue) -> &PropertyValue {
    match v {
        PropertyValue::Secret(inner) => strip_secret(inner),
        other => other,
    }
}

/// `""`, `0`, `false`, `[]`, `{}` or null.
pub fn is_zero_value(v: &PropertyValue) -> bool {
    match strip_secret(v) {
        PropertyValue::Null => true,
        PropertyValue::Bool(b) => !b,
        PropertyValue::Number(n) => *n == 0.0,
        PropertyValue::String(s) => s.is_empty(),
        PropertyValue::Array(a) => a.is_empty(),
        PropertyValue::Object(o) => o.is_empty(),
        _ => false,
    }
}

/// A value for display: secrets masked, unknowns shown as Pulumi writes them.
pub fn shown(v: &PropertyValue) -> Value {
    let opts = EncodeOptions { secrets: SecretEncoding::Plaintext, ..EncodeOptions::wire() };
    let json = encode_value(v, &opts).unwrap_or(Value::Null);
    unknowns_named(ferry_state::sig::mask_secrets(&json))
}

/// A property map for display (an import's inputs and outputs): each value [`shown`].
pub fn shown_map(map: &PropertyMap) -> Value {
    Value::Object(map.iter().map(|(k, v)| (k.clone(), shown(v))).collect())
}

/// Unknowns as `[unknown]` rather than Pulumi's sentinel UUID.
fn unknowns_named(v: Value) -> Value {
    match v {
        Value::String(s) if s == ferry_state::sig::UNKNOWN_VALUE => {
            Value::String("[unknown]".into())
        }
        Value::Array(items) => Value::Array(items.into_iter().map(unknowns_named).collect()),
        Value::Object(m) => {
            Value::Object(m.into_iter().map(|(k, v)| (k, unknowns_named(v))).collect())
        }
        other => other,
    }
}

/// Explains every property of a resource: the program's value, the current one, the checked
/// one, how it changes and why. `all` lists unchanged properties too (imports); otherwise only
/// those that differ somewhere.
pub fn explain(
    program: &PropertyMap,
    current: &PropertyMap,
    checked: Option<&PropertyMap>,
    decision: &DiffDecision,
    ignore: &[String],
    all: bool,
) -> Vec<PropertyDiff> {
    let mut keys: BTreeSet<&str> =
        program.keys().chain(current.keys()).map(String::as_str).collect();
    if let Some(c) = checked {
        keys.extend(c.keys().map(String::as_str));
    }
    let mut out = Vec::new();
    let mut leaf = Leaf { decision, ignore, all, out: &mut out };
    for key in keys {
        let (p, r, c) = (program.get(key), current.get(key), checked.and_then(|c| c.get(key)));
        leaf.explain(&property_path(None, key), key, p, r, c);
    }
    // Nested paths the provider reported that no leaf above stands for follow at the end.
    let listed: BTreeSet<String> = out.iter().map(|d| d.path.clone()).collect();
    for (path, kind) in
        decision.kinds.iter().filter(|(p, _)| p.as_str() != top(p) && !listed.contains(p.as_str()))
    {
        out.push(PropertyDiff {
            path: path.clone(),
            kind: *kind,
            cause: DiffCause::Program,
            program: None,
            read: None,
            checked: None,
        });
    }
    out
}

/// `tags["cost-center"]`, `versioning.mfaDelete`, `groups[0]`: Pulumi's property paths.
fn property_path(parent: Option<&str>, key: &str) -> String {
    let plain = key.chars().next().is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && key.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
    match (parent, plain) {
        (None, true) => key.to_string(),
        (Some(p), true) => format!("{p}.{key}"),
        (p, false) => format!(
            "{}[{}]",
            p.unwrap_or(""),
            serde_json::to_string(key).expect("a string serialises")
        ),
    }
}

/// Walks a property down to its leaves, each explained with its own cause.
struct Leaf<'a> {
    decision: &'a DiffDecision,
    ignore: &'a [String],
    all: bool,
    out: &'a mut Vec<PropertyDiff>,
}

impl Leaf<'_> {
    fn ignored(&self, path: &str) -> bool {
        self.ignore.iter().any(|i| {
            path == i
                || path.starts_with(&format!("{i}."))
                || path.starts_with(&format!("{i}["))
                || top(i) == path
        })
    }

    /// `top_key` is the top-level property the path is under (what the decision names).
    fn explain(
        &mut self,
        path: &str,
        top_key: &str,
        p: Option<&PropertyValue>,
        r: Option<&PropertyValue>,
        c: Option<&PropertyValue>,
    ) {
        let (ps, rs, cs) = (p.map(strip_secret), r.map(strip_secret), c.map(strip_secret));
        let same_everywhere = ps == rs && (cs.is_none() || cs == ps);
        // Objects (and lists of one length) that differ are explained leaf by leaf; secrets and
        // values only one side has stay whole.
        if !same_everywhere
            && !matches!(p, Some(PropertyValue::Secret(_)))
            && !matches!(r, Some(PropertyValue::Secret(_)))
        {
            match (ps, rs, cs) {
                (
                    Some(PropertyValue::Object(a)),
                    Some(PropertyValue::Object(b)),
                    cc @ (None | Some(PropertyValue::Object(_))),
                ) => {
                    let cc = match cc {
                        Some(PropertyValue::Object(m)) => Some(m),
                        _ => None,
                    };
                    let mut keys: BTreeSet<&str> =
                        a.keys().chain(b.keys()).map(String::as_str).collect();
                    keys.extend(cc.into_iter().flat_map(|m| m.keys().map(String::as_str)));
                    for k in keys {
                        self.explain(
                            &property_path(Some(path), k),
                            top_key,
                            a.get(k),
                            b.get(k),
                            cc.and_then(|m| m.get(k)),
                        );
                    }
                    return;
                }
                (
                    Some(PropertyValue::Array(a)),
                    Some(PropertyValue::Array(b)),
                    cc @ (None | Some(PropertyValue::Array(_))),
                ) if a.len() == b.len() => {
                    let cc = match cc {
                        Some(PropertyValue::Array(v)) if v.len() == a.len() => Some(v),
                        _ => None,
                    };
                    for i in 0..a.len() {
                        self.explain(
                            &format!("{path}[{i}]"),
                            top_key,
                            a.get(i),
                            b.get(i),
                            cc.and_then(|v| v.get(i)),
                        );
                    }
                    return;
                }
                _ => {}
            }
        }
        let decision = self.decision;
        let ignored = self.ignored(path);
        let provider_kind = decision.kinds.iter().find(|(k, _)| k == path).map(|(_, k)| *k);
        // An ignored leaf keeps the resource's value: it changes nothing, whatever its parent does.
        let changed = decision.changed.iter().any(|k| k == top_key) && !same_everywhere && !ignored;
        let kind =
            if decision.replace_keys.iter().any(|k| k == top_key) && !same_everywhere && !ignored {
                DiffKind::Replace
            } else if let Some(k) = provider_kind {
                k
            } else if changed {
                match (r, c.or(p)) {
                    (None, Some(_)) => DiffKind::Add,
                    (Some(_), None) => DiffKind::Delete,
                    _ => DiffKind::Update,
                }
            } else {
                DiffKind::None
            };
        let cause = if ignored {
            DiffCause::Ignored
        } else if same_everywhere {
            DiffCause::Equal
        } else if p.is_none() && c.is_some() {
            // Check filled it in: a provider default (equal to the resource's value, or not).
            DiffCause::ProviderDefault
        } else if p.is_none() && r.is_some_and(is_zero_value) {
            DiffCause::ZeroValue
        } else if p.is_none() {
            DiffCause::Missing
        } else {
            DiffCause::Program
        };
        if !self.all
            && kind == DiffKind::None
            && matches!(cause, DiffCause::Equal | DiffCause::Ignored)
        {
            return;
        }
        self.out.push(PropertyDiff {
            path: path.to_string(),
            kind,
            cause,
            program: p.map(shown),
            read: r.map(shown),
            checked: c.map(shown),
        });
    }
}

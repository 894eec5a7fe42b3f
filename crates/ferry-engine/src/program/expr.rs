//! Pulumi YAML expressions: literals, `${resource.property[0].key}` references, string
//! interpolation and the built-in `fn::` functions Ferry evaluates.

use serde::Serialize;

/// Where something is in a program file (1-based).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize)]
pub struct Pos {
    pub line: usize,
    pub column: usize,
}

/// One step of a reference's path after its root name.
#[derive(Debug, Clone, PartialEq)]
pub enum Accessor {
    Property(String),
    Index(usize),
}

/// `${root.path...}`.
#[derive(Debug, Clone, PartialEq)]
pub struct Reference {
    pub root: String,
    pub path: Vec<Accessor>,
    pub pos: Pos,
    /// The text between `${` and `}`, for messages.
    pub text: String,
}

#[derive(Debug, Clone, PartialEq)]
pub enum Part {
    Text(String),
    Ref(Reference),
}

/// The built-in functions (`fn::name: args`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Builtin {
    Secret,
    Join,
    Split,
    Select,
    ToJson,
    ToBase64,
    FromBase64,
    StringAsset,
}

impl Builtin {
    pub const NAMES: &'static [(&'static str, Builtin)] = &[
        ("fn::secret", Builtin::Secret),
        ("fn::join", Builtin::Join),
        ("fn::split", Builtin::Split),
        ("fn::select", Builtin::Select),
        ("fn::toJSON", Builtin::ToJson),
        ("fn::toBase64", Builtin::ToBase64),
        ("fn::fromBase64", Builtin::FromBase64),
        ("fn::stringAsset", Builtin::StringAsset),
    ];

    pub fn name(self) -> &'static str {
        Builtin::NAMES.iter().find(|(_, b)| *b == self).map(|(n, _)| *n).unwrap_or("fn::?")
    }
}

#[derive(Debug, Clone, PartialEq)]
pub enum ExprKind {
    Null,
    Bool(bool),
    Number(f64),
    String(String),
    /// A string that is exactly one `${...}`: its value keeps its type.
    Ref(Reference),
    /// A string mixing text and references: always a string.
    Interpolate(Vec<Part>),
    List(Vec<Expr>),
    Object(Vec<(String, Expr)>),
    Call(Builtin, Box<Expr>),
}

#[derive(Debug, Clone, PartialEq)]
pub struct Expr {
    pub kind: ExprKind,
    pub pos: Pos,
}

impl Expr {
    /// Every reference inside, in order.
    pub fn references(&self) -> Vec<&Reference> {
        let mut out = Vec::new();
        self.collect(&mut out);
        out
    }

    fn collect<'a>(&'a self, out: &mut Vec<&'a Reference>) {
        match &self.kind {
            ExprKind::Ref(r) => out.push(r),
            ExprKind::Interpolate(parts) => out.extend(parts.iter().filter_map(|p| match p {
                Part::Ref(r) => Some(r),
                Part::Text(_) => None,
            })),
            ExprKind::List(items) => items.iter().for_each(|e| e.collect(out)),
            ExprKind::Object(entries) => entries.iter().for_each(|(_, e)| e.collect(out)),
            ExprKind::Call(_, arg) => arg.collect(out),
            _ => {}
        }
    }
}

/// Parses the references in a string scalar starting at `pos`. `$${` is a literal `${`.
pub fn parse_template(text: &str, pos: Pos) -> Result<ExprKind, String> {
    if !text.contains("${") {
        return Ok(ExprKind::String(text.to_string()));
    }
    let mut parts: Vec<Part> = Vec::new();
    let mut literal = String::new();
    let mut rest = text;
    while let Some(at) = rest.find("${") {
        if at > 0 && rest.as_bytes()[at - 1] == b'$' {
            literal.push_str(&rest[..at - 1]);
            literal.push_str("${");
            rest = &rest[at + 2..];
            continue;
        }
        literal.push_str(&rest[..at]);
        let after = &rest[at + 2..];
        let end =
            after.find('}').ok_or_else(|| format!("`${{` without a closing `}}` in `{text}`"))?;
        let inner = after[..end].trim();
        if !literal.is_empty() {
            parts.push(Part::Text(std::mem::take(&mut literal)));
        }
        parts.push(Part::Ref(parse_reference(inner, pos)?));
        rest = &after[end + 1..];
    }
    literal.push_str(rest);
    if !literal.is_empty() {
        parts.push(Part::Text(literal));
    }
    match parts.as_slice() {
        [Part::Ref(r)] => Ok(ExprKind::Ref(r.clone())),
        _ if parts.iter().all(|p| matches!(p, Part::Text(_))) => Ok(ExprKind::String(
            parts
                .into_iter()
                .map(|p| if let Part::Text(t) = p { t } else { String::new() })
                .collect(),
        )),
        _ => Ok(ExprKind::Interpolate(parts)),
    }
}

/// `name.prop[0]["key"].sub`; the root may hold `:` (config keys like `aws:region`).
pub fn parse_reference(text: &str, pos: Pos) -> Result<Reference, String> {
    let bad = |why: &str| format!("`${{{text}}}` is not a valid reference: {why}");
    let root_end = text.find(['.', '[']).unwrap_or(text.len());
    let root = &text[..root_end];
    if root.is_empty() || !root.chars().all(|c| c.is_alphanumeric() || matches!(c, '_' | '-' | ':'))
    {
        return Err(bad("it must start with a resource, variable or config name"));
    }
    let mut path = Vec::new();
    let mut rest = &text[root_end..];
    while !rest.is_empty() {
        if let Some(r) = rest.strip_prefix('.') {
            let end = r.find(['.', '[']).unwrap_or(r.len());
            let name = &r[..end];
            if name.is_empty()
                || !name.chars().all(|c| c.is_alphanumeric() || matches!(c, '_' | '-' | '$'))
            {
                return Err(bad("a property name after `.` is missing or has odd characters"));
            }
            path.push(Accessor::Property(name.to_string()));
            rest = &r[end..];
        } else if let Some(r) = rest.strip_prefix('[') {
            let end = r.find(']').ok_or_else(|| bad("`[` without `]`"))?;
            let inside = r[..end].trim();
            if let Some(key) = inside.strip_prefix('"').and_then(|k| k.strip_suffix('"')) {
                path.push(Accessor::Property(key.to_string()));
            } else {
                let index = inside
                    .parse::<usize>()
                    .map_err(|_| bad("an index must be a number or a quoted key"))?;
                path.push(Accessor::Index(index));
            }
            rest = &r[end + 1..];
        } else {
            return Err(bad("expected `.` or `[`"));
        }
    }
    Ok(Reference { root: root.to_string(), path, pos, text: text.to_string() })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn templates_split_into_text_and_references() {
        let p = Pos::default();
        assert_eq!(parse_template("plain", p).unwrap(), ExprKind::String("plain".into()));
        assert!(
            matches!(parse_template("${a.b[0][\"k\"]}", p).unwrap(), ExprKind::Ref(r) if r.root == "a" && r.path == vec![
            Accessor::Property("b".into()), Accessor::Index(0), Accessor::Property("k".into())])
        );
        assert!(
            matches!(parse_template("x-${aws:region}-y", p).unwrap(), ExprKind::Interpolate(parts) if parts.len() == 3)
        );
        assert_eq!(parse_template("$${not}", p).unwrap(), ExprKind::String("${not}".into()));
        assert!(parse_template("${a.}", p).is_err());
        assert!(parse_template("${a", p).is_err());
    }
}

//! Terraform's addresses: a resource instance's (`module.a.module.b[0].aws_s3_bucket.b["x"]`),
//! its index key (`count`'s number, `for_each`'s string), and a provider's
//! (`provider["registry.terraform.io/hashicorp/aws"].west`), with the Pulumi package that maps a
//! provider where Ferry can tell.

use std::fmt;

/// A `count` index or a `for_each` key.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum IndexKey {
    Number(i64),
    Text(String),
}

impl IndexKey {
    /// The key as JSON gives it (`index_key`, `index`): a number or a string.
    pub fn from_json(value: &serde_json::Value) -> Option<IndexKey> {
        match value {
            serde_json::Value::Number(n) => n.as_i64().map(IndexKey::Number),
            serde_json::Value::String(s) => Some(IndexKey::Text(s.clone())),
            _ => None,
        }
    }
}

impl IndexKey {
    /// The key itself: `0`, `prod`.
    pub fn text(&self) -> String {
        match self {
            IndexKey::Number(n) => n.to_string(),
            IndexKey::Text(s) => s.clone(),
        }
    }
}

impl fmt::Display for IndexKey {
    /// As an address writes it: `[0]`, `["key"]` (quoted and escaped as Terraform does).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            IndexKey::Number(n) => write!(f, "[{n}]"),
            IndexKey::Text(s) => write!(f, "[{}]", serde_json::Value::String(s.clone())),
        }
    }
}

pub use ferry_types::terraform::Mode;

/// A resource instance's address, in its parts.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Address {
    /// The module path (`module.a.module.b[0]`), empty at the root.
    pub module: String,
    pub mode: Mode,
    pub type_: String,
    pub name: String,
    pub key: Option<IndexKey>,
}

impl fmt::Display for Address {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if !self.module.is_empty() {
            write!(f, "{}.", self.module)?;
        }
        if self.mode == Mode::Data {
            write!(f, "data.")?;
        }
        write!(f, "{}.{}", self.type_, self.name)?;
        if let Some(key) = &self.key {
            write!(f, "{key}")?;
        }
        Ok(())
    }
}

impl Address {
    /// The address of the resource (all its instances): without the index key.
    pub fn resource(&self) -> String {
        Address { key: None, ..self.clone() }.to_string()
    }

    /// The module path's names and keys, outermost first: `module.a.module.b[0]` is
    /// `[("a", None), ("b", Some(0))]`.
    pub fn modules(&self) -> Vec<(String, Option<IndexKey>)> {
        parse_module_path(&self.module).unwrap_or_default()
    }
}

/// Parses a module path (`module.a.module.b[0]`, `module.x["k"]`); `None` when it is not one.
pub fn parse_module_path(path: &str) -> Option<Vec<(String, Option<IndexKey>)>> {
    let mut out = Vec::new();
    let mut rest = path;
    while !rest.is_empty() {
        rest = rest.strip_prefix("module.")?;
        let end = rest.find(['.', '[']).unwrap_or(rest.len());
        let name = &rest[..end];
        if name.is_empty() {
            return None;
        }
        rest = &rest[end..];
        let key = if rest.starts_with('[') {
            let (key, after) = parse_key(rest)?;
            rest = after;
            Some(key)
        } else {
            None
        };
        out.push((name.to_string(), key));
        rest = rest.strip_prefix('.').unwrap_or(rest);
    }
    Some(out)
}

/// Reads `[0]` or `["text"]` from the start of `s`; the key and what follows it.
fn parse_key(s: &str) -> Option<(IndexKey, &str)> {
    let inner = s.strip_prefix('[')?;
    if inner.starts_with('"') {
        // A JSON string: find its end honouring escapes, then read it as JSON.
        let mut escaped = false;
        for (i, c) in inner.char_indices().skip(1) {
            match (escaped, c) {
                (true, _) => escaped = false,
                (false, '\\') => escaped = true,
                (false, '"') => {
                    let text: String = serde_json::from_str(&inner[..=i]).ok()?;
                    let after = inner[i + 1..].strip_prefix(']')?;
                    return Some((IndexKey::Text(text), after));
                }
                _ => {}
            }
        }
        None
    } else {
        let end = inner.find(']')?;
        let n = inner[..end].parse().ok()?;
        Some((IndexKey::Number(n), &inner[end + 1..]))
    }
}

/// A provider: its source address (`registry.terraform.io/hashicorp/aws`) and alias.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct ProviderAddress {
    /// `registry.terraform.io`, `registry.opentofu.org`, or another registry's host.
    pub host: String,
    pub namespace: String,
    /// The provider's type (`aws`, `random`): the first part of its resource types.
    pub type_: String,
    pub alias: Option<String>,
}

impl ProviderAddress {
    /// Reads a state file's `provider` (`provider["registry.terraform.io/hashicorp/aws"]`,
    /// `….west` for an alias, or the older `provider.aws` / `provider.aws.west`) or a `show
    /// -json` `provider_name` (`registry.terraform.io/hashicorp/aws`).
    pub fn parse(text: &str) -> Option<ProviderAddress> {
        if let Some(rest) = text.strip_prefix("provider[") {
            let end = rest.find("\"]")?;
            let source: String = serde_json::from_str(&rest[..=end]).ok()?;
            let after = &rest[end + 2..];
            let alias = after.strip_prefix('.').filter(|a| !a.is_empty()).map(str::to_string);
            return ProviderAddress::of_source(&source, alias);
        }
        if let Some(rest) = text.strip_prefix("provider.") {
            let (type_, alias) = match rest.split_once('.') {
                Some((t, a)) => (t, Some(a.to_string())),
                None => (rest, None),
            };
            return ProviderAddress::of_source(type_, alias);
        }
        ProviderAddress::of_source(text, None)
    }

    /// A source address `host/namespace/type`, `namespace/type` or `type` (the default
    /// registry and `hashicorp`, as Terraform reads them).
    fn of_source(source: &str, alias: Option<String>) -> Option<ProviderAddress> {
        let parts: Vec<&str> = source.split('/').collect();
        let (host, namespace, type_) = match parts.as_slice() {
            [host, namespace, type_] => (*host, *namespace, *type_),
            [namespace, type_] => ("registry.terraform.io", *namespace, *type_),
            [type_] => ("registry.terraform.io", "hashicorp", *type_),
            _ => return None,
        };
        if [host, namespace, type_].iter().any(|p| p.is_empty()) {
            return None;
        }
        Some(ProviderAddress {
            host: host.to_string(),
            namespace: namespace.to_string(),
            type_: type_.to_string(),
            alias,
        })
    }

    /// `namespace/type`, the name both registries use for the provider.
    pub fn source(&self) -> String {
        format!("{}/{}", self.namespace, self.type_)
    }
}

impl fmt::Display for ProviderAddress {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}/{}/{}", self.host, self.namespace, self.type_)?;
        if let Some(alias) = &self.alias {
            write!(f, " (alias `{alias}`)")?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn instance_addresses_write_every_part() {
        let a = Address {
            module: "module.a.module.b[0]".into(),
            mode: Mode::Managed,
            type_: "aws_s3_bucket".into(),
            name: "b".into(),
            key: Some(IndexKey::Text("x\"y".into())),
        };
        assert_eq!(a.to_string(), r#"module.a.module.b[0].aws_s3_bucket.b["x\"y"]"#);
        assert_eq!(a.resource(), "module.a.module.b[0].aws_s3_bucket.b");
        let d = Address {
            module: String::new(),
            mode: Mode::Data,
            type_: "aws_region".into(),
            name: "current".into(),
            key: None,
        };
        assert_eq!(d.to_string(), "data.aws_region.current");
        assert_eq!(
            a.modules(),
            [("a".to_string(), None), ("b".to_string(), Some(IndexKey::Number(0)))]
        );
        assert_eq!(
            parse_module_path(r#"module.x["a.b"].module.y"#).unwrap()[0],
            ("x".to_string(), Some(IndexKey::Text("a.b".into())))
        );
        assert!(parse_module_path("modul.x").is_none());
        assert!(parse_module_path("module.x[").is_none());
    }

    #[test]
    fn providers_read_from_every_form() {
        let p = ProviderAddress::parse(r#"provider["registry.terraform.io/hashicorp/aws"].west"#)
            .unwrap();
        assert_eq!(
            (p.host.as_str(), p.source(), p.alias.as_deref()),
            ("registry.terraform.io", "hashicorp/aws".to_string(), Some("west"))
        );
        assert_eq!(p.pulumi_package(), Some("aws"));
        let tofu = ProviderAddress::parse(r#"provider["registry.opentofu.org/hashicorp/random"]"#)
            .unwrap();
        assert_eq!(
            (tofu.host.as_str(), tofu.type_.as_str(), tofu.alias),
            ("registry.opentofu.org", "random", None)
        );
        let shown = ProviderAddress::parse("registry.opentofu.org/cyrilgdn/postgresql").unwrap();
        assert_eq!(shown.pulumi_package(), Some("postgresql"));
        let legacy = ProviderAddress::parse("provider.aws.east").unwrap();
        assert_eq!(
            (legacy.source(), legacy.alias.as_deref()),
            ("hashicorp/aws".to_string(), Some("east"))
        );
        assert_eq!(
            ProviderAddress::parse("registry.terraform.io/someone/thing").unwrap().pulumi_package(),
            None
        );
        assert!(ProviderAddress::parse(r#"provider["#).is_none());
    }
}

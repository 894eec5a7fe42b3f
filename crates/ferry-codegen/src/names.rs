//! Names per language: words from any resource name, camelCase / PascalCase / snake_case,
//! keywords avoided, and collisions resolved deterministically (first come keeps the name).

use std::collections::HashSet;

/// An identifier Python, Go and C# print as it is: ASCII letters, digits and `_`, not starting
/// with a digit, not one of the language's keywords. Made only by [`Ident::new`], which renames
/// anything else (each other character an `_`, an `_` before a leading digit, one after a
/// keyword, as Pulumi's SDKs spell such properties), so a name from a state or a schema can never
/// become code.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Ident(String);

impl Ident {
    pub fn new(raw: &str, keywords: &[&str]) -> Ident {
        let mut out: String = raw
            .chars()
            .map(|c| if c.is_ascii_alphanumeric() || c == '_' { c } else { '_' })
            .collect();
        if out.is_empty() || out.starts_with(|c: char| c.is_ascii_digit()) {
            out.insert(0, '_');
        }
        if keywords.contains(&out.as_str()) {
            out.push('_');
        }
        Ident(out)
    }

    /// Whether `raw` is an identifier already (so [`Ident::new`] keeps it as it is).
    pub fn is_plain(raw: &str, keywords: &[&str]) -> bool {
        Ident::new(raw, keywords).0 == raw
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl std::fmt::Display for Ident {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

/// The text of a one-line comment, safe in every language's line comment: every line break
/// (`\n`, `\r`, NEL, U+2028, U+2029, which Python, JavaScript or C# end a line at) and other
/// control character is a space, so what follows can never leave the comment. Made only by
/// [`Comment::new`].
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Comment(String);

impl Comment {
    pub fn new(text: &str) -> Comment {
        Comment(
            text.chars()
                .map(
                    |c| {
                        if c.is_control() || matches!(c, '\u{2028}' | '\u{2029}') {
                            ' '
                        } else {
                            c
                        }
                    },
                )
                .collect(),
        )
    }

    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
}

impl std::fmt::Display for Comment {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

/// Python's keywords: a keyword argument cannot be one.
pub const PYTHON_KEYWORDS: &[&str] = &[
    "False", "None", "True", "and", "as", "assert", "async", "await", "break", "class", "continue",
    "def", "del", "elif", "else", "except", "finally", "for", "from", "global", "if", "import",
    "in", "is", "lambda", "nonlocal", "not", "or", "pass", "raise", "return", "try", "while",
    "with", "yield",
];

/// Words of a name: split at non-alphanumerics and at case changes (`webDB-name2` → `web`,
/// `DB`, `name2`).
pub fn words(name: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut word = String::new();
    let chars: Vec<char> = name.chars().collect();
    for (i, &c) in chars.iter().enumerate() {
        if !c.is_ascii_alphanumeric() {
            if !word.is_empty() {
                out.push(std::mem::take(&mut word));
            }
            continue;
        }
        if c.is_ascii_uppercase() && !word.is_empty() {
            let prev = chars[i - 1];
            let next_lower = chars.get(i + 1).is_some_and(|n| n.is_ascii_lowercase());
            if prev.is_ascii_lowercase()
                || prev.is_ascii_digit()
                || (prev.is_ascii_uppercase() && next_lower)
            {
                out.push(std::mem::take(&mut word));
            }
        }
        word.push(c);
    }
    if !word.is_empty() {
        out.push(word);
    }
    out
}

fn capitalised(w: &str) -> String {
    let lower = w.to_ascii_lowercase();
    let mut c = lower.chars();
    c.next().map(|f| f.to_ascii_uppercase().to_string() + c.as_str()).unwrap_or_default()
}

pub fn camel(name: &str) -> String {
    let w = words(name);
    let mut out = String::new();
    for (i, word) in w.iter().enumerate() {
        if i == 0 {
            out.push_str(&word.to_ascii_lowercase());
        } else {
            out.push_str(&capitalised(word));
        }
    }
    out
}

pub fn pascal(name: &str) -> String {
    words(name).iter().map(|w| capitalised(w)).collect()
}

pub fn snake(name: &str) -> String {
    words(name).iter().map(|w| w.to_ascii_lowercase()).collect::<Vec<_>>().join("_")
}

/// A schema property name as a field name: first letter up (`byteLength` → `ByteLength`), as
/// Pulumi's Go and .NET SDKs spell them; an identifier whatever the name holds.
pub fn title(name: &str) -> Ident {
    let mut c = name.chars();
    let titled =
        c.next().map(|f| f.to_uppercase().collect::<String>() + c.as_str()).unwrap_or_default();
    Ident::new(&titled, &[])
}

/// A schema property name in Python: snake_case, acronyms kept together (`isCA` → `is_ca`,
/// `b64Std` → `b64_std`); an identifier whatever the name holds (`from` → `from_`).
pub fn python_property(name: &str) -> Ident {
    Ident::new(&python_snake(name), PYTHON_KEYWORDS)
}

/// [`python_property`]'s spelling without the identifier check: for text that is quoted (a
/// property path in `ignore_changes`).
pub fn python_snake(name: &str) -> String {
    let chars: Vec<char> = name.chars().collect();
    let mut out = String::new();
    for (i, &c) in chars.iter().enumerate() {
        if c.is_ascii_uppercase() {
            let prev = if i > 0 { Some(chars[i - 1]) } else { None };
            let next_lower = chars.get(i + 1).is_some_and(|n| n.is_ascii_lowercase());
            let boundary = match prev {
                Some(p) if p.is_ascii_lowercase() || p.is_ascii_digit() => true,
                Some(p) if p.is_ascii_uppercase() => next_lower,
                _ => false,
            };
            if boundary && !out.ends_with('_') {
                out.push('_');
            }
            out.push(c.to_ascii_lowercase());
        } else {
            out.push(c);
        }
    }
    out
}

pub const TS_RESERVED: &[&str] = &[
    "break",
    "case",
    "catch",
    "class",
    "const",
    "continue",
    "debugger",
    "default",
    "delete",
    "do",
    "else",
    "enum",
    "export",
    "extends",
    "false",
    "finally",
    "for",
    "function",
    "if",
    "import",
    "in",
    "instanceof",
    "new",
    "null",
    "return",
    "super",
    "switch",
    "this",
    "throw",
    "true",
    "try",
    "typeof",
    "var",
    "void",
    "while",
    "with",
    "as",
    "implements",
    "interface",
    "let",
    "package",
    "private",
    "protected",
    "public",
    "static",
    "yield",
    "await",
    "any",
    "boolean",
    "number",
    "string",
    "symbol",
    "type",
    "of",
    "arguments",
    "eval",
    "undefined",
    "pulumi",
    "config",
];
pub const PYTHON_RESERVED: &[&str] = &[
    "False", "None", "True", "and", "as", "assert", "async", "await", "break", "class", "continue",
    "def", "del", "elif", "else", "except", "finally", "for", "from", "global", "if", "import",
    "in", "is", "lambda", "nonlocal", "not", "or", "pass", "raise", "return", "try", "while",
    "with", "yield", "pulumi", "config", "id", "type", "input", "list", "dict", "str", "int",
    "float", "bool", "object", "print", "max", "min", "len", "range", "map", "filter", "set",
    "sum", "all", "any", "hash", "format", "open", "next", "iter", "zip", "vars", "super",
    "sorted", "round", "abs", "bytes", "tuple", "property",
];
pub const GO_RESERVED: &[&str] = &[
    "break",
    "case",
    "chan",
    "const",
    "continue",
    "default",
    "defer",
    "else",
    "fallthrough",
    "for",
    "func",
    "go",
    "goto",
    "if",
    "import",
    "interface",
    "map",
    "package",
    "range",
    "return",
    "select",
    "struct",
    "switch",
    "type",
    "var",
    "ctx",
    "err",
    "cfg",
    "pulumi",
    "config",
    "main",
    "nil",
    "true",
    "false",
    "string",
    "int",
    "bool",
    "error",
    "len",
    "new",
    "make",
    // The temporary a variable's text setting is read into.
    "param",
];
pub const CSHARP_RESERVED: &[&str] = &[
    "abstract",
    "as",
    "base",
    "bool",
    "break",
    "byte",
    "case",
    "catch",
    "char",
    "checked",
    "class",
    "const",
    "continue",
    "decimal",
    "default",
    "delegate",
    "do",
    "double",
    "else",
    "enum",
    "event",
    "explicit",
    "extern",
    "false",
    "finally",
    "fixed",
    "float",
    "for",
    "foreach",
    "goto",
    "if",
    "implicit",
    "in",
    "int",
    "interface",
    "internal",
    "is",
    "lock",
    "long",
    "namespace",
    "new",
    "null",
    "object",
    "operator",
    "out",
    "override",
    "params",
    "private",
    "protected",
    "public",
    "readonly",
    "ref",
    "return",
    "sbyte",
    "sealed",
    "short",
    "sizeof",
    "stackalloc",
    "static",
    "string",
    "struct",
    "switch",
    "this",
    "throw",
    "true",
    "try",
    "typeof",
    "uint",
    "ulong",
    "unchecked",
    "unsafe",
    "ushort",
    "using",
    "virtual",
    "void",
    "volatile",
    "while",
    "var",
    "config",
    "args",
    "await",
];

/// Hands out names, unique and valid: `taken` holds names already in use (package aliases).
pub struct NameTable {
    used: HashSet<String>,
    /// The next number to try per base name (so a name used n times costs O(1) each).
    next: std::collections::HashMap<String, usize>,
    reserved: &'static [&'static str],
}

impl NameTable {
    pub fn new(
        reserved: &'static [&'static str],
        taken: impl IntoIterator<Item = String>,
    ) -> NameTable {
        NameTable { used: taken.into_iter().collect(), next: Default::default(), reserved }
    }

    /// `base` made valid (a letter first, not a keyword), then numbered until unused.
    pub fn claim(&mut self, base: &str, suffix: &str) -> String {
        let mut name = if base.is_empty() { "resource".to_string() } else { base.to_string() };
        if name.starts_with(|c: char| c.is_ascii_digit()) {
            name = format!("r{name}");
        }
        if self.reserved.contains(&name.as_str()) {
            name.push_str(suffix);
        }
        let mut candidate = name.clone();
        let mut n = self.next.get(&name).copied().unwrap_or(2);
        while self.used.contains(&candidate) || self.reserved.contains(&candidate.as_str()) {
            candidate = format!("{name}{n}");
            n += 1;
        }
        self.next.insert(name, n);
        self.used.insert(candidate.clone());
        candidate
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn casing() {
        assert_eq!(camel("web-db-password"), "webDbPassword");
        assert_eq!(camel("WebDBName2"), "webDbName2");
        assert_eq!(pascal("my_bucket"), "MyBucket");
        assert_eq!(snake("webDB-name"), "web_db_name");
        assert_eq!(python_property("byteLength").as_str(), "byte_length");
        assert_eq!(python_property("b64Std").as_str(), "b64_std");
        assert_eq!(python_property("isCA").as_str(), "is_ca");
        assert_eq!(python_property("privateKeyPem").as_str(), "private_key_pem");
        // Whatever a state or schema calls a property, it prints as one identifier.
        assert_eq!(python_property("from").as_str(), "from_");
        assert_eq!(
            python_property("a\n__import__('os').system('x')").as_str(),
            "a___import____os___system__x__"
        );
        assert_eq!(title("9 lives\"").as_str(), "_9_lives_");
        let mut t = NameTable::new(TS_RESERVED, ["random".to_string()]);
        assert_eq!(t.claim("delete", "Resource"), "deleteResource");
        assert_eq!(t.claim("random", "Resource"), "random2");
        assert_eq!(t.claim("9lives", "Resource"), "r9lives");
        assert_eq!(t.claim("web", "Resource"), "web");
        assert_eq!(t.claim("web", "Resource"), "web2");
    }
}

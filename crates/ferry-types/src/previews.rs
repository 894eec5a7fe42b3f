//! What a preview or code request carries: a program's envelope with its stack config, and the
//! code query with its language.

use std::collections::BTreeMap;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::plans::PlanScope;

/// A stack config value as given (`pulumi config set`): text, and whether it is a secret.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct ConfigValue {
    pub value: String,
    #[serde(default)]
    pub secret: bool,
}

/// A config entry of a program request: `"value"`, or `{"value": ..., "secret": true}`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(untagged)]
pub enum ConfigEntry {
    Plain(String),
    Full(ConfigValue),
}

impl ConfigEntry {
    /// The value, a plain entry not secret.
    pub fn into_value(self) -> ConfigValue {
        match self {
            ConfigEntry::Plain(value) => ConfigValue { value, secret: false },
            ConfigEntry::Full(value) => value,
        }
    }
}

/// A program preview sent as JSON: the program's text or a base64 project zip (exactly one),
/// its stack config, an optional resource mapping, and its scope.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ProgramEnvelope {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub program: Option<String>,
    #[serde(rename = "programZip", default, skip_serializing_if = "Option::is_none")]
    pub program_zip: Option<String>,
    #[serde(default)]
    pub config: BTreeMap<String, ConfigEntry>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mapping: Option<BTreeMap<String, String>>,
    /// `imports` or `whole-stack` (the default, as `pulumi preview`); the query's when absent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub scope: Option<PlanScope>,
}

/// `?scope=imports|whole-stack` on a preview.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize, JsonSchema)]
pub struct ScopeQuery {
    /// A program's scope: `imports`, or `whole-stack` (the default, as `pulumi preview`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub scope: Option<PlanScope>,
}

/// A language code is made in.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize, JsonSchema,
)]
#[serde(rename_all = "lowercase")]
pub enum Language {
    #[serde(alias = "ts", alias = "nodejs")]
    TypeScript,
    #[serde(alias = "py")]
    Python,
    Go,
    #[serde(alias = "cs", alias = "dotnet")]
    CSharp,
    Yaml,
}

impl Language {
    pub const ALL: [Language; 5] =
        [Language::TypeScript, Language::Python, Language::Go, Language::CSharp, Language::Yaml];

    /// A language by any of its names (`ts`, `typescript`, `nodejs`, `py`, `c#`, …).
    pub fn parse(s: &str) -> Option<Language> {
        Some(match s.to_ascii_lowercase().as_str() {
            "ts" | "typescript" | "nodejs" => Language::TypeScript,
            "py" | "python" => Language::Python,
            "go" => Language::Go,
            "cs" | "csharp" | "dotnet" | "c#" => Language::CSharp,
            "yaml" => Language::Yaml,
            _ => return None,
        })
    }

    /// The name a query gives it (`lang=`).
    pub fn id(self) -> &'static str {
        match self {
            Language::TypeScript => "ts",
            Language::Python => "python",
            Language::Go => "go",
            Language::CSharp => "csharp",
            Language::Yaml => "yaml",
        }
    }

    /// The program file's name in a project.
    pub fn file_name(self) -> &'static str {
        match self {
            Language::TypeScript => "index.ts",
            Language::Python => "__main__.py",
            Language::Go => "main.go",
            Language::CSharp => "Program.cs",
            Language::Yaml => "Pulumi.yaml",
        }
    }

    /// Pulumi's runtime name.
    pub fn runtime(self) -> &'static str {
        match self {
            Language::TypeScript => "nodejs",
            Language::Python => "python",
            Language::Go => "go",
            Language::CSharp => "dotnet",
            Language::Yaml => "yaml",
        }
    }
}

/// What code to make: `lang=ts|python|go|csharp|yaml`, `format=file|zip|json`,
/// `style=cli|code-first`, `elide=false`, `keep=<name>,…`, `references=false`,
/// `exclude=<resource.property>,…`; for a stack's code also `urn=<urn>,…` and `version=N`.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize, JsonSchema)]
pub struct CodeQuery {
    /// The language: `ts`, `python`, `go`, `csharp` or `yaml` (default `ts`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub lang: Option<String>,
    /// `file` (the program), `zip` (a runnable project) or `json` (the program with its report).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub format: Option<String>,
    /// `cli` (the stack already holds the resources: `protect`) or `code-first` (the code imports
    /// them on `pulumi up`: the `import` option).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub style: Option<String>,
    /// `false` keeps the properties that only repeat a schema default or a zero value.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub elide: Option<bool>,
    /// Resources (names or URNs, comma-separated) whose properties are all kept.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub keep: Option<String>,
    /// `false` writes values where the code would refer to another resource.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub references: Option<bool>,
    /// References not suggested, comma-separated `<resource>.<property>`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub exclude: Option<String>,
    /// A stack's code: only these resources, comma-separated URNs.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub urn: Option<String>,
    /// A stack's code: of this version (default: its latest).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub version: Option<i64>,
}

//! Identification, the middle step of the CDK import design: what a type's import ID is made
//! of (its recipe), and what became of each resource a program would create once an ID was
//! built for it and tried with the provider's `Read`.

use std::collections::BTreeMap;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// One part of an import ID: a property's value, or the text between values.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "kebab-case")]
pub enum IdPart {
    Property(String),
    Literal(String),
}

/// Where a recipe was learnt.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "kebab-case")]
pub enum RecipeSource {
    /// The package states it (`language.ferry.importId` of the resource in its schema).
    Package,
    /// Read off a `pulumi import` example in the resource's documentation, its parts matched
    /// to the example program's values and to the names the text gives.
    Example,
}

/// What an import ID is made of for one resource type, e.g. `<result>,<min>,<max>`.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema)]
pub struct IdRecipe {
    pub parts: Vec<IdPart>,
    pub source: RecipeSource,
    /// The documented example the recipe was read from (`Example` recipes).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub example: Option<String>,
}

/// Why an import ID could not be built from a recipe and a resource's values.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum BuildError {
    /// The properties the resource does not set (or whose values are not known yet).
    Missing(Vec<String>),
    /// A value holds text that separates the ID's parts, so the ID would not read back.
    Separator { property: String, separator: String },
    /// A value that is not text, a number or a boolean.
    NotScalar(String),
}

impl std::fmt::Display for BuildError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            BuildError::Missing(names) => {
                let names: Vec<String> = names.iter().map(|n| format!("`{n}`")).collect();
                write!(f, "the program does not set {}", names.join(", "))
            }
            BuildError::Separator { property, separator } => {
                write!(f, "`{property}` holds `{separator}`, which separates the ID's parts: the ID would not read back")
            }
            BuildError::NotScalar(p) => {
                write!(f, "`{p}` is not text, a number or a boolean, so it cannot be part of an ID")
            }
        }
    }
}

impl IdRecipe {
    /// Reads a template: `<name>` is a property's value, anything else is literal text.
    pub fn parse_template(template: &str, source: RecipeSource) -> Result<IdRecipe, String> {
        let mut parts = Vec::new();
        let mut rest = template;
        while !rest.is_empty() {
            match rest.find('<') {
                Some(0) => {
                    let end = rest
                        .find('>')
                        .ok_or_else(|| format!("`{template}`: a `<` is not closed"))?;
                    let name = &rest[1..end];
                    if name.is_empty() || !name.chars().all(|c| c.is_alphanumeric() || c == '_') {
                        return Err(format!("`{template}`: `<{name}>` is not a property name"));
                    }
                    if matches!(parts.last(), Some(IdPart::Property(_))) {
                        return Err(format!("`{template}`: two properties with nothing between them cannot be told apart"));
                    }
                    parts.push(IdPart::Property(name.to_string()));
                    rest = &rest[end + 1..];
                }
                Some(i) => {
                    parts.push(IdPart::Literal(rest[..i].to_string()));
                    rest = &rest[i..];
                }
                None => {
                    parts.push(IdPart::Literal(rest.to_string()));
                    rest = "";
                }
            }
        }
        if !parts.iter().any(|p| matches!(p, IdPart::Property(_))) {
            return Err(format!("`{template}` names no property"));
        }
        Ok(IdRecipe { parts, source, example: None })
    }

    /// The template: `<resourceGroupName>/<name>`.
    pub fn template(&self) -> String {
        self.parts
            .iter()
            .map(|p| match p {
                IdPart::Property(n) => format!("<{n}>"),
                IdPart::Literal(t) => t.clone(),
            })
            .collect()
    }

    /// The properties the ID is made of, in order.
    pub fn properties(&self) -> impl Iterator<Item = &str> {
        self.parts.iter().filter_map(|p| match p {
            IdPart::Property(n) => Some(n.as_str()),
            IdPart::Literal(_) => None,
        })
    }

    /// The ID from the properties' values as text (`None`: not set or not known).
    pub fn build(
        &self,
        mut value_of: impl FnMut(&str) -> Option<Result<String, ()>>,
    ) -> Result<String, BuildError> {
        let mut id = String::new();
        let mut missing = Vec::new();
        for (i, part) in self.parts.iter().enumerate() {
            match part {
                IdPart::Literal(t) => id.push_str(t),
                IdPart::Property(name) => match value_of(name) {
                    None => missing.push(name.clone()),
                    Some(Err(())) => return Err(BuildError::NotScalar(name.clone())),
                    Some(Ok(value)) => {
                        // The literal on either side splits the ID again when it is read: a
                        // value holding it would be cut in the wrong place.
                        let around = [
                            i.checked_sub(1).and_then(|j| self.parts.get(j)),
                            self.parts.get(i + 1),
                        ];
                        for sep in around.into_iter().flatten() {
                            if let IdPart::Literal(t) = sep {
                                // Its punctuation separates; words in it (`/subscriptions/`) do not.
                                if let Some(c) = t
                                    .chars()
                                    .filter(|c| !c.is_alphanumeric() && !c.is_whitespace())
                                    .find(|c| value.contains(*c))
                                {
                                    return Err(BuildError::Separator {
                                        property: name.clone(),
                                        separator: c.to_string(),
                                    });
                                }
                            }
                        }
                        id.push_str(&value);
                    }
                },
            }
        }
        if !missing.is_empty() {
            return Err(BuildError::Missing(missing));
        }
        Ok(id)
    }
}

/// Where a would-be create's import ID came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "kebab-case")]
pub enum IdSource {
    /// Built from the type's recipe and the program's values.
    Recipe,
    /// A mapping file's entry (`--mapping`).
    Mapping,
    /// Typed by a person (the table's form, or `ids` of a request).
    Typed,
    /// The program's own `import` option.
    Program,
}

/// One part of a recipe as a resource fills it: the program's value, when it sets one
/// (`[secret]` for a secret).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct IdPartValue {
    pub property: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub value: Option<String>,
}

/// How the engine tried a would-be create as an import: kept on its step.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize, JsonSchema)]
pub struct IdAttempt {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub source: Option<IdSource>,
    /// The type's recipe as a template; absent when the package documents none.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub recipe: Option<String>,
    /// The recipe's literal text and properties, for a form that asks for each.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub recipe_parts: Vec<IdPart>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub parts: Vec<IdPartValue>,
    /// The ID holds a secret: it is tried, never shown.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub secret: bool,
    /// Why no ID was tried.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    /// The ID was tried and the provider found nothing.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub not_found: bool,
}

/// What identification made of a would-be create.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "kebab-case")]
pub enum IdentificationStatus {
    /// Found, and the program's inputs agree with it: ready to import.
    Identified,
    /// Found, but the program's inputs differ from it (see `differences`).
    Differs,
    /// No ID (no recipe, or not every part set) or nothing found under it: left to create.
    Unidentified,
    /// The provider failed to answer the `Read`.
    Failed,
}

impl IdentificationStatus {
    pub fn as_str(self) -> &'static str {
        match self {
            IdentificationStatus::Identified => "identified",
            IdentificationStatus::Differs => "differs",
            IdentificationStatus::Unidentified => "unidentified",
            IdentificationStatus::Failed => "failed",
        }
    }
}

/// One property where the resource found differs from the program, as a preview shows it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct IdDifference {
    pub path: String,
    /// The program's value (absent when the program leaves it out); secrets masked.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub program: Option<serde_json::Value>,
    /// What `Read` returned.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub read: Option<serde_json::Value>,
}

/// One would-be create of a program, identified or not.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct IdentificationRow {
    #[serde(rename = "type")]
    pub type_: String,
    /// The program's name for the resource.
    pub name: String,
    pub urn: String,
    /// The ID tried (`[secret]` when it holds a secret); absent when none could be built.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub id: Option<String>,
    pub status: IdentificationStatus,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub differences: Vec<IdDifference>,
    /// Where the ID came from, the recipe and its parts with the program's values (for the
    /// form), and why the row is unidentified or failed (the provider's error, for a failure).
    #[serde(flatten)]
    pub attempt: IdAttempt,
    /// Where the program declares the resource.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub line: Option<usize>,
}

/// `POST /api/v1/stacks/{id}/identifications`: a program whose would-be creates to identify.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize, JsonSchema)]
#[schemars(example = serde_json::json!({"program": "name: web\nruntime: yaml\nresources:\n  app:\n    type: postgresql:index/role:Role\n    properties:\n      name: app\n"}))]
pub struct IdentifyRequest {
    /// The program's YAML text.
    pub program: String,
    /// IDs typed by a person, by the program's resource name: tried instead of the recipe's.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub ids: BTreeMap<String, String>,
}

/// The answer: one row per would-be create, in program order, and how many of each status.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Identifications {
    pub rows: Vec<IdentificationRow>,
    pub identified: usize,
    pub differs: usize,
    pub unidentified: usize,
    pub failed: usize,
}

impl Identifications {
    pub fn new(rows: Vec<IdentificationRow>) -> Self {
        let count = |s: IdentificationStatus| rows.iter().filter(|r| r.status == s).count();
        Identifications {
            identified: count(IdentificationStatus::Identified),
            differs: count(IdentificationStatus::Differs),
            unidentified: count(IdentificationStatus::Unidentified),
            failed: count(IdentificationStatus::Failed),
            rows,
        }
    }

    /// The mapping file `--mapping` reads: every row's name, with its ID where one was found
    /// and is not secret, blank otherwise (as `--record-mapping` writes it).
    pub fn mapping(&self) -> BTreeMap<String, String> {
        self.rows
            .iter()
            .map(|r| {
                let found = matches!(
                    r.status,
                    IdentificationStatus::Identified | IdentificationStatus::Differs
                ) && !r.attempt.secret;
                (
                    r.name.clone(),
                    if found { r.id.clone().unwrap_or_default() } else { String::new() },
                )
            })
            .collect()
    }
}

/// What to do with one would-be create.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "kebab-case")]
pub enum IdChoice {
    /// Adopt the existing resource: the program gets an `import` option with the ID.
    Import,
    /// Create it: the program is left as it is.
    Create,
    /// Neither: the resource is left out of the program.
    Skip,
}

/// One row's choice; `id` is what an import uses (required for `import`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct IdentificationChoice {
    pub name: String,
    pub choice: IdChoice,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub id: Option<String>,
}

/// `POST /api/v1/plans/{id}/identifications`: choices saved as the plan's next revision.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize, JsonSchema)]
pub struct IdentificationChoices {
    pub choices: Vec<IdentificationChoice>,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn templates_read_and_print_alike() {
        let r = IdRecipe::parse_template("<result>,<min>,<max>", RecipeSource::Package).unwrap();
        assert_eq!(r.template(), "<result>,<min>,<max>");
        assert_eq!(r.properties().collect::<Vec<_>>(), vec!["result", "min", "max"]);
        assert!(IdRecipe::parse_template("<a><b>", RecipeSource::Package).is_err());
        assert!(IdRecipe::parse_template("plain", RecipeSource::Package).is_err());
        assert!(IdRecipe::parse_template("<a", RecipeSource::Package).is_err());
    }

    #[test]
    fn a_value_holding_a_separator_is_refused() {
        let r =
            IdRecipe::parse_template("<resourceGroupName>/<name>", RecipeSource::Example).unwrap();
        let values = |rg: &'static str| {
            move |p: &str| Some(Ok(if p == "name" { "vm".to_string() } else { rg.to_string() }))
        };
        assert_eq!(r.build(values("rg")).unwrap(), "rg/vm");
        let e = r.build(values("a/b")).unwrap_err();
        assert_eq!(
            e,
            BuildError::Separator { property: "resourceGroupName".into(), separator: "/".into() }
        );
        assert!(e.to_string().contains("would not read back"));
        let missing = r.build(|p: &str| (p == "name").then(|| Ok("vm".to_string()))).unwrap_err();
        assert_eq!(missing.to_string(), "the program does not set `resourceGroupName`");
    }
}

/// What an identification job reports, in order: each of the program's resources as the
/// preview finishes it, then each row of the table.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(tag = "kind", rename_all = "kebab-case")]
pub enum IdentificationEvent {
    /// One of the program's resources is done: read under its ID, or left to create.
    Resource {
        name: String,
        #[serde(rename = "type")]
        type_: String,
    },
    /// A row of the table, once every resource is done.
    Row(IdentificationRow),
}

/// An identification as the API reports it (`POST /api/v1/stacks/{id}/identifications` starts
/// one; `GET /api/v1/identifications/{id}` and its `events` follow it).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct IdentificationJob {
    pub id: String,
    pub stack_id: String,
    pub status: crate::JobStatus,
    /// The program's resources, and how many are done.
    pub total: usize,
    pub finished: usize,
    /// The table, once the job is done. The events stream's `end` leaves it out: the stream
    /// has just given every row.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub identifications: Option<Identifications>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
}

impl IdentificationJob {
    /// The table made of the rows among a finished job's `events`.
    pub fn rows_of(events: Vec<IdentificationEvent>) -> Identifications {
        let rows = events
            .into_iter()
            .filter_map(|e| match e {
                IdentificationEvent::Row(r) => Some(r),
                IdentificationEvent::Resource { .. } => None,
            })
            .collect();
        Identifications::new(rows)
    }
}

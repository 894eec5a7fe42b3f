//! Identification of a would-be create (the CDK import design's middle step): an import ID
//! typed for it, or built from its type's recipe and the program's values, tried through the
//! one import step. Found, the resource is imported (with any differences shown as the import
//! step shows them); not found, or with no ID to try, it stays a create, the attempt kept on
//! its step for the identification table.

use ferry_types::identify::{IdAttempt, IdPartValue, IdRecipe, IdSource};

use super::*;

/// A program value as an ID part: text, a number or a boolean (`None`: not set or not known
/// yet; `Err`: not a scalar), and whether it is secret.
fn part_text(value: Option<&PropertyValue>) -> (Option<Result<String, ()>>, bool) {
    match value {
        None | Some(PropertyValue::Null) | Some(PropertyValue::Computed) => (None, false),
        Some(PropertyValue::String(s)) => (Some(Ok(s.clone())), false),
        Some(PropertyValue::Number(n)) => (Some(Ok(format!("{n}"))), false),
        Some(PropertyValue::Bool(b)) => (Some(Ok(b.to_string())), false),
        Some(PropertyValue::Secret(inner)) => (part_text(Some(inner)).0, true),
        Some(_) => (Some(Err(())), false),
    }
}

/// The attempt for an ID the program or a mapping gave (identification reports those too).
pub(super) fn given_attempt(source: IdSource) -> IdAttempt {
    IdAttempt { source: Some(source), ..Default::default() }
}

impl Generator<'_> {
    /// What to try for a would-be create: the attempt to keep on its step, and the ID, when
    /// there is one to try. The type's recipe is read from its package's schema once per type
    /// in a run.
    pub(super) async fn identify(
        &self,
        goal: &Goal,
        provider: &dyn Provider,
    ) -> (IdAttempt, Option<String>) {
        let mut attempt = IdAttempt::default();
        let known = self.recipes.lock().expect("recipes lock").get(&goal.type_).cloned();
        let recipe: Option<Arc<IdRecipe>> = match known {
            Some(r) => r,
            None => match self.schema_of(goal.package(), provider).await {
                Ok(schema) => {
                    let recipe =
                        crate::recipes::recipe_of(&goal.type_, &schema["resources"][&goal.type_])
                            .map(Arc::new);
                    self.recipes
                        .lock()
                        .expect("recipes lock")
                        .insert(goal.type_.clone(), recipe.clone());
                    recipe
                }
                Err(e) => {
                    attempt.reason = Some(format!(
                        "the `{}` package's schema could not be read: {e}",
                        goal.package()
                    ));
                    None
                }
            },
        };
        // Each part's value as text, read once: shown in the form (secrets masked) and built into
        // the ID.
        let values: HashMap<&str, (Option<Result<String, ()>>, bool)> = recipe
            .iter()
            .flat_map(|r| r.properties())
            .map(|name| (name, part_text(goal.inputs.get(name))))
            .collect();
        if let Some(recipe) = &recipe {
            attempt.recipe = Some(recipe.template());
            attempt.recipe_parts = recipe.parts.clone();
            for name in recipe.properties() {
                let (text, secret) = &values[name];
                let value = text.as_ref().and_then(|t| t.as_ref().ok()).map(|v| {
                    if *secret {
                        "[secret]".to_string()
                    } else {
                        v.clone()
                    }
                });
                attempt.parts.push(IdPartValue { property: name.to_string(), value });
            }
        }
        let typed = self.options.identify.as_ref().and_then(|i| i.typed.get(&goal.name));
        if let Some(id) = typed.filter(|id| !id.is_empty()) {
            attempt.source = Some(IdSource::Typed);
            return (attempt, Some(id.clone()));
        }
        let Some(recipe) = recipe.as_deref() else {
            if attempt.reason.is_none() {
                attempt.reason = Some(format!(
                    "the `{}` package documents no import ID format for `{}`",
                    goal.package(),
                    goal.type_
                ));
            }
            return (attempt, None);
        };
        // A part that another resource's output gives is unknown until that one exists.
        let pending: Vec<&str> = recipe
            .properties()
            .filter(|p| matches!(goal.inputs.get(*p), Some(PropertyValue::Computed)))
            .collect();
        if !pending.is_empty() {
            let names: Vec<String> = pending.iter().map(|p| format!("`{p}`")).collect();
            attempt.reason = Some(format!("{} is not known until the resources it comes from exist: identify or create those first", names.join(", ")));
            return (attempt, None);
        }
        let mut secret = false;
        let built = recipe.build(|name| {
            let (text, s) = values.get(name)?;
            secret |= *s && text.is_some();
            text.clone()
        });
        match built {
            Ok(id) => {
                attempt.source = Some(IdSource::Recipe);
                attempt.secret = secret;
                (attempt, Some(id))
            }
            Err(e) => {
                attempt.reason = Some(e.to_string());
                (attempt, None)
            }
        }
    }
}

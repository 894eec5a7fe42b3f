//! One-click resolutions of a property under review. Each writes the plan's next revision:
//! `adopt` takes the value Read returned into the program, `omit` leaves the property out,
//! `ignore` adds it to the resource's `ignoreChanges`, `keep` records that the program's value
//! stands. For import specs, `adopt` and `omit` edit the entry's `properties` list (a spec has
//! no values of its own, and no `ignoreChanges`). One click can also adopt every difference
//! that is only a zero value or a default, of a resource or of the whole plan, as one revision.

use std::collections::HashMap;

use ferry_engine::deploy::Step;
use ferry_engine::program::edit::{edit_program, ProgramEdit};
use ferry_types::plans::{PlanInput, PlanOptions, PlanView};
use ferry_types::{Resolution, ResolutionAction, ResultDetail, SourceKind};
use serde_json::Value;

use crate::access::Caller;
use crate::previews::results::{only_zero_or_default, result_steps, step_detail};
use crate::{Plans, PreviewRecord, ServiceError};

fn holds_secret(v: &Value) -> bool {
    match v {
        Value::String(s) => s == "[secret]",
        Value::Array(items) => items.iter().any(holds_secret),
        Value::Object(m) => m.values().any(holds_secret),
        _ => false,
    }
}

/// The spec with entry `index`'s `properties` changed by `f` (given the inputs Read returned).
fn edit_spec(
    text: &str,
    index: usize,
    read_keys: &[String],
    f: impl FnOnce(&mut Vec<String>),
) -> Result<String, ServiceError> {
    let options = jsonc_parser::ParseOptions {
        allow_comments: true,
        allow_trailing_commas: true,
        ..Default::default()
    };
    let mut root: Value = jsonc_parser::parse_to_serde_value::<Option<Value>>(text, &options)
        .map_err(|e| ServiceError::Plan(format!("the plan's spec does not parse: {e}")))?
        .ok_or_else(|| ServiceError::Plan("the plan's spec is empty".into()))?;
    let entry = root["resources"]
        .get_mut(index)
        .and_then(Value::as_object_mut)
        .ok_or_else(|| ServiceError::Plan(format!("the spec has no resources[{index}]")))?;
    let mut list: Vec<String> = match entry.get("properties") {
        Some(Value::Array(items)) => {
            items.iter().filter_map(|v| v.as_str().map(str::to_string)).collect()
        }
        _ => read_keys.to_vec(),
    };
    f(&mut list);
    entry.insert("properties".into(), Value::from(list));
    Ok(serde_json::to_string_pretty(&root).expect("JSON serialises") + "\n")
}

/// A plan's texts as resolutions edit them.
struct Texts {
    spec: Option<String>,
    program: Option<String>,
}

/// Applies one resolution of `step` (reviewed as `detail`) to the texts.
fn apply(
    texts: &mut Texts,
    kind: SourceKind,
    step: &Step,
    detail: &ResultDetail,
    resolution: &Resolution,
) -> Result<(), ServiceError> {
    let property =
        detail.properties.iter().find(|p| p.path == resolution.property).ok_or_else(|| {
            ServiceError::Plan(format!(
                "`{}` has no property `{}`",
                detail.row.name, resolution.property
            ))
        })?;
    let name = detail.row.name.clone();
    let prop = resolution.property.clone();
    let edit_failed = |e: ferry_engine::program::edit::EditError| {
        ServiceError::Plan(format!("cannot edit the program: {e}"))
    };
    if kind == SourceKind::Program {
        let text = texts.program.take().unwrap_or_default();
        let edited = match resolution.action {
            ResolutionAction::Adopt => {
                let value = property.read.clone().ok_or_else(|| {
                    ServiceError::Plan(format!("Read returned no `{prop}` to adopt"))
                })?;
                if holds_secret(&value) {
                    return Err(ServiceError::Plan(format!(
                        "`{prop}` is a secret: Ferry never writes a secret into a program; set it from secret config (`fn::secret`) instead"
                    )));
                }
                edit_program(
                    &text,
                    &ProgramEdit::SetProperty { resource: name, property: prop, value },
                )
                .map_err(edit_failed)?
            }
            ResolutionAction::Omit => {
                edit_program(&text, &ProgramEdit::RemoveProperty { resource: name, property: prop })
                    .map_err(edit_failed)?
            }
            ResolutionAction::Ignore => {
                edit_program(&text, &ProgramEdit::IgnoreChanges { resource: name, property: prop })
                    .map_err(edit_failed)?
            }
            // The program's value stands: the revision records the choice, the text is as it was.
            ResolutionAction::Keep => text,
        };
        texts.program = Some(edited);
        return Ok(());
    }
    let text = texts
        .spec
        .take()
        .ok_or_else(|| ServiceError::Plan("the plan has no spec to resolve in".into()))?;
    let index = step.spec_index.ok_or_else(|| {
        ServiceError::Plan(format!("the preview has no resource `{}`", resolution.urn))
    })?;
    // The inputs the generated code sets: a spec's `properties` names top-level ones.
    let read_keys: Vec<String> = detail
        .properties
        .iter()
        .filter(|p| p.program.is_some() && !p.path.contains(['.', '[']))
        .map(|p| p.path.clone())
        .collect();
    texts.spec = Some(match resolution.action {
        ResolutionAction::Adopt => edit_spec(&text, index, &read_keys, |l| {
            if !l.contains(&prop) {
                l.push(prop.clone());
            }
        })?,
        ResolutionAction::Omit => edit_spec(&text, index, &read_keys, |l| l.retain(|p| p != &prop))?,
        other @ (ResolutionAction::Keep | ResolutionAction::Ignore) => {
            return Err(ServiceError::Plan(format!("`{}` applies to programs: an import spec's values are what Read returns (adopt or omit a property)", other.as_str())))
        }
    });
    Ok(())
}

impl Plans {
    /// Applies `resolution` to the plan's latest revision, judged against `preview` (one of
    /// that revision's previews), and saves the result as the next revision.
    pub async fn resolve(
        &self,
        author: &Caller,
        plan_id: &str,
        preview: &str,
        resolution: Resolution,
    ) -> Result<PlanView, ServiceError> {
        self.resolve_all(author, plan_id, preview, |_| vec![resolution.clone()]).await
    }

    /// Adopts, in one revision, every difference of resource `urn` (or of every resource of
    /// the preview) that is only a zero value Read returned or a default Check filled in: the
    /// program (or the spec's `properties`) then says what the resource already is. Secrets are
    /// left alone (Ferry never writes one into a program).
    pub async fn adopt_zero_values_and_defaults(
        &self,
        author: &Caller,
        plan_id: &str,
        preview: &str,
        urn: Option<&str>,
    ) -> Result<PlanView, ServiceError> {
        self.resolve_all(author, plan_id, preview, |record| {
            result_steps(record)
                .filter(|s| urn.is_none_or(|u| s.urn == u))
                .flat_map(|s| {
                    s.diffs
                        .iter()
                        .filter(|d| {
                            only_zero_or_default(d) && !d.read.as_ref().is_some_and(holds_secret)
                        })
                        .map(|d| Resolution {
                            urn: s.urn.clone(),
                            property: d.path.clone(),
                            action: ResolutionAction::Adopt,
                        })
                })
                .collect()
        })
        .await
    }

    /// Applies the resolutions `choose` picks from the preview to the plan's latest revision,
    /// and saves them as one next revision.
    async fn resolve_all(
        &self,
        author: &Caller,
        plan_id: &str,
        preview: &str,
        choose: impl FnOnce(&PreviewRecord) -> Vec<Resolution>,
    ) -> Result<PlanView, ServiceError> {
        let current = self.plan_view(plan_id, None, false).await?;
        if !current.current.previews.iter().any(|p| p == preview) {
            return Err(ServiceError::Plan(format!(
                "preview `{preview}` did not run on revision {} (the latest): preview it again before resolving",
                current.current.revision
            )));
        }
        let record = self.previews.stored_preview(preview).await?;
        let resolutions = choose(&record);
        if resolutions.is_empty() {
            return Err(ServiceError::Plan("nothing to resolve: no difference of what was asked is only a zero value or a default".into()));
        }
        let kind = record.plan.kind();
        let mut options: PlanOptions = current.current.options.clone();
        let steps: HashMap<&str, &Step> =
            result_steps(&record).map(|s| (s.urn.as_str(), s)).collect();
        let mut texts =
            Texts { spec: current.current.spec.clone(), program: current.current.program.clone() };
        // One review per resource, however many of its properties are resolved (what `apply`
        // reads of it, the values and paths, no resolution changes).
        let mut details: HashMap<String, ResultDetail> = HashMap::new();
        for resolution in resolutions {
            let step = steps.get(resolution.urn.as_str()).ok_or_else(|| {
                ServiceError::Plan(format!("the preview has no resource `{}`", resolution.urn))
            })?;
            let detail = details
                .entry(resolution.urn.clone())
                .or_insert_with(|| step_detail(step, kind, &options.decisions));
            apply(&mut texts, kind, step, detail, &resolution)?;
            options
                .decisions
                .retain(|d| !(d.urn == resolution.urn && d.property == resolution.property));
            options.decisions.push(resolution);
        }
        self.save_plan(
            author,
            plan_id,
            PlanInput { title: None, spec: texts.spec, program: texts.program, options },
        )
        .await
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn spec_properties_start_from_what_read_returned() {
        let spec = "// spec\n{\"resources\": [{\"type\": \"random:index/randomString:RandomString\", \"name\": \"s\", \"id\": \"abc\",}]}";
        let keys = vec!["length".to_string(), "special".to_string()];
        let out = edit_spec(spec, 0, &keys, |l| l.retain(|p| p != "special")).unwrap();
        let v: Value = serde_json::from_str(&out).unwrap();
        assert_eq!(v["resources"][0]["properties"], serde_json::json!(["length"]));
        assert!(edit_spec(spec, 3, &keys, |_| {}).is_err());
    }

    #[test]
    fn masked_values_are_secrets() {
        assert!(holds_secret(&serde_json::json!({"a": ["[secret]"]})));
        assert!(!holds_secret(&serde_json::json!({"a": ["x"]})));
    }
}

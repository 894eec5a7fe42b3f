//! Identification's last step: a person's choices (import, create, skip) for a program's
//! would-be creates, written into the plan's program as its next revision (`import` options,
//! skipped blocks taken out). The identification itself is the previews' (`previews/identify.rs`).

use std::collections::{HashMap, HashSet};

use ferry_engine::program::edit::{edit_program_all, ProgramEdit};
use ferry_engine::program::parse_program;
use ferry_types::identify::{IdChoice, IdentificationChoices};
use ferry_types::plans::{PlanInput, PlanView};

use crate::access::Caller;
use crate::{Plans, ServiceError};

impl Plans {
    /// Writes identification's choices into the plan's program as its next revision: an
    /// `import` option with the chosen ID for each import, the resource's block taken out for
    /// each skip (refused while another resource refers to it), nothing for a create.
    pub async fn choose_identifications(
        &self,
        author: &Caller,
        plan_id: &str,
        choices: IdentificationChoices,
    ) -> Result<PlanView, ServiceError> {
        let current = self.plan_view(plan_id, None, false).await?;
        let Some(text) = current.current.program.clone() else {
            return Err(ServiceError::Plan(
                "identification is for a program's plan; this plan is an import spec".into(),
            ));
        };
        if choices.choices.is_empty() {
            return Err(ServiceError::Plan("no choices were given".into()));
        }
        let program = parse_program("Pulumi.yaml", &text)?;
        // Each choice's resource key, found once (a choice names a key or a logical name).
        let mut keys: HashMap<&str, &str> = HashMap::with_capacity(program.resources.len() * 2);
        for r in program.resources.iter().rev() {
            keys.insert(r.logical_name(), &r.name);
        }
        for r in &program.resources {
            keys.insert(&r.name, &r.name);
        }
        let key_of = |name: &str| {
            keys.get(name)
                .copied()
                .ok_or_else(|| ServiceError::Plan(format!("the program has no resource `{name}`")))
        };
        let skipped: HashSet<&str> = choices
            .choices
            .iter()
            .filter(|c| c.choice == IdChoice::Skip)
            .map(|c| key_of(&c.name))
            .collect::<Result<_, _>>()?;
        // Who refers to each resource, among those that stay (found once, not once per skip).
        let mut referrers: HashMap<&str, Vec<&str>> = HashMap::new();
        if !skipped.is_empty() {
            for r in program.resources.iter().filter(|r| !skipped.contains(r.name.as_str())) {
                for used in r.references() {
                    referrers.entry(used).or_default().push(r.name.as_str());
                }
            }
        }
        // Every edit, made at once on the program as saved (with the choice it came from).
        let mut edits = Vec::with_capacity(choices.choices.len());
        for choice in &choices.choices {
            let key = key_of(&choice.name)?.to_string();
            let edit = match choice.choice {
                IdChoice::Create => continue,
                IdChoice::Import => {
                    let id = choice.id.as_deref().map(str::trim).filter(|id| !id.is_empty());
                    let id = id.ok_or_else(|| {
                        ServiceError::Plan(format!("`{}`: importing it needs its ID", choice.name))
                    })?;
                    if id.contains("[secret]") {
                        return Err(ServiceError::Plan(format!(
                            "`{}`: its ID holds a secret, which Ferry does not write into a program every reader sees; create it, or import it with a mapping",
                            choice.name
                        )));
                    }
                    ProgramEdit::SetImport { resource: key, id: id.to_string() }
                }
                IdChoice::Skip => {
                    if let Some(referrers) = referrers.get(key.as_str()) {
                        return Err(ServiceError::Plan(format!(
                            "`{}` cannot be skipped: {} refer to it (skip those too, or create or import it)",
                            choice.name,
                            referrers.iter().map(|r| format!("`{r}`")).collect::<Vec<_>>().join(", ")
                        )));
                    }
                    ProgramEdit::RemoveResource { resource: key }
                }
            };
            edits.push((choice.name.as_str(), edit));
        }
        let (names, edits): (Vec<&str>, Vec<ProgramEdit>) = edits.into_iter().unzip();
        let text = edit_program_all(&text, &edits)
            .map_err(|(at, e)| ServiceError::Plan(format!("`{}`: {e}", names[at])))?;
        // A skipped resource an output or variable used leaves the program broken: said
        // before anything is saved.
        parse_program("Pulumi.yaml", &text).map_err(|e| {
            ServiceError::Plan(format!("the choices would leave the program broken: {e}"))
        })?;
        self.save_plan(
            author,
            plan_id,
            PlanInput {
                title: None,
                spec: None,
                program: Some(text),
                options: current.current.options.clone(),
            },
        )
        .await
    }
}

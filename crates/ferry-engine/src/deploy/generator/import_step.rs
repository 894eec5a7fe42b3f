//! The import step, one for the `import` option and for a spec's planned imports: Read (a
//! refresh when another tool's recorded state is given) → ignoreChanges → Check → Diff, and
//! the statuses only planned imports have (not-found, already-managed, conflict).

use super::*;

impl<'a> Generator<'a> {
    /// A planned import (an entry of an import spec). Components and provider resources exist
    /// only in state; a resource already in the stack under this URN is skipped when its ID
    /// matches, and a conflict otherwise (a spec never replaces what the stack manages).
    pub(super) async fn register_planned(&self, goal: &Goal, old: Option<usize>) -> Registered {
        let planned = goal.planned.as_ref().expect("a planned import");
        let is_provider = goal.type_.starts_with("pulumi:providers:");
        if let Some(i) = old {
            if planned.component
                || is_provider
                || self.olds[i].id.is_some() && self.olds[i].id == goal.import_id
            {
                return self.already_managed(goal, i);
            }
        }
        if is_provider {
            return self.register_provider(goal, None);
        }
        if planned.component {
            let mut step = goal.step(StepOp::Create);
            step.state_only = true;
            step.status = Some(ImportStatus::Ready);
            self.log.push(goal.seq, step);
            let mut state = goal.state(None, PropertyMap::new(), PropertyMap::new(), None);
            state.custom = false;
            state.dependencies.clear();
            self.log.put(goal.seq, state);
            return Registered {
                urn: goal.urn.clone(),
                id: PropertyValue::String(String::new()),
                outputs: PropertyMap::new(),
                complete: true,
            };
        }
        if let Some(outputs) = &planned.given_outputs {
            // Taken as the spec says: no provider is launched.
            let reference = match self.provider_ref_for(goal).await {
                Ok(r) => r.reference(),
                Err(e) => return self.planned_failure(goal, ImportStatus::Failed, e, old),
            };
            let id = goal.import_id.clone().unwrap_or_default();
            let mut step = goal.step(StepOp::Import);
            step.status = Some(ImportStatus::Ready);
            step.provider = Some(reference.clone());
            step.id = Some(id.clone());
            step.inputs = Some(shown_map(&goal.inputs));
            step.outputs = Some(shown_map(outputs));
            self.log.push(goal.seq, step);
            let mut state =
                goal.state(Some(id.clone()), goal.inputs.clone(), outputs.clone(), Some(reference));
            state.import_id = Some(id.clone());
            self.log.put(goal.seq, state);
            return Registered {
                urn: goal.urn.clone(),
                id: PropertyValue::String(id),
                outputs: outputs.clone(),
                complete: true,
            };
        }
        let provider_ref = match self.provider_ref_for(goal).await {
            Ok(r) => r,
            Err(e) => return self.planned_failure(goal, ImportStatus::Failed, e, old),
        };
        let provider = match self.providers.provider(&provider_ref.instance(goal.package())).await {
            Ok(p) => p,
            Err(e) => {
                let mut step = goal.step(StepOp::Import);
                step.provider = Some(provider_ref.reference());
                return self.refuse_planned(
                    goal,
                    step,
                    ImportStatus::Failed,
                    plugin_message(&e),
                    old,
                );
            }
        };
        let import_id = goal.import_id.clone().unwrap_or_default();
        self.import(goal, &import_id, old, &provider_ref, provider.as_ref()).await
    }

    /// A planned import of what the stack already manages under this URN (and ID): skipped, the
    /// stack's entry kept exactly as stored.
    pub(super) fn already_managed(&self, goal: &Goal, i: usize) -> Registered {
        let mut step = goal.step(StepOp::Same);
        step.status = Some(ImportStatus::AlreadyManaged);
        step.old_id = self.olds[i].id.clone();
        step.id = self.olds[i].id.clone();
        self.log.push(goal.seq, step);
        self.log.put(goal.seq, ResourceState::kept(i));
        Registered {
            urn: goal.urn.clone(),
            id: PropertyValue::String(self.olds[i].id.clone().unwrap_or_default()),
            outputs: PropertyMap::new(),
            complete: true,
        }
    }

    /// A planned import that does not go ahead: its step says why; a stack entry it would have
    /// claimed stays exactly as stored.
    pub fn planned_failure(
        &self,
        goal: &Goal,
        status: ImportStatus,
        message: String,
        old: Option<usize>,
    ) -> Registered {
        self.refuse_planned(goal, goal.step(StepOp::Import), status, message, old)
    }

    pub(super) fn refuse_planned(
        &self,
        goal: &Goal,
        mut step: Step,
        status: ImportStatus,
        message: String,
        old: Option<usize>,
    ) -> Registered {
        step.status = Some(status);
        step.error = Some(message);
        step.import_id = goal.import_id.clone();
        self.log.push(goal.seq, step);
        if let Some(i) = old {
            // Claimed here too (a goal refused before its registration never was), so the end
            // of the deployment does not write the entry back a second time.
            self.log.lock().claimed.entry(i).or_insert_with(|| goal.urn.clone());
            self.log.put(goal.seq, ResourceState::kept(i));
        }
        unknown(&goal.urn)
    }

    /// The import step: Read → ignoreChanges from the read inputs → Check → Diff. A program's
    /// import (the `import` option) brings its own inputs and must show no diff; a planned one
    /// takes the inputs Read returned (limited by the spec's `properties`, or with the minimal
    /// strategy the schema's required inputs plus what Diff says differs), and reports Check
    /// failures and differences as warnings, as `pulumi import` does.
    pub(super) async fn import(
        &self,
        goal: &Goal,
        import_id: &str,
        replacing: Option<usize>,
        provider_ref: &ProviderRef,
        provider: &dyn Provider,
    ) -> Registered {
        let planned = goal.planned.as_ref();
        let op = if replacing.is_some() && planned.is_none() {
            StepOp::ImportReplacement
        } else {
            StepOp::Import
        };
        let mut step = goal.step(op);
        step.provider = Some(provider_ref.reference());
        // An ID identification built from a secret is tried, never shown or stored.
        let secret_attempt = goal.attempt.as_ref().is_some_and(|a| a.secret);
        step.import_id =
            Some(if secret_attempt { "[secret]".to_string() } else { import_id.to_string() });
        if let Some(i) = replacing {
            step.old_id = self.olds[i].id.clone();
        }
        let fail = |mut step: Step, status: ImportStatus, message: String| {
            if planned.is_some() {
                step.status = Some(status);
            }
            step.error = Some(message);
            self.log.push(goal.seq, step);
            if let Some(i) = replacing {
                if planned.is_some() {
                    self.log.put(goal.seq, ResourceState::kept(i));
                } else {
                    self.keep_old(goal.seq, i);
                }
            }
            if self.update_mode() {
                self.log.lock().failed = true;
            }
            unknown(&goal.urn)
        };
        // With what another tool recorded, the Read refreshes (as for a resource Pulumi
        // tracks) rather than imports from the ID alone.
        let prior = self.options.import_prior.as_ref().and_then(|p| p.get(&goal.name));
        let wire = EncodeOptions::wire();
        let request = ReadRequest {
            id: import_id.to_string(),
            urn: goal.urn.clone(),
            name: goal.name.clone(),
            r#type: goal.type_.clone(),
            properties: prior.map(|p| to_struct(&p.outputs, &wire)),
            inputs: prior.map(|p| to_struct(&p.inputs, &wire)),
            ..Default::default()
        };
        let read = provider.read(request).await;
        let read = match read {
            Ok(r) if !r.id.is_empty() => r,
            Ok(_) if goal.attempt.is_some() && planned.is_none() && replacing.is_none() => {
                // Identification: nothing under this ID, so the resource stays a create.
                let mut creating = goal.clone();
                creating.import_id = None;
                if let Some(a) = creating.attempt.as_mut() {
                    a.not_found = true;
                    let shown = if secret_attempt { "[secret]" } else { import_id };
                    a.reason = Some(format!(
                        "the `{}` provider found no `{}` with ID `{shown}`",
                        goal.package(),
                        goal.type_
                    ));
                }
                return self.update_or_same(&creating, None, provider_ref, provider).await;
            }
            failed => {
                // A type whose schema marks an output secret may be imported by that secret
                // (a password by its value): then a failure shows neither the ID nor a message
                // that repeats it.
                let secret = secret_attempt || self.has_secret_outputs(goal, provider).await;
                let shown = if secret { "[secret]" } else { import_id };
                if secret {
                    step.import_id = Some("[secret]".into());
                }
                let (status, message) = match failed {
                    Ok(_) => (
                        ImportStatus::NotFound,
                        format!(
                            "the `{}` provider found no `{}` with ID `{shown}`",
                            goal.package(),
                            goal.type_
                        ),
                    ),
                    // A plugin's own message already says it failed Read.
                    Err(e) if planned.is_some() => (ImportStatus::Failed, plugin_message(&e)),
                    Err(e) => {
                        (ImportStatus::Failed, format!("Read failed: {}", plugin_message(&e)))
                    }
                };
                let message = if secret && !import_id.is_empty() {
                    message.replace(import_id, "[secret]")
                } else {
                    message
                };
                return fail(step, status, message);
            }
        };
        if let (Some(_), Some(i)) = (planned, replacing) {
            // The provider's canonical ID decides: `8080,1,65535` imports a RandomInteger `8080`.
            let stored = self.olds[i].id.clone().unwrap_or_default();
            if stored == read.id {
                return self.already_managed(goal, i);
            }
            step.id = Some(read.id.clone());
            return fail(
                step,
                ImportStatus::Conflict,
                format!(
                    "the stack already has `{}` with ID `{stored}`, not `{}`",
                    goal.urn, read.id
                ),
            );
        }
        let Some(read_inputs) = read.inputs.as_ref() else {
            return fail(
                step,
                ImportStatus::Failed,
                format!(
                    "the `{}` provider returned no inputs for `{}`: it cannot import this type",
                    goal.package(),
                    goal.type_
                ),
            );
        };
        let decoded = from_struct(read_inputs).and_then(|i| {
            let outputs = match &read.properties {
                Some(properties) => from_struct(properties)?,
                None => PropertyMap::new(),
            };
            Ok((i, outputs))
        });
        let (read_inputs, read_outputs) = match decoded {
            Ok(v) => v,
            Err(e) => {
                return fail(
                    step,
                    ImportStatus::Failed,
                    format!("the `{}` provider's Read answer does not decode: {e}", goal.package()),
                )
            }
        };
        step.id = Some(read.id.clone());
        // Some import IDs are the secret itself: then they are neither shown nor stored.
        let secret_id = secret_attempt
            || read_outputs.values().any(|v| v.holds_secret_string(import_id, false));
        if planned.is_some() && read.id == import_id {
            // A spec's import ID that is the resource's ID says nothing more.
            step.import_id = None;
        } else if secret_id {
            step.import_id = Some("[secret]".into());
        }
        let mut news = match planned {
            None => {
                let mut news = goal.inputs.clone();
                apply_ignore_changes(&mut news, &read_inputs, &goal.ignore_changes);
                news
            }
            Some(p) => {
                let mut news = read_inputs.clone();
                if let Some(keep) = &p.properties {
                    news.retain(|k, _| keep.iter().any(|p| p == k));
                }
                if p.strategy == ImportStrategy::Minimal {
                    let required: Vec<String> = match self.schema_of(goal.package(), provider).await
                    {
                        Ok(schema) => schema["resources"][&goal.type_]["requiredInputs"]
                            .as_array()
                            .map(|a| {
                                a.iter()
                                    .filter_map(serde_json::Value::as_str)
                                    .map(str::to_string)
                                    .collect()
                            })
                            .unwrap_or_default(),
                        Err(e) => {
                            return fail(
                                step,
                                ImportStatus::Failed,
                                format!("the minimal strategy needs the package schema: {e}"),
                            )
                        }
                    };
                    news.retain(|k, _| required.contains(k));
                }
                news
            }
        };
        let mut checked = None;
        match self.check(provider, goal, &read_inputs, &news).await {
            Ok((c, failures)) => {
                for f in &failures {
                    step.warnings.push(f.to_string());
                }
                if failures.is_empty() || planned.is_some() {
                    checked = Some(c);
                }
                step.check_failures = failures;
            }
            // The plugin broke on this resource's own Check (twice, the second time alone).
            Err(CheckError::Process(e)) => return fail(step, ImportStatus::Failed, e),
            Err(e @ CheckError::Answer(_)) => step.warnings.push(format!("Check did not run: {e}")),
        }
        // What the resource should be: the checked inputs, else the program's (borrowed; the
        // stack records it below, moved).
        let desired = checked.as_ref().unwrap_or(&news);
        let decision = match self
            .diff(
                provider,
                &goal.urn,
                &goal.type_,
                &goal.name,
                &read.id,
                &read_outputs,
                &read_inputs,
                desired,
                &goal.ignore_changes,
            )
            .await
        {
            Ok(d) => d,
            Err(e) => {
                step.warnings.push(format!("Diff did not run: {e}"));
                engine_diff(&read_inputs, desired, &goal.ignore_changes)
            }
        };
        match planned {
            Some(p) if p.strategy == ImportStrategy::Minimal => {
                // Copy back every property whose checked value differs from the read state:
                // the smallest set of inputs that shows no diff.
                let mut keys: Vec<&String> = decision.changed.iter().chain(decision.replace_keys.iter()).collect();
                keys.sort();
                keys.dedup();
                for key in keys {
                    let top = key.split(['.', '[']).next().unwrap_or(key);
                    if let Some(v) = read_outputs.get(top).or_else(|| read_inputs.get(top)) {
                        news.insert(top.to_string(), v.clone());
                    }
                }
            }
            Some(_) if decision.has_changes() => step.warnings.push(format!(
                "Diff: the provider reports that the inputs Read returned differ from the resource ({}); code that sets them may preview as an update, as `pulumi import` warns",
                decision.changed.iter().chain(decision.replace_keys.iter()).map(|k| format!("`{k}`")).collect::<Vec<_>>().join(", ")
            )),
            Some(_) => {}
            None if decision.has_changes() => step.warnings.push(format!(
                "the program's inputs differ from the resource read back ({}): an import must leave no diff, so this cannot be committed until the program matches (or lists them in ignoreChanges)",
                decision.changed.iter().map(|k| format!("`{k}`")).collect::<Vec<_>>().join(", ")
            )),
            None => {}
        }
        let program_side = if planned.is_some() { &news } else { &goal.inputs };
        // The minimal strategy copied back what Diff named: nothing is left to differ.
        if !planned.is_some_and(|p| p.strategy == ImportStrategy::Minimal) {
            step.changed = decision.changed.clone();
            step.replace_keys = decision.replace_keys.clone();
        }
        step.diffs = explain(
            program_side,
            &read_inputs,
            checked.as_ref(),
            &decision,
            &goal.ignore_changes,
            true,
        );
        if self.update_mode() && !step.warnings.is_empty() {
            let why = step.warnings.join("; ");
            return fail(step, ImportStatus::Failed, format!("import refused: {why}"));
        }
        if let Some(i) = replacing {
            if self.olds[i].is_protected() {
                return fail(
                    step,
                    ImportStatus::Failed,
                    format!("`{}` is protected: it cannot be replaced by an import until `protect` is removed", self.olds[i].urn),
                );
            }
        }
        // What the stack records: a program's checked inputs; a spec's inputs as Pulumi's import
        // deployment keeps them (what the generated code sets).
        let recorded = match (planned, checked) {
            (None, Some(checked)) => checked,
            _ => news,
        };
        let read_outputs = secret_where_inputs_are(&recorded, read_outputs);
        if planned.is_some() {
            step.status = Some(if step.warnings.is_empty() {
                ImportStatus::Ready
            } else {
                ImportStatus::ReadyWithWarnings
            });
        }
        step.inputs = Some(shown_map(&recorded));
        step.outputs = Some(shown_map(&read_outputs));
        self.log.push(goal.seq, step);
        if let Some(i) = replacing {
            let mut marker = goal.step(StepOp::Replace);
            marker.old_id = self.olds[i].id.clone();
            marker.id = Some(read.id.clone());
            self.log.push(goal.seq, marker);
            self.log.lock().replaced.push(i);
        }
        // A program's later resources may refer to these outputs; a spec's entries never do
        // (they name each other only as parent or provider), so theirs are not copied and kept
        // to the level's end.
        let referable = if planned.is_some() { PropertyMap::new() } else { read_outputs.clone() };
        let mut state = goal.state(
            Some(read.id.clone()),
            recorded,
            read_outputs,
            Some(provider_ref.reference()),
        );
        state.import_id = (!secret_id).then(|| import_id.to_string());
        self.log.put(goal.seq, state);
        Registered {
            urn: goal.urn.clone(),
            id: PropertyValue::String(read.id),
            outputs: referable,
            complete: true,
        }
    }
}

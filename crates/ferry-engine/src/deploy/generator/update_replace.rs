//! Registrations of resources the stack has or will have: same, update and replace (create
//! before delete, or delete before replace with its dependents), reads, relinquishes and read
//! replacements, and `ignoreChanges`.

use super::*;

impl<'a> Generator<'a> {
    /// `get`: read, relinquish, or read-replacement.
    pub(super) async fn read_resource(
        &self,
        goal: &Goal,
        old: Option<usize>,
        provider_ref: &ProviderRef,
        provider: &dyn Provider,
    ) -> Registered {
        let (id, hints) = goal.read.clone().expect("a read goal");
        let op = match old {
            None => StepOp::Read,
            Some(i) if self.olds[i].external == Some(true) => StepOp::Read,
            Some(i) if self.olds[i].id.as_deref() == Some(id.as_str()) => StepOp::Relinquish,
            Some(_) => StepOp::ReadReplacement,
        };
        let mut step = goal.step(op);
        step.provider = Some(provider_ref.reference());
        step.old_id = old.and_then(|i| self.olds[i].id.clone());
        let wire = EncodeOptions::wire();
        let read = provider
            .read(ReadRequest {
                id: id.clone(),
                urn: goal.urn.clone(),
                name: goal.name.clone(),
                r#type: goal.type_.clone(),
                properties: Some(to_struct(&hints, &wire)),
                inputs: Some(to_struct(&hints, &wire)),
                ..Default::default()
            })
            .await;
        let result = match read {
            Err(e) => Err(format!("Read failed: {}", plugin_message(&e))),
            Ok(r) if r.id.is_empty() => Err(format!(
                "the `{}` provider found no `{}` with ID `{id}`",
                goal.package(),
                goal.type_
            )),
            Ok(r) => from_struct(&r.properties.clone().unwrap_or_default())
                .and_then(|o| {
                    Ok((r.id.clone(), o, r.inputs.as_ref().map(from_struct).transpose()?))
                })
                .map_err(|e| format!("the provider's Read answer does not decode: {e}")),
        };
        let (read_id, outputs, inputs) = match result {
            Ok(v) => v,
            Err(e) => {
                step.error = Some(e);
                self.log.push(goal.seq, step);
                if let Some(i) = old {
                    self.keep_old(goal.seq, i);
                }
                return unknown(&goal.urn);
            }
        };
        step.id = Some(read_id.clone());
        if op == StepOp::ReadReplacement {
            let i = old.expect("a replacement has an old resource");
            if self.olds[i].is_protected() {
                step.error = Some(format!(
                    "`{}` is protected: it cannot be replaced by a read until `protect` is removed",
                    self.olds[i].urn
                ));
                self.log.push(goal.seq, step);
                self.keep_old(goal.seq, i);
                return unknown(&goal.urn);
            }
            self.log.push(goal.seq, step);
            let mut marker = goal.step(StepOp::Replace);
            marker.old_id = self.olds[i].id.clone();
            marker.id = Some(read_id.clone());
            self.log.push(goal.seq, marker);
            self.log.lock().replaced.push(i);
        } else {
            self.log.push(goal.seq, step);
        }
        let mut state = goal.state(
            Some(read_id.clone()),
            inputs.unwrap_or(hints),
            outputs.clone(),
            Some(provider_ref.reference()),
        );
        state.external = true;
        state.protect = false;
        if op != StepOp::ReadReplacement {
            state.base = old;
        }
        self.log.put(goal.seq, state);
        Registered {
            urn: goal.urn.clone(),
            id: PropertyValue::String(read_id),
            outputs,
            complete: true,
        }
    }

    pub(super) async fn update_or_same(
        &self,
        goal: &Goal,
        old: Option<usize>,
        provider_ref: &ProviderRef,
        provider: &dyn Provider,
    ) -> Registered {
        let reference = provider_ref.reference();
        let (old_inputs, old_outputs) = match old.map(|i| self.old_props(i)).transpose() {
            Ok(p) => p.unwrap_or_default(),
            Err(e) => {
                let i = old.expect("old");
                let mut step = goal.step(StepOp::Same);
                step.error = Some(e);
                self.log.push(goal.seq, step);
                self.keep_old(goal.seq, i);
                // The resource stays as it is: what the stack records of it is known to those
                // that refer to it (its ID, and every output that decodes), as Pulumi's
                // preview knows a `same` resource's outputs. Only what did not decode (a secret
                // without the passphrase) is unknown.
                return self.stored_registration(&goal.urn, i);
            }
        };
        let already_deleted = old.is_some_and(|i| self.log.lock().dbr_deleted.contains(&i));
        let mut news = goal.inputs.clone();
        if old.is_some() {
            apply_ignore_changes(&mut news, &old_inputs, &goal.ignore_changes);
        }
        let check_olds = if already_deleted { PropertyMap::new() } else { old_inputs.clone() };
        let checked = match self.check(provider, goal, &check_olds, &news).await {
            Ok((c, failures)) if failures.is_empty() => Ok(c),
            Ok((_, failures)) => Err((
                format!(
                    "Check failed: {}",
                    failures
                        .iter()
                        .map(|f| format!("`{}`: {}", f.property, f.reason))
                        .collect::<Vec<_>>()
                        .join("; ")
                ),
                failures,
            )),
            Err(e) => Err((format!("Check failed: {e}"), Vec::new())),
        };
        let checked = match checked {
            Ok(c) => c,
            Err((message, failures)) => {
                let mut step =
                    goal.step(if old.is_some() { StepOp::Update } else { StepOp::Create });
                step.error = Some(message);
                step.check_failures = failures;
                self.log.push(goal.seq, step);
                if let Some(i) = old.filter(|_| !already_deleted) {
                    self.keep_old(goal.seq, i);
                }
                if self.update_mode() {
                    self.log.lock().failed = true;
                }
                return unknown(&goal.urn);
            }
        };
        let Some(i) = old else {
            let decision = engine_diff(&PropertyMap::new(), &checked, &[]);
            let mut step = goal.step(StepOp::Create);
            step.provider = Some(reference.clone());
            step.diffs = explain(
                &goal.inputs,
                &PropertyMap::new(),
                Some(&checked),
                &decision,
                &goal.ignore_changes,
                false,
            );
            return self.finish_create(goal, step, checked, reference, provider).await;
        };
        if already_deleted {
            // A delete-before-replace of a dependency already deleted this one: re-create it.
            let mut step = goal.step(StepOp::CreateReplacement);
            step.provider = Some(reference.clone());
            step.old_id = self.olds[i].id.clone();
            let r = self.finish_create(goal, step, checked, reference, provider).await;
            let mut marker = goal.step(StepOp::Replace);
            marker.old_id = self.olds[i].id.clone();
            self.log.push(goal.seq, marker);
            return r;
        }
        let old_id = self.olds[i].id.clone().unwrap_or_default();
        let old_provider_urn =
            self.olds[i].provider().and_then(split_provider_reference).map(|(u, _)| u.to_string());
        let is_default = |u: &str| Urn::parse(u).is_some_and(|u| u.name.starts_with("default"));
        let provider_changed = match &old_provider_urn {
            Some(u) => u != &provider_ref.urn && !(is_default(u) && is_default(&provider_ref.urn)),
            None => false,
        };
        let decision = if provider_changed {
            DiffDecision {
                changed: vec!["provider".into()],
                replace_keys: vec!["provider".into()],
                ..Default::default()
            }
        } else {
            match self
                .diff(
                    provider,
                    &goal.urn,
                    &goal.type_,
                    &goal.name,
                    &old_id,
                    &old_outputs,
                    &old_inputs,
                    &checked,
                    &goal.ignore_changes,
                )
                .await
            {
                Ok(d) => d,
                Err(e) => {
                    let mut step = goal.step(StepOp::Update);
                    step.error = Some(format!("Diff failed: {e}"));
                    self.log.push(goal.seq, step);
                    self.keep_old(goal.seq, i);
                    return unknown(&goal.urn);
                }
            }
        };
        if !decision.has_changes() {
            let mut step = goal.step(StepOp::Same);
            step.provider = Some(reference.clone());
            step.id = Some(old_id.clone());
            step.old_id = Some(old_id.clone());
            self.log.push(goal.seq, step);
            // Pulumi keeps the old outputs and records the new (checked) inputs.
            self.log.put(
                goal.seq,
                self.continued(i, goal, checked, old_outputs.clone(), Some(reference)),
            );
            return Registered {
                urn: goal.urn.clone(),
                id: PropertyValue::String(old_id),
                outputs: old_outputs,
                complete: true,
            };
        }
        let diffs = explain(
            &goal.inputs,
            &old_inputs,
            Some(&checked),
            &decision,
            &goal.ignore_changes,
            false,
        );
        if !decision.replaces() {
            let mut step = goal.step(StepOp::Update);
            step.provider = Some(reference.clone());
            step.id = Some(old_id.clone());
            step.old_id = Some(old_id.clone());
            step.changed = decision.changed.clone();
            step.diffs = diffs;
            let mut outputs = old_outputs.clone();
            outputs.extend(checked.clone());
            if self.may_execute() {
                let wire = EncodeOptions::wire();
                let r = provider
                    .update(UpdateRequest {
                        id: old_id.clone(),
                        urn: goal.urn.clone(),
                        olds: Some(to_struct(&old_outputs, &wire)),
                        news: Some(to_struct(&checked, &wire)),
                        ignore_changes: goal.ignore_changes.clone(),
                        old_inputs: Some(to_struct(&old_inputs, &wire)),
                        name: goal.name.clone(),
                        r#type: goal.type_.clone(),
                        ..Default::default()
                    })
                    .await
                    .map_err(|e| plugin_message(&e))
                    .and_then(|r| {
                        from_struct(&r.properties.unwrap_or_default()).map_err(|e| e.to_string())
                    });
                match r {
                    Ok(o) => {
                        self.log.lock().mutated = true;
                        outputs = secret_where_inputs_are(&checked, o);
                    }
                    Err(e) => {
                        step.error = Some(format!("Update failed: {e}"));
                        self.log.lock().failed = true;
                        self.log.push(goal.seq, step);
                        self.keep_old(goal.seq, i);
                        return unknown(&goal.urn);
                    }
                }
            } else if self.update_mode() {
                step.error = Some("not run: an earlier step failed".into());
                self.log.push(goal.seq, step);
                self.keep_old(goal.seq, i);
                return unknown(&goal.urn);
            }
            self.log.push(goal.seq, step);
            self.log
                .put(goal.seq, self.continued(i, goal, checked, outputs.clone(), Some(reference)));
            return Registered {
                urn: goal.urn.clone(),
                id: PropertyValue::String(old_id),
                outputs,
                complete: true,
            };
        }
        // Replacement.
        let dbr = decision.delete_before_replace || goal.delete_before_replace;
        if self.olds[i].is_protected() {
            let mut step = goal.step(StepOp::Replace);
            step.old_id = Some(old_id);
            step.replace_keys = decision.replace_keys.clone();
            step.diffs = diffs;
            step.error = Some(format!(
                "`{}` is protected: it must be replaced ({}), which needs `protect` removed first",
                goal.urn,
                decision.replace_keys.join(", ")
            ));
            self.log.push(goal.seq, step);
            self.keep_old(goal.seq, i);
            return unknown(&goal.urn);
        }
        // A replacement's inputs are checked without the old ones (no reused generated names).
        let fresh = match self.check(provider, goal, &PropertyMap::new(), &news).await {
            Ok((c, f)) if f.is_empty() => c,
            _ => checked,
        };
        let mut create = goal.step(StepOp::CreateReplacement);
        create.provider = Some(reference.clone());
        create.old_id = Some(old_id.clone());
        create.delete_before_replace = dbr;
        create.changed = decision.changed.clone();
        create.replace_keys = decision.replace_keys.clone();
        create.diffs = diffs;
        let mut marker = goal.step(StepOp::Replace);
        marker.old_id = Some(old_id.clone());
        marker.delete_before_replace = dbr;
        marker.replace_keys = decision.replace_keys.clone();
        if dbr {
            // Dependents that must go first, deepest first, then the resource itself.
            let dependents = self.dbr_dependents(i).await;
            for &d in dependents.iter().rev() {
                let r = &self.olds[d];
                let mut del = Step::new(
                    StepOp::DeleteReplaced,
                    &r.urn,
                    &r.type_,
                    Urn::parse(&r.urn).map(|u| u.name).unwrap_or(""),
                );
                del.old_id = r.id.clone();
                del.delete_before_replace = true;
                del.warnings.push(format!("replaced because `{}` is replaced delete-before-replace and this resource's inputs come from it", goal.urn));
                if r.is_protected() {
                    del.error =
                        Some(format!("`{}` is protected and would have to be replaced", r.urn));
                }
                let ok = self.execute_delete(d, &mut del).await;
                self.log.push(goal.seq, del);
                if ok {
                    self.log.lock().dbr_deleted.insert(d);
                }
            }
            let mut del = goal.step(StepOp::DeleteReplaced);
            del.old_id = Some(old_id.clone());
            del.delete_before_replace = true;
            let ok = self.execute_delete(i, &mut del).await;
            self.log.push(goal.seq, del);
            if !ok {
                self.keep_old(goal.seq, i);
                return unknown(&goal.urn);
            }
            self.log.lock().dbr_deleted.insert(i);
            let r = self.finish_create(goal, create, fresh, reference, provider).await;
            self.log.push(goal.seq, marker);
            r
        } else {
            let r = self.finish_create(goal, create, fresh, reference, provider).await;
            self.log.push(goal.seq, marker);
            self.log.lock().replaced.push(i);
            r
        }
    }

    /// Records a create (or create-replacement) step, running Create in update mode.
    pub(super) async fn finish_create(
        &self,
        goal: &Goal,
        mut step: Step,
        inputs: PropertyMap,
        reference: String,
        provider: &dyn Provider,
    ) -> Registered {
        if !self.update_mode() {
            self.log.push(goal.seq, step);
            self.log
                .put(goal.seq, goal.state(None, inputs.clone(), inputs.clone(), Some(reference)));
            return Registered {
                urn: goal.urn.clone(),
                id: PropertyValue::Computed,
                outputs: inputs,
                complete: false,
            };
        }
        if !self.may_execute() {
            step.error = Some("not run: an earlier step failed".into());
            self.log.push(goal.seq, step);
            return unknown(&goal.urn);
        }
        match self.create(provider, goal, &inputs).await {
            Ok((id, outputs)) => {
                step.id = Some(id.clone());
                self.log.push(goal.seq, step);
                self.log.put(
                    goal.seq,
                    goal.state(Some(id.clone()), inputs, outputs.clone(), Some(reference)),
                );
                Registered {
                    urn: goal.urn.clone(),
                    id: PropertyValue::String(id),
                    outputs,
                    complete: true,
                }
            }
            Err(e) => {
                step.error = Some(format!("Create failed: {e}"));
                self.log.lock().failed = true;
                self.log.push(goal.seq, step);
                unknown(&goal.urn)
            }
        }
    }

    /// Delete-before-replace of `root`: the old resources that must be replaced with it. Of
    /// those depending on it (transitively), only ones with a property dependency on a replaced
    /// resource count, and only when the provider's Diff — given unknowns for those properties —
    /// says they must be replaced.
    pub(super) async fn dbr_dependents(&self, root: usize) -> Vec<usize> {
        let mut replaced: HashSet<&str> = HashSet::from([self.olds[root].urn.as_str()]);
        let mut out = Vec::new();
        for d in root + 1..self.olds.len() {
            let r = &self.olds[d];
            if r.is_pending_delete() || !r.is_custom() || self.log.lock().dbr_deleted.contains(&d) {
                continue;
            }
            let touches = r.dependency_urns().any(|u| replaced.contains(u));
            if !touches {
                continue;
            }
            let affected: Vec<String> = r
                .property_dependencies
                .iter()
                .flatten()
                .filter(|(_, urns)| {
                    urns.as_array().is_some_and(|a| {
                        a.iter().any(|u| u.as_str().is_some_and(|u| replaced.contains(u)))
                    })
                })
                .map(|(k, _)| k.clone())
                .collect();
            if affected.is_empty() {
                continue; // only `dependsOn`: its inputs do not change
            }
            let Ok((inputs, outputs)) = self.old_props(d) else { continue };
            let mut news = inputs.clone();
            for k in &affected {
                news.insert(k.clone(), PropertyValue::Computed);
            }
            let Ok(provider) = self.old_provider(d).await else { continue };
            let name = Urn::parse(&r.urn).map(|u| u.name.to_string()).unwrap_or_default();
            let decision = self
                .diff(
                    provider.as_ref(),
                    &r.urn,
                    &r.type_,
                    &name,
                    r.id.as_deref().unwrap_or(""),
                    &outputs,
                    &inputs,
                    &news,
                    &[],
                )
                .await;
            if decision.is_ok_and(|d| d.replaces()) {
                replaced.insert(r.urn.as_str());
                out.push(d);
            }
        }
        out
    }
}

/// Copies the ignored properties' current values into the program's inputs (a path may reach
/// into objects: `tags.team`). An ignored property the resource does not have is removed.
pub fn apply_ignore_changes(news: &mut PropertyMap, olds: &PropertyMap, paths: &[String]) {
    for path in paths {
        let keys: Vec<&str> = path.split('.').collect();
        fn walk<'v>(m: &'v PropertyMap, keys: &[&str]) -> Option<&'v PropertyValue> {
            let v = m.get(keys[0])?;
            if keys.len() == 1 {
                return Some(v);
            }
            match v {
                PropertyValue::Object(inner) => walk(inner, &keys[1..]),
                _ => None,
            }
        }
        let old = walk(olds, &keys).cloned();
        let mut target = &mut *news;
        for (n, k) in keys.iter().enumerate() {
            if n + 1 == keys.len() {
                match &old {
                    Some(v) => {
                        target.insert(k.to_string(), v.clone());
                    }
                    None => {
                        target.remove(*k);
                    }
                }
                break;
            }
            let entry = target
                .entry(k.to_string())
                .or_insert_with(|| PropertyValue::Object(PropertyMap::new()));
            match entry {
                PropertyValue::Object(inner) => target = inner,
                _ => break,
            }
        }
    }
}

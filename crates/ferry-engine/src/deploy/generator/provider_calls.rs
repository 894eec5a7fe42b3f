//! The generator's calls to providers: default providers (one per package and version, made
//! once), provider resources, schemas, and the `Check`, `Diff`, `Create` and `Delete` each step
//! makes, with their failures put in the provider's words.

use super::*;

impl<'a> Generator<'a> {
    pub(super) async fn default_provider(
        &self,
        package: &str,
        version: Option<&str>,
    ) -> Result<ProviderRef, String> {
        let cell = self
            .defaults
            .lock()
            .await
            .entry((package.to_string(), version.map(str::to_string)))
            .or_default()
            .clone();
        cell.get_or_init(|| self.register_default_provider(package, version)).await.clone()
    }

    pub(super) async fn register_default_provider(
        &self,
        package: &str,
        version: Option<&str>,
    ) -> Result<ProviderRef, String> {
        let type_ = format!("pulumi:providers:{package}");
        let name = match version {
            Some(v) => {
                format!("default_{}", v.trim_start_matches('v').replace(['.', '-', '+'], "_"))
            }
            None => "default".to_string(),
        };
        let urn = make_urn(self.ctx.stack, self.ctx.project, None, &type_, &name);
        // The exact default provider, or (no version asked) any default one for the package.
        let old = self.live.get(urn.as_str()).copied().or_else(|| {
            version.is_none().then(|| {
                self.olds.iter().position(|r| {
                    !r.is_pending_delete()
                        && r.type_ == type_
                        && Urn::parse(&r.urn).is_some_and(|u| u.name.starts_with("default"))
                        && r.parent().is_none()
                })
            })?
        });
        let mut inputs = PropertyMap::new();
        if let Some(v) = version {
            inputs.insert("version".into(), PropertyValue::String(v.to_string()));
        }
        let state = |urn: &str, id: Option<String>, inputs: PropertyMap, base: Option<usize>| {
            ResourceState {
                urn: urn.to_string(),
                type_: type_.clone(),
                custom: true,
                id,
                outputs: inputs.clone(),
                inputs,
                parent: None,
                provider: None,
                dependencies: Vec::new(),
                property_dependencies: BTreeMap::new(),
                protect: false,
                external: false,
                delete_before_replace: false,
                retain_on_delete: false,
                import_id: None,
                // A default provider the stack already has is reused as it is stored.
                verbatim: base.is_some(),
                base,
            }
        };
        match old {
            Some(i) => {
                let old = &self.olds[i];
                let (old_inputs, _) = self.old_props(i)?;
                self.log.lock().claimed.insert(i, old.urn.clone());
                let mut step = Step::new(
                    StepOp::Same,
                    &old.urn,
                    &type_,
                    Urn::parse(&old.urn).map(|u| u.name).unwrap_or(&name),
                );
                step.id = old.id.clone();
                self.log.push(1, step);
                self.log.put(1, state(&old.urn, old.id.clone(), old_inputs.clone(), Some(i)));
                let version = provider_version(&old_inputs).or_else(|| version.map(str::to_string));
                Ok(ProviderRef {
                    urn: old.urn.clone(),
                    id: PropertyValue::String(old.id.clone().unwrap_or_default()),
                    config: provider_config(&old_inputs),
                    version,
                })
            }
            None => {
                let id = self.update_mode().then(|| uuid::Uuid::new_v4().to_string());
                let mut step = Step::new(StepOp::Create, &urn, &type_, &name);
                step.id = id.clone();
                self.log.push(1, step);
                self.log.put(1, state(&urn, id.clone(), inputs.clone(), None));
                Ok(ProviderRef {
                    urn,
                    id: id.map(PropertyValue::String).unwrap_or(PropertyValue::Computed),
                    config: PropertyMap::new(),
                    version: version.map(str::to_string),
                })
            }
        }
    }

    /// The provider resource a goal uses: its explicit one, or the package's default.
    pub(super) async fn provider_ref_for(&self, goal: &Goal) -> Result<ProviderRef, String> {
        match &goal.provider {
            Some(p) => Ok(p.clone()),
            None => self.default_provider(goal.package(), goal.version.as_deref()).await,
        }
    }

    pub(super) async fn provider_for(
        &self,
        goal: &Goal,
    ) -> Result<(ProviderRef, Arc<dyn Provider>), String> {
        let reference = self.provider_ref_for(goal).await?;
        let provider = self
            .providers
            .provider(&reference.instance(goal.package()))
            .await
            .map_err(|e| plugin_message(&e))?;
        Ok((reference, provider))
    }

    /// The package's schema, asked of `provider` once per package.
    pub(super) async fn schema_of(
        &self,
        package: &str,
        provider: &dyn Provider,
    ) -> Result<Arc<serde_json::Value>, String> {
        let cell = self.schemas.lock().await.entry(package.to_string()).or_default().clone();
        cell.get_or_init(|| async {
            let text = provider.get_schema().await.map_err(|e| plugin_message(&e))?;
            serde_json::from_str::<serde_json::Value>(&text)
                .map(Arc::new)
                .map_err(|e| format!("the provider's schema is not JSON: {e}"))
        })
        .await
        .clone()
    }

    /// Whether the goal's type has an output its package's schema marks secret.
    pub(super) async fn has_secret_outputs(&self, goal: &Goal, provider: &dyn Provider) -> bool {
        match self.schema_of(goal.package(), provider).await {
            Ok(schema) => schema["resources"][&goal.type_]["properties"]
                .as_object()
                .is_some_and(|props| props.values().any(|p| p["secret"] == true)),
            Err(_) => false,
        }
    }

    /// The provider that manages an old resource, from its recorded provider reference.
    pub(super) async fn old_provider(&self, i: usize) -> Result<Arc<dyn Provider>, String> {
        let r = &self.olds[i];
        let package = r.type_.split(':').next().unwrap_or("");
        let instance = match r.provider().and_then(split_provider_reference) {
            Some((urn, id)) => {
                let config = match self.live.get(urn) {
                    Some(&p) => self.old_props(p)?.0,
                    None => PropertyMap::new(),
                };
                ProviderInstance {
                    package: package.into(),
                    version: provider_version(&config),
                    key: format!("{urn}::{id}"),
                    config: provider_config(&config),
                }
            }
            // State from before providers were recorded: the package's unconfigured provider.
            None => ProviderInstance {
                package: package.into(),
                version: None,
                key: format!("default:{package}"),
                config: PropertyMap::new(),
            },
        };
        self.providers.provider(&instance).await.map_err(|e| plugin_message(&e))
    }

    // ---- provider calls ----

    pub(super) async fn check(
        &self,
        provider: &dyn Provider,
        goal: &Goal,
        olds: &PropertyMap,
        news: &PropertyMap,
    ) -> Result<(PropertyMap, Vec<CheckFailure>), CheckError> {
        let wire = EncodeOptions::wire();
        let r = provider
            .check(CheckRequest {
                urn: goal.urn.clone(),
                olds: Some(to_struct(olds, &wire)),
                news: Some(to_struct(news, &wire)),
                name: goal.name.clone(),
                r#type: goal.type_.clone(),
                ..Default::default()
            })
            .await
            .map_err(|e| {
                if e.is_process_failure() {
                    CheckError::Process(plugin_message(&e))
                } else {
                    CheckError::Answer(plugin_message(&e))
                }
            })?;
        let failures = r
            .failures
            .into_iter()
            .map(|f| CheckFailure { property: f.property, reason: f.reason })
            .collect();
        let checked = match r.inputs {
            Some(s) => from_struct(&s).map_err(|e| {
                CheckError::Answer(format!("the provider's Check answer does not decode: {e}"))
            })?,
            None => news.clone(),
        };
        Ok((checked, failures))
    }

    #[allow(clippy::too_many_arguments)]
    pub(super) async fn diff(
        &self,
        provider: &dyn Provider,
        urn: &str,
        type_: &str,
        name: &str,
        id: &str,
        old_outputs: &PropertyMap,
        old_inputs: &PropertyMap,
        news: &PropertyMap,
        ignore: &[String],
    ) -> Result<DiffDecision, String> {
        let wire = EncodeOptions::wire();
        let r = provider
            .diff(DiffRequest {
                id: id.to_string(),
                urn: urn.to_string(),
                olds: Some(to_struct(old_outputs, &wire)),
                news: Some(to_struct(news, &wire)),
                ignore_changes: ignore.to_vec(),
                old_inputs: Some(to_struct(old_inputs, &wire)),
                name: name.to_string(),
                r#type: type_.to_string(),
            })
            .await;
        match r {
            Ok(r) => Ok(from_response(&r).unwrap_or_else(|| engine_diff(old_inputs, news, ignore))),
            // A provider without Diff: the engine compares inputs itself.
            Err(PluginError::Call { code, .. }) if code == "Unimplemented" => {
                Ok(engine_diff(old_inputs, news, ignore))
            }
            Err(e) => Err(plugin_message(&e)),
        }
    }

    pub(super) async fn create(
        &self,
        provider: &dyn Provider,
        goal: &Goal,
        inputs: &PropertyMap,
    ) -> Result<(String, PropertyMap), String> {
        let r = provider
            .create(CreateRequest {
                urn: goal.urn.clone(),
                properties: Some(to_struct(inputs, &EncodeOptions::wire())),
                name: goal.name.clone(),
                r#type: goal.type_.clone(),
                ..Default::default()
            })
            .await
            .map_err(|e| plugin_message(&e))?;
        if r.id.is_empty() {
            return Err("the provider's Create returned no ID".into());
        }
        let outputs = from_struct(&r.properties.unwrap_or_default())
            .map_err(|e| format!("the provider's Create answer does not decode: {e}"))?;
        self.log.lock().mutated = true;
        Ok((r.id, secret_where_inputs_are(inputs, outputs)))
    }

    pub(super) async fn delete_old(&self, i: usize) -> Result<(), String> {
        let r = &self.olds[i];
        let provider = self.old_provider(i).await?;
        let (inputs, outputs) = self.old_props(i)?;
        let wire = EncodeOptions::wire();
        provider
            .delete(DeleteRequest {
                id: r.id.clone().unwrap_or_default(),
                urn: r.urn.clone(),
                properties: Some(to_struct(&outputs, &wire)),
                old_inputs: Some(to_struct(&inputs, &wire)),
                name: Urn::parse(&r.urn).map(|u| u.name.to_string()).unwrap_or_default(),
                r#type: r.type_.clone(),
                ..Default::default()
            })
            .await
            .map_err(|e| plugin_message(&e))?;
        self.log.lock().mutated = true;
        Ok(())
    }

    /// Runs a delete of an old resource now (update mode), recording failures on `step`.
    pub(super) async fn execute_delete(&self, i: usize, step: &mut Step) -> bool {
        if step.error.is_some() || step.state_only || !self.update_mode() {
            return step.error.is_none();
        }
        if !self.may_execute() {
            step.error = Some("not run: an earlier step failed".into());
            return false;
        }
        match self.delete_old(i).await {
            Ok(()) => true,
            Err(e) => {
                step.error = Some(format!("Delete failed: {e}"));
                self.log.lock().failed = true;
                false
            }
        }
    }

    // ---- registrations ----

    pub(super) fn register_provider(&self, goal: &Goal, old: Option<usize>) -> Registered {
        let inputs = goal.inputs.clone();
        match old {
            Some(i) => {
                let (old_inputs, _) = match self.old_props(i) {
                    Ok(p) => p,
                    Err(e) => {
                        let mut step = goal.step(StepOp::Same);
                        step.error = Some(e);
                        self.log.push(goal.seq, step);
                        return unknown(&goal.urn);
                    }
                };
                let decision = engine_diff(&old_inputs, &inputs, &[]);
                let op = if decision.has_changes() { StepOp::Update } else { StepOp::Same };
                let mut step = goal.step(op);
                step.id = self.olds[i].id.clone();
                step.old_id = self.olds[i].id.clone();
                step.changed = decision.changed.clone();
                step.diffs = explain(&inputs, &old_inputs, None, &decision, &[], false);
                self.log.push(goal.seq, step);
                let mut state = self.continued(i, goal, inputs.clone(), inputs.clone(), None);
                state.dependencies = goal.dependencies.clone();
                self.log.put(goal.seq, state);
                Registered {
                    urn: goal.urn.clone(),
                    id: PropertyValue::String(self.olds[i].id.clone().unwrap_or_default()),
                    outputs: inputs,
                    complete: true,
                }
            }
            None => {
                let id = self.update_mode().then(|| uuid::Uuid::new_v4().to_string());
                let mut step = goal.step(StepOp::Create);
                step.id = id.clone();
                if goal.planned.is_some() {
                    step.status = Some(ImportStatus::Ready);
                    step.state_only = true;
                    step.inputs = Some(shown_map(&inputs));
                }
                self.log.push(goal.seq, step);
                self.log
                    .put(goal.seq, goal.state(id.clone(), inputs.clone(), inputs.clone(), None));
                Registered {
                    urn: goal.urn.clone(),
                    id: id.map(PropertyValue::String).unwrap_or(PropertyValue::Computed),
                    outputs: inputs,
                    complete: true,
                }
            }
        }
    }
}

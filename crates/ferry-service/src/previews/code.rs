//! Code for imported resources: a preview's ready resources, or a stack's resources, with the
//! rest of the stack as context (parents, explicit providers) and the providers' schemas (one
//! `GetSchema` per package and version, cached on disk). One file, or a runnable project zip.

use std::collections::{BTreeSet, HashMap};
use std::io::Write as _;

use ferry_codegen::ir::Report;
use ferry_codegen::{
    lower, project, CodeStyle, Language, Options, Origin, OriginPart, OriginReference,
    OriginTemplate, OriginVariable, PackageSchema, SourceResource,
};
use ferry_engine::deploy::StepOp;
use ferry_engine::plugin::PluginProviders;
use ferry_property::json::{decode_map, DecodeOptions};
use ferry_state::deployment::Resource;
use ferry_terraform::ConfiguredPart;
use ferry_types::previews::CodeQuery;
use ferry_types::SourceKind;
use serde::Serialize;

use crate::previews::verify::{kept_properties, verify, Verification};
use crate::previews::SealedPayload;
use crate::stack_secrets::StackSecrets;
use crate::{LoadedVersion, Previews, ServiceError};

/// What code to make.
#[derive(Debug, Clone)]
pub struct CodeRequest {
    pub language: Language,
    /// A runnable project as a zip, rather than the one program file.
    pub zip: bool,
    pub style: CodeStyle,
    pub elide: bool,
    /// Resources (names or URNs) whose properties are all kept.
    pub keep_all: BTreeSet<String>,
    pub references: bool,
    /// Reference suggestions turned off (`resource.property`).
    pub reference_exclusions: BTreeSet<String>,
}

/// A query's comma-separated list (`keep=a,b`), its entries trimmed, empty ones left out.
pub fn comma_list(s: &Option<String>) -> BTreeSet<String> {
    s.iter()
        .flat_map(|v| v.split(','))
        .map(str::trim)
        .filter(|v| !v.is_empty())
        .map(str::to_string)
        .collect()
}

impl CodeRequest {
    /// The code a query asks for, and whether it asked for JSON (`format=json`) rather than a
    /// file; a word the query does not know is refused, naming what it takes.
    pub fn from_query(q: &CodeQuery) -> Result<(CodeRequest, bool), ServiceError> {
        let bad = |m: String| ServiceError::Invalid(m);
        let language = match &q.lang {
            None => Language::TypeScript,
            Some(l) => Language::parse(l).ok_or_else(|| {
                bad(format!("unknown language `{l}`: use ts, python, go, csharp or yaml"))
            })?,
        };
        let (zip, json) = match q.format.as_deref().unwrap_or("file") {
            "file" => (false, false),
            "zip" => (true, false),
            "json" => (false, true),
            other => return Err(bad(format!("unknown format `{other}`: use file, zip or json"))),
        };
        let style = match q.style.as_deref().unwrap_or("cli") {
            "cli" => CodeStyle::Cli,
            "code-first" => CodeStyle::CodeFirst,
            other => return Err(bad(format!("unknown style `{other}`: use cli or code-first"))),
        };
        let request = CodeRequest {
            language,
            zip,
            style,
            elide: q.elide.unwrap_or(true),
            keep_all: comma_list(&q.keep),
            references: q.references.unwrap_or(true),
            reference_exclusions: comma_list(&q.exclude),
        };
        Ok((request, json))
    }
}

impl Default for CodeRequest {
    fn default() -> Self {
        CodeRequest {
            language: Language::TypeScript,
            zip: false,
            style: CodeStyle::Cli,
            elide: true,
            keep_all: BTreeSet::new(),
            references: true,
            reference_exclusions: BTreeSet::new(),
        }
    }
}

/// Generated code, ready to send.
#[derive(Debug, Clone, Serialize)]
pub struct GeneratedCode {
    pub file_name: String,
    #[serde(skip)]
    pub content_type: &'static str,
    #[serde(skip)]
    pub bytes: Vec<u8>,
    /// The program's text (not for zips).
    pub code: Option<String>,
    pub report: Report,
    /// Each resource's code through the provider's Check and Diff (when defaults are left out).
    pub verification: Vec<Verification>,
}

fn source_of(r: &Resource, secrets: &StackSecrets) -> SourceResource {
    let decrypt = |ct: &str| secrets.decrypt(ct);
    let opts = DecodeOptions { decrypt: Some(&decrypt) };
    let decode = |m: serde_json::Map<String, serde_json::Value>| {
        decode_map(&m, "", &opts).unwrap_or_default()
    };
    SourceResource {
        urn: r.urn.clone(),
        name: ferry_state::urn::name_of(&r.urn).to_string(),
        token: r.type_.clone(),
        custom: r.is_custom(),
        id: r.id.clone(),
        import_id: r.extra.get("importID").and_then(|v| v.as_str()).map(str::to_string),
        inputs: decode(r.inputs_map()),
        outputs: decode(r.outputs_map()),
        parent: r.parent.clone(),
        provider: r.provider.clone(),
        protect: r.is_protected(),
        ignore_changes: Vec::new(),
        depends_on: r.dependencies.clone().unwrap_or_default(),
        origin: None,
    }
}

/// What plan `plan_id` was made with of its resources' recorded Terraform states, if anything:
/// read back (sealed with the server's payload key) by the plan's revisions and its code.
pub(crate) async fn recorded_prior(
    store: &ferry_store::Store,
    engine: &crate::EngineSlot,
    plan_id: &str,
) -> Result<Option<std::collections::BTreeMap<String, ferry_terraform::PriorState>>, ServiceError> {
    let Some(sealed) = store.plans().plan_prior(plan_id).await? else { return Ok(None) };
    let bad = |what: &str| {
        ServiceError::Internal(format!(
            "the plan's recorded states {what} (was the server's payload key replaced?)"
        ))
    };
    let json = ferry_state::secrets::PassphraseCrypter::from_key(&engine.get()?.payload_key)
        .decrypt(&sealed)
        .map_err(|_| bad("do not decrypt"))?;
    serde_json::from_slice(&json).map(Some).map_err(|_| bad("are damaged"))
}

impl Previews {
    /// The providers' schemas for the packages the code for `resources` types: theirs (each
    /// needed: without it the code cannot be typed), and those of the providers and components
    /// of `context` they need. One of the latter that cannot be had is not a failure: its
    /// resources are written without it (untyped), said in `warnings`. No other package of the
    /// stack is asked for.
    async fn schemas_for(
        resources: &[SourceResource],
        context: &[SourceResource],
        providers: &PluginProviders,
        warnings: &mut Vec<String>,
    ) -> Result<HashMap<String, PackageSchema>, ServiceError> {
        let (own, needed) = ferry_codegen::packages_needed(resources, context);
        let mut schemas = HashMap::new();
        for package in own {
            match providers.schema(&package, None).await {
                Ok(text) => match PackageSchema::parse(&text) {
                    Ok(s) => {
                        schemas.insert(package, s);
                    }
                    Err(e) => {
                        return Err(ServiceError::Code(format!(
                            "the `{package}` provider's schema: {e}"
                        )))
                    }
                },
                Err(e) => {
                    return Err(ServiceError::Code(format!(
                        "the `{package}` provider's schema is needed to type the code: {e}"
                    )))
                }
            }
        }
        for package in needed {
            let schema = match providers
                .schema(&package, None)
                .await
                .map_err(|e| e.to_string())
                .and_then(|t| PackageSchema::parse(&t).map_err(|e| e.to_string()))
            {
                Ok(s) => s,
                Err(e) => {
                    warnings.push(format!(
                        "the `{package}` provider's schema could not be had ({e}): what the code declares of `{package}` (a provider or a component the imports need) is written without it, untyped; check it"
                    ));
                    PackageSchema::parse(&format!("{{\"name\": \"{package}\"}}"))
                        .map_err(|e| ServiceError::Internal(e.to_string()))?
                }
            };
            schemas.insert(package, schema);
        }
        Ok(schemas)
    }

    /// Schemas, and (when the code elides) the verification `stored` holds or a fresh one,
    /// which `store` keeps; then the code.
    async fn generate_verified(
        &self,
        stack_id: &str,
        project: &str,
        resources: Vec<SourceResource>,
        context: Vec<SourceResource>,
        request: &CodeRequest,
        preview_id: Option<&str>,
    ) -> Result<GeneratedCode, ServiceError> {
        let providers = self.plugins.providers(stack_id).await?;
        let mut warnings = Vec::new();
        let prepared = async {
            let schemas =
                Self::schemas_for(&resources, &context, &providers, &mut warnings).await?;
            if !request.elide {
                // Nothing is left out: nothing to put back.
                return Ok((schemas, Vec::new()));
            }
            let stored = match preview_id {
                Some(id) => self.store.stacks().preview_verification(id).await?,
                None => None,
            };
            let verification = match stored {
                Some(json) => serde_json::from_str(&json)
                    .map_err(|e| ServiceError::Internal(format!("stored verification: {e}")))?,
                None => {
                    let fresh = verify(
                        &resources,
                        &context,
                        &schemas,
                        &providers,
                        self.engine.get()?.concurrency,
                    )
                    .await;
                    match preview_id {
                        // Once per preview: a concurrent request may have stored its own first.
                        Some(id) => {
                            let json = self
                                .store
                                .stacks()
                                .add_preview_verification(
                                    id,
                                    &serde_json::to_string(&fresh).expect("serialises"),
                                )
                                .await?;
                            serde_json::from_str(&json).map_err(|e| {
                                ServiceError::Internal(format!("stored verification: {e}"))
                            })?
                        }
                        None => fresh,
                    }
                }
            };
            Ok::<_, ServiceError>((schemas, verification))
        }
        .await;
        providers.shutdown().await;
        let (schemas, verification) = prepared?;
        let mut code =
            self.generate(project, resources, context, &schemas, request, verification)?;
        code.report.warnings.splice(0..0, warnings);
        Ok(code)
    }

    fn generate(
        &self,
        project: &str,
        resources: Vec<SourceResource>,
        context: Vec<SourceResource>,
        schemas: &HashMap<String, PackageSchema>,
        request: &CodeRequest,
        verification: Vec<Verification>,
    ) -> Result<GeneratedCode, ServiceError> {
        let options = Options {
            style: request.style,
            elide: request.elide,
            keep_all: request.keep_all.clone(),
            references: request.references,
            reference_exclusions: request.reference_exclusions.clone(),
            keep_properties: kept_properties(&verification),
        };
        let program = lower(project, &resources, &context, schemas, &options)
            .map_err(|e| ServiceError::Code(e.to_string()))?;
        let lang = request.language;
        if request.zip {
            let mut zip = zip::ZipWriter::new(std::io::Cursor::new(Vec::new()));
            let opts = zip::write::SimpleFileOptions::default()
                .compression_method(zip::CompressionMethod::Deflated);
            for (path, text) in project::files(&program, lang) {
                // Every entry stays in the project's folder where the zip is unpacked.
                let entry = format!("{project}/{path}");
                if !ferry_backend::is_plain_relative(&entry) {
                    return Err(ServiceError::Code(format!(
                        "`{entry}` is not a plain relative path for the project's zip"
                    )));
                }
                zip.start_file(entry, opts)
                    .map_err(|e| ServiceError::Internal(format!("zip: {e}")))?;
                zip.write_all(text.as_bytes())
                    .map_err(|e| ServiceError::Internal(format!("zip: {e}")))?;
            }
            let bytes =
                zip.finish().map_err(|e| ServiceError::Internal(format!("zip: {e}")))?.into_inner();
            return Ok(GeneratedCode {
                file_name: format!("{project}-{}.zip", lang.id()),
                content_type: "application/zip",
                bytes,
                code: None,
                report: program.report,
                verification,
            });
        }
        let code = ferry_codegen::emit(&program, lang);
        Ok(GeneratedCode {
            file_name: lang.file_name().to_string(),
            content_type: "text/plain; charset=utf-8",
            bytes: code.clone().into_bytes(),
            code: Some(code),
            report: program.report,
            verification,
        })
    }

    fn context(
        &self,
        version: &LoadedVersion,
        passphrase: Option<&str>,
    ) -> Result<Vec<SourceResource>, ServiceError> {
        let secrets = StackSecrets::for_reading(&version.deployment, passphrase)?;
        Ok(version
            .deployment
            .resources()
            .iter()
            .filter(|r| !r.is_pending_delete())
            .map(|r| source_of(r, &secrets))
            .collect())
    }

    /// Code for an import spec preview's ready resources: the states its commit would write,
    /// with the stack's resources as context.
    pub async fn preview_code(
        &self,
        id: &str,
        request: &CodeRequest,
        passphrase: Option<&str>,
    ) -> Result<GeneratedCode, ServiceError> {
        let key = self.engine.get()?.payload_key;
        let stored = self.store.stacks().preview(id).await?;
        let record = crate::previews::parse_stored(&stored.preview_json)?;
        // What imports, by URN, with the import ID its step shows (`[secret]` when it is the
        // secret itself: the state records none): a spec's ready entries, or a program's
        // import steps that read without an error (a Terraform migration's program is Ferry's
        // own YAML; the code is what a team keeps).
        let kind = record.kind();
        let imported = |s: &&ferry_engine::deploy::Step| {
            matches!(s.op, StepOp::Import | StepOp::ImportReplacement) && s.error.is_none()
        };
        let ready: HashMap<&str, Option<&str>> = record
            .plan
            .steps
            .iter()
            .filter(|s| match kind {
                // ...and the components a migration places them in (module calls), created in
                // state only.
                SourceKind::Program => {
                    imported(s) || s.op == StepOp::Create && s.state_only && s.error.is_none()
                }
                SourceKind::Spec => {
                    s.spec_index.is_some() && s.status.is_some_and(|st| st.is_ready())
                }
            })
            .map(|s| (s.urn.as_str(), s.import_id.as_deref()))
            .collect();
        if kind == SourceKind::Program && !record.plan.steps.iter().any(|s| imported(&s)) {
            return Err(ServiceError::Code("the program imports nothing: its resources are already code; generate code from the stack".into()));
        }
        let sealed = SealedPayload::open(&stored.payload, &key)?;
        let base = self.stacks.version(&stored.stack_id, Some(stored.base_version)).await?;
        let mut context = self.context(&base, passphrase)?;
        // The preview's own providers and parents (entries of the spec) are context too.
        let mut resources: Vec<SourceResource> = sealed
            .states
            .into_iter()
            .filter(|s| ready.contains_key(s.urn.as_str()))
            .map(|s| SourceResource {
                name: ferry_state::urn::name_of(&s.urn).to_string(),
                // A secret import ID is recorded nowhere; the view still says it was one.
                import_id: ready
                    .get(s.urn.as_str())
                    .copied()
                    .flatten()
                    .map(str::to_string)
                    .or_else(|| s.import_id.clone())
                    .or_else(|| s.id.clone()),
                token: s.type_,
                custom: s.custom,
                id: s.id,
                inputs: s.inputs,
                outputs: s.outputs,
                parent: s.parent,
                provider: s.provider,
                protect: false,
                ignore_changes: Vec::new(),
                // A program's `dependsOn` (a spec has none).
                depends_on: s.dependencies,
                urn: s.urn,
                origin: None,
            })
            .collect();
        self.attach_origins(id, &mut resources).await?;
        if resources.is_empty() {
            return Err(ServiceError::Code("no resource in the preview is ready to import".into()));
        }
        let imported: BTreeSet<&str> = resources.iter().map(|r| r.urn.as_str()).collect();
        context.retain(|c| !imported.contains(c.urn.as_str()));
        let project = base.summary.name.split('/').nth(1).unwrap_or("imported").to_string();
        self.generate_verified(&stored.stack_id, &project, resources, context, request, Some(id))
            .await
    }

    /// Where a migration's resources came from: each one's Terraform address (a comment in the
    /// code), for the instances of a `count` or `for_each` resource the resource and key (one
    /// loop in the code), and the references and variables its configuration made.
    async fn attach_origins(
        &self,
        preview_id: &str,
        resources: &mut [SourceResource],
    ) -> Result<(), ServiceError> {
        let Some((plan, _)) = self.store.plans().plan_of_preview(preview_id).await? else {
            return Ok(());
        };
        let Some(prior) = recorded_prior(&self.store, &self.engine, &plan).await? else {
            return Ok(());
        };
        for r in resources {
            if let Some(p) = prior.get(&r.name) {
                let references = p
                    .references
                    .iter()
                    .map(|x| OriginReference {
                        property: x.property.clone(),
                        element: x.element,
                        key: x.key.clone(),
                        target: x.target.clone(),
                        target_property: x.target_property.clone(),
                    })
                    .collect();
                let variables = p
                    .variables
                    .iter()
                    .map(|v| OriginVariable {
                        property: v.property.clone(),
                        name: v.variable.clone(),
                    })
                    .collect();
                let templates = p
                    .templates
                    .iter()
                    .map(|t| OriginTemplate {
                        property: t.property.clone(),
                        key: t.key.clone(),
                        parts: t
                            .parts
                            .iter()
                            .map(|part| match part {
                                ConfiguredPart::Text(text) => OriginPart::Text(text.clone()),
                                ConfiguredPart::Reference { target, target_property } => {
                                    OriginPart::Reference {
                                        target: target.clone(),
                                        target_property: target_property.clone(),
                                    }
                                }
                                ConfiguredPart::Variable { name, text } => {
                                    OriginPart::Variable { name: name.clone(), text: text.clone() }
                                }
                            })
                            .collect(),
                    })
                    .collect();
                r.origin = Some(Origin {
                    tool: "Terraform".into(),
                    address: p.address.clone(),
                    instance: p.instance_of.clone(),
                    references,
                    variables,
                    templates,
                });
            }
        }
        Ok(())
    }

    /// Code for a stack's resources (`urns`, or every custom resource but providers).
    pub async fn stack_code(
        &self,
        id: &str,
        version: Option<i64>,
        urns: &[String],
        request: &CodeRequest,
        passphrase: Option<&str>,
    ) -> Result<GeneratedCode, ServiceError> {
        let v = self.stacks.version(id, version).await?;
        let all = self.context(&v, passphrase)?;
        // Sets, so asking for many resources of a large stack stays linear.
        let wanted: std::collections::HashSet<&str> = urns.iter().map(String::as_str).collect();
        let (resources, context): (Vec<_>, Vec<_>) = all.into_iter().partition(|r| {
            if urns.is_empty() {
                r.custom && !r.token.starts_with("pulumi:providers:")
            } else {
                wanted.contains(r.urn.as_str())
            }
        });
        let found: std::collections::HashSet<&str> =
            resources.iter().map(|r| r.urn.as_str()).collect();
        if let Some(missing) = urns.iter().find(|u| !found.contains(u.as_str())) {
            return Err(ServiceError::ResourceNotFound {
                stack: v.summary.name.clone(),
                urn: missing.clone(),
            });
        }
        if resources.is_empty() {
            return Err(ServiceError::Code("the stack has no resources to write code for".into()));
        }
        let project = v.summary.name.split('/').nth(1).unwrap_or("imported").to_string();
        self.generate_verified(id, &project, resources, context, request, None).await
    }
}

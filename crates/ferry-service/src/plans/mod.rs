//! Plans: an import spec or a YAML program (or both) for a stack, with options, saved as
//! immutable revisions; previews of a revision run as background jobs that report each resource
//! as it finishes and outlive the request that started them; read-only share links.
//!
//! Invalid specs and programs never reach the engine: a revision is checked before it is saved.

pub(crate) mod comments;
mod identify_choices;
pub(crate) mod masking;
mod resolve;
pub(crate) mod terraform;
mod terraform_remote;

use std::collections::BTreeMap;
use std::sync::Arc;

use ferry_engine::progress::{JobEvent, Progress};
use ferry_state::secrets::PassphraseCrypter;
use ferry_store::jobs::{JobKind, NewJob};
use ferry_store::plans::{NewPlan, PlanRevision, PlanShare};
use ferry_types::plans::{PlanInput, PlanOptions, PlanView, RevisionView};
use ferry_types::{PackageTotal, SourceKind};

use crate::access::Caller;
use crate::accounts::Accounts;
use crate::backends::Backends;
use crate::jobs::Jobs;
use crate::jobs::{JobEnd, JobSink, JobView};
use crate::plugin_host::PluginHost;
use crate::previews::programs::{ProgramRequest, ProgramSource};
use crate::previews::Previews;
use crate::shares::ShareLinks;
use crate::stacks::Stacks;
use crate::workflow::Workflow;
use crate::{EngineSlot, PreviewRequest, PreviewSource, ServiceError};

/// Plans: revisions, read-only links, comments, resolutions, Terraform migrations, and each
/// revision's preview as a job. The top of the domains but discovery: it previews through
/// [`Previews`] and moves a plan's state through [`Workflow`], neither of which calls back.
#[derive(Clone)]
pub struct Plans {
    pub(crate) store: ferry_store::Store,
    pub(crate) engine: EngineSlot,
    pub(crate) accounts: Accounts,
    pub(crate) stacks: Stacks,
    pub(crate) backends: Backends,
    pub(crate) previews: Previews,
    pub(crate) workflow: Workflow,
    pub(crate) jobs: Jobs,
    pub(crate) plugins: PluginHost,
    pub(crate) shares: ShareLinks,
}

/// What [`Plans`] is made of, named (ten pieces are too many to pass in order).
pub(crate) struct PlansWiring {
    pub store: ferry_store::Store,
    pub engine: EngineSlot,
    pub accounts: Accounts,
    pub stacks: Stacks,
    pub backends: Backends,
    pub previews: Previews,
    pub workflow: Workflow,
    pub jobs: Jobs,
    pub plugins: PluginHost,
    pub shares: ShareLinks,
}

/// A stored revision's options (written by this service, so they read back; defaults if not).
pub(crate) fn options_of(rev: &PlanRevision) -> PlanOptions {
    rev.options_or_default()
}

/// A stored revision as the API shows it.
pub(crate) fn revision_view(r: PlanRevision) -> RevisionView {
    let options = options_of(&r);
    RevisionView {
        options,
        revision: r.revision,
        created_at: r.created_at,
        spec: r.spec,
        program: r.program,
        previews: r.previews,
    }
}

fn check_input(input: &PlanInput) -> Result<(), ServiceError> {
    if input.spec.as_deref().is_none_or(|s| s.trim().is_empty())
        && input.program.as_deref().is_none_or(|s| s.trim().is_empty())
    {
        return Err(ServiceError::Plan(
            "a plan holds an import spec, a YAML program, or both".into(),
        ));
    }
    if let Some(spec) = input.spec.as_deref().filter(|s| !s.trim().is_empty()) {
        ferry_engine::import_spec::parse_import_spec(spec)?;
    }
    if let Some(program) = input.program.as_deref().filter(|s| !s.trim().is_empty()) {
        ferry_engine::program::parse_program("Pulumi.yaml", program)?;
    }
    Ok(())
}

impl Plans {
    pub(crate) fn new(w: PlansWiring) -> Plans {
        Plans {
            store: w.store,
            engine: w.engine,
            accounts: w.accounts,
            stacks: w.stacks,
            backends: w.backends,
            previews: w.previews,
            workflow: w.workflow,
            jobs: w.jobs,
            plugins: w.plugins,
            shares: w.shares,
        }
    }

    /// A new plan for the stack, with its first revision, written by `author` (checked first:
    /// nothing is saved when the spec or program has problems).
    pub async fn create_plan(
        &self,
        author: &Caller,
        stack_id: &str,
        input: PlanInput,
    ) -> Result<PlanView, ServiceError> {
        self.create_plan_with_prior(author, stack_id, input, None).await
    }

    /// [`Self::create_plan`], keeping what another tool recorded of the resources the plan
    /// imports (sealed with the payload key: it may hold secrets); every preview of the plan
    /// reads them with it as their prior state.
    pub(crate) async fn create_plan_with_prior(
        &self,
        author: &Caller,
        stack_id: &str,
        input: PlanInput,
        prior: Option<&BTreeMap<String, ferry_terraform::PriorState>>,
    ) -> Result<PlanView, ServiceError> {
        let author = author.require_signed_in()?;
        check_input(&input)?;
        let summary = self.stacks.summary(stack_id).await?;
        let title = input
            .title
            .clone()
            .filter(|t| !t.trim().is_empty())
            .unwrap_or_else(|| format!("Import into {}", summary.name));
        let options = serde_json::to_string(&input.options).expect("options serialise");
        let sealed = match prior {
            Some(prior) => {
                let json = serde_json::to_vec(prior).expect("recorded states serialise");
                Some(PassphraseCrypter::from_key(&self.engine.get()?.payload_key).encrypt(&json))
            }
            None => None,
        };
        let new = NewPlan {
            stack_id,
            title: &title,
            author: &author.name,
            spec: input.spec.as_deref(),
            program: input.program.as_deref(),
            options: &options,
            sealed_prior: sealed.as_deref(),
        };
        let plan = self.store.plans().add_plan(new).await?;
        self.workflow.after_event(&plan.id).await;
        self.workflow
            .announce(
                &plan.id,
                ferry_types::webhooks::WebhookEvent::PlanCreated,
                Some(&author.name),
            )
            .await;
        self.plan_view(&plan.id, None, false).await
    }

    /// The plan a preview was run for, if any.
    pub async fn plan_of_preview(&self, preview_id: &str) -> Result<Option<String>, ServiceError> {
        Ok(self.store.plans().plan_of_preview(preview_id).await?.map(|(plan, _)| plan))
    }

    /// Appends a plan's creation to the audit log, for callers the server's layer does not
    /// audit (server functions).
    pub async fn audit_plan_created(
        &self,
        caller: &Caller,
        org: &str,
        plan_id: &str,
        address: &str,
    ) -> Result<(), ServiceError> {
        let object = format!("/plans/{plan_id}");
        let record = crate::accounts::AuditEvent {
            actor: caller.actor(),
            org: Some(org),
            action: "plan.create",
            object: &object,
            address,
            outcome: "ok",
            plan_id: Some(plan_id),
            subject: None,
        };
        self.accounts.audit(record).await
    }

    /// A new plan whose first revision is an example to edit: an import spec or a YAML program
    /// (`kind`) importing one resource of a type the stack already uses.
    pub async fn create_plan_from_example(
        &self,
        author: &Caller,
        stack_id: &str,
        kind: SourceKind,
    ) -> Result<PlanView, ServiceError> {
        let version = self.stacks.version(stack_id, None).await?;
        let type_ = version
            .deployment
            .resources()
            .iter()
            .find(|r| r.is_custom() && !r.is_provider() && !r.is_pending_delete())
            .map(|r| r.type_.clone())
            .unwrap_or_else(|| "random:index/randomInteger:RandomInteger".into());
        // A RandomInteger imports by `<result>,<min>,<max>`; other types need the user's ID.
        let random_integer = type_ == "random:index/randomInteger:RandomInteger";
        let id = if random_integer { "5,1,10" } else { "replace-with-the-resource-id" };
        let project = version.summary.name.split('/').nth(1).unwrap_or("imported").to_string();
        let input = if kind == SourceKind::Program {
            let body =
                if random_integer { "    properties:\n      min: 1\n      max: 10\n" } else { "" };
            PlanInput {
                title: None,
                spec: None,
                program: Some(format!(
                    "name: {project}\nruntime: yaml\n# Each resource with an `import` option adopts an existing one; the preview shows\n# how its inputs compare with what the provider reads back.\nresources:\n  imported:\n    type: {type_}\n{body}    options:\n      import: \"{id}\"\n"
                )),
                options: PlanOptions::default(),
            }
        } else {
            PlanInput {
                title: None,
                spec: Some(format!(
                    "{{\n  // Each entry imports one existing resource: its type token, its name in the program\n  // and the ID its provider knows it by. Ctrl+Space completes types and stack names.\n  \"resources\": [\n    {{\n      \"type\": \"{type_}\",\n      \"name\": \"imported\",\n      \"id\": \"{id}\"\n    }}\n  ]\n}}\n"
                )),
                program: None,
                options: PlanOptions::default(),
            }
        };
        self.create_plan(author, stack_id, input).await
    }

    /// Saves the next revision, written by `author` (checked first).
    pub async fn save_plan(
        &self,
        author: &Caller,
        plan_id: &str,
        input: PlanInput,
    ) -> Result<PlanView, ServiceError> {
        let author = author.require_signed_in()?;
        check_input(&input)?;
        let options = serde_json::to_string(&input.options).expect("options serialise");
        self.store
            .plans()
            .add_plan_revision(
                plan_id,
                &author.name,
                input.spec.as_deref(),
                input.program.as_deref(),
                &options,
            )
            .await?;
        self.workflow.after_event(plan_id).await;
        self.plan_view(plan_id, None, false).await
    }

    /// A revision of the plan (the latest when `None`); `read_only` for someone who may not
    /// edit it, whose view has its secrets masked (`masking.rs`).
    pub async fn plan_view(
        &self,
        plan_id: &str,
        revision: Option<i64>,
        read_only: bool,
    ) -> Result<PlanView, ServiceError> {
        let plan = self.store.plans().plan(plan_id).await?;
        let mut current = revision_view(self.store.plans().plan_revision(plan_id, revision).await?);
        if read_only {
            self.mask_revision(&mut current).await?;
        }
        let origins = current
            .program
            .as_deref()
            .map(ferry_terraform::addresses_in_program)
            .unwrap_or_default();
        let status = Some(self.workflow.plan_status(plan_id).await?);
        Ok(PlanView { plan, current, read_only, origins, status })
    }

    /// The plan as `caller` may see it: its text masked unless they may edit it.
    pub async fn plan_view_for(
        &self,
        caller: &crate::access::Caller,
        plan_id: &str,
        revision: Option<i64>,
    ) -> Result<PlanView, ServiceError> {
        let org = self.accounts.org_of(crate::access::Object::Plan, plan_id).await?;
        self.plan_view(plan_id, revision, !caller.may(&org, crate::access::Role::Planner)).await
    }

    /// The organisation and the plan behind a live read-only link: where its reads are audited,
    /// and whose timeline records them.
    pub async fn share_owner(&self, token: &str) -> Result<(String, String), ServiceError> {
        let share = self.shares.live(token).await?;
        let org = self.accounts.org_of(crate::access::Object::Plan, &share.plan_id).await?;
        Ok((org, share.plan_id))
    }

    /// The plan behind a read-only link.
    pub async fn shared_plan(
        &self,
        token: &str,
        revision: Option<i64>,
    ) -> Result<PlanView, ServiceError> {
        let share = self.shares.live(token).await?;
        let mut view = self.plan_view(&share.plan_id, revision, true).await?;
        // The plan's and previews' IDs are what editing and committing need: a reviewer gets
        // neither (previews are read through the link, by position).
        view.plan.id = String::new();
        view.current.previews = (0..view.current.previews.len()).map(|i| i.to_string()).collect();
        if let Some(status) = &mut view.status {
            status.preview = None;
        }
        Ok(view)
    }

    /// A new read-only link, lasting as long as the organisation's setting says: its token is
    /// in this answer only (the store keeps its hash).
    pub async fn share_plan(
        &self,
        plan_id: &str,
    ) -> Result<ferry_types::plans::NewShareLink, ServiceError> {
        let org = self.accounts.org_of(crate::access::Object::Plan, plan_id).await?;
        let settings = self.store.plans().org_settings(&org).await?;
        if !settings.share_links {
            return Err(ServiceError::Forbidden(format!("organisation `{org}` does not allow read-only links (an administrator can turn them on)")));
        }
        let token = ferry_store::random_id();
        let link = self
            .store
            .plans()
            .add_plan_share(plan_id, &ferry_store::hash_secret(&token), settings.share_link_days)
            .await?;
        Ok(ferry_types::plans::NewShareLink { link, token })
    }

    pub async fn plan_shares(&self, plan_id: &str) -> Result<Vec<PlanShare>, ServiceError> {
        self.store.plans().plan(plan_id).await?;
        Ok(self.store.plans().plan_shares(plan_id).await?)
    }

    /// Revokes the link `link_id` (its ID, never its token).
    pub async fn revoke_plan_share(
        &self,
        plan_id: &str,
        link_id: &str,
    ) -> Result<PlanShare, ServiceError> {
        Ok(self.store.plans().revoke_plan_share(plan_id, link_id).await?)
    }

    /// Starts previewing a revision (the latest when `None`) as a background job (see
    /// `jobs.rs`); the job goes on when the caller leaves. Returns at once.
    /// `passphrase` decrypts the stack's secrets a program's resources hold, for this run only
    /// (it lives in the job's task and is never stored).
    pub async fn start_plan_preview(
        &self,
        plan_id: &str,
        revision: Option<i64>,
        passphrase: Option<String>,
    ) -> Result<JobView, ServiceError> {
        let plan = self.store.plans().plan(plan_id).await?;
        let mut rev = self.store.plans().plan_revision(plan_id, revision).await?;
        let options = crate::plans::options_of(&rev);
        let program = rev.program.take().filter(|p| !p.trim().is_empty());
        let prior = match program {
            Some(_) => {
                crate::previews::code::recorded_prior(&self.store, &self.engine, plan_id).await?
            }
            None => None,
        };
        let (spec, strategy) = (rev.spec.take(), options.strategy);
        // What the job runs, the program or else the spec, parsed once here: its count is the
        // job's total, and the job runs what was parsed. What does not parse fails the job, which
        // says why. Parsing a big program or spec is CPU work, kept off the async workers.
        // Each package's count, for each provider's progress (a migration's state names several).
        let (source, total, packages) =
            tokio::task::spawn_blocking(move || match (program, spec) {
                (Some(text), _) => match ferry_engine::program::parse_program("Pulumi.yaml", &text)
                {
                    Ok(program) => {
                        let total = program.resources.len();
                        let packages =
                            PackageTotal::count(program.resources.iter().map(|r| r.type_.as_str()));
                        let source = ProgramSource::Parsed {
                            file: "Pulumi.yaml".into(),
                            text,
                            program: Arc::new(program),
                        };
                        (
                            Ok(PreviewSource::Program(ProgramRequest {
                                source,
                                config: Default::default(),
                                mapping: None,
                                passphrase,
                                prior,
                            })),
                            total,
                            packages,
                        )
                    }
                    Err(e) => (Err(ServiceError::from(e)), 0, Vec::new()),
                },
                (None, Some(text)) => match ferry_engine::import_spec::parse_import_spec(&text) {
                    Ok(spec) => {
                        let total = spec.file.resources.len();
                        let packages = PackageTotal::count(
                            spec.file.resources.iter().map(|r| r.type_.as_str()),
                        );
                        (Ok(PreviewSource::Spec { text, spec, strategy }), total, packages)
                    }
                    Err(e) => (Err(ServiceError::from(e)), 0, Vec::new()),
                },
                (None, None) => (
                    Err(ServiceError::Plan(
                        "the revision holds neither a spec nor a program".into(),
                    )),
                    0,
                    Vec::new(),
                ),
            })
            .await
            .map_err(|e| ServiceError::Internal(format!("reading the revision stopped: {e}")))?;
        let service = self.clone();
        let stack_id = plan.stack_id.clone();
        let id = ferry_store::random_id();
        let detail = serde_json::to_string(&packages).expect("package totals serialise");
        let new = NewJob {
            id: &id,
            kind: JobKind::Preview,
            stack_id: &plan.stack_id,
            plan: Some((plan_id, rev.revision)),
            total: total as i64,
            detail: Some(&detail),
        };
        self.jobs
            .start_job(new, move |sink: JobSink<JobEvent>, turn| {
                let progress = Progress(sink);
                Box::pin(async move {
                    let request = PreviewRequest {
                        source: source?,
                        scope: options.scope,
                        progress: Some(progress),
                        turn: Some(turn),
                    };
                    let record = service.previews.preview(&stack_id, request).await?;
                    service
                        .store
                        .plans()
                        .add_plan_preview(&rev.plan_id, rev.revision, &record.id)
                        .await?;
                    service.workflow.after_event(&rev.plan_id).await;
                    service
                        .workflow
                        .announce(
                            &rev.plan_id,
                            ferry_types::webhooks::WebhookEvent::PlanPreviewed,
                            None,
                        )
                        .await;
                    Ok(JobEnd {
                        preview_id: Some(record.id.clone()),
                        untouched: record.plan.plan.untouched,
                    })
                })
            })
            .await?;
        self.jobs.get::<JobView>(&id, Some(plan_id)).await
    }
}

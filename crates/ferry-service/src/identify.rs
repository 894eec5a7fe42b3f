//! Identification, the CDK import design's middle step: a program's would-be creates each
//! tried as an import under an ID built from its type's recipe (or typed by a person), proven
//! by the provider's `Read` in a preview that is not kept, run as a job whose progress any
//! follower sees; and a person's choices (import, create, skip) written into the plan's next
//! revision as `import` options.

use std::collections::{BTreeMap, HashMap, HashSet};
use std::sync::Arc;

use ferry_engine::deploy::{
    DeployMode, DiffCause, DiffKind, Identify, Plan, PlanScope, Step, StepOp,
};
use ferry_engine::program::edit::{edit_program_all, ProgramEdit};
use ferry_engine::program::parse_program;
use ferry_engine::progress::{JobEvent, Progress};
use ferry_store::jobs::{JobKind, NewJob, StoredJob};
use ferry_types::identify::{
    IdChoice, IdDifference, IdentificationChoices, IdentificationEvent, IdentificationJob,
    IdentificationRow, IdentificationStatus, Identifications,
};
use ferry_types::plans::{PlanInput, PlanView};
use ferry_types::JobStatus;

use crate::access::Caller;
use crate::jobs::{parse_events, JobEnd, JobShown, JobSink};
use crate::previews::ProgramRun;
use crate::programs::parse_source;
use crate::{Plans, Previews, ProgramRequest, ServiceError};

/// What the identification table shows of a step an identifying preview made.
fn row_of(step: &Step) -> Option<IdentificationRow> {
    let attempt = step.identification.as_ref()?;
    if !matches!(step.op, StepOp::Create | StepOp::Import) {
        return None;
    }
    // A create's diffs are the program against nothing: differences are an import's only.
    let found = if step.op == StepOp::Import { step.diffs.as_slice() } else { &[] };
    let differences: Vec<IdDifference> = found
        .iter()
        .filter(|d| {
            d.kind != DiffKind::None && !matches!(d.cause, DiffCause::Equal | DiffCause::Ignored)
        })
        .map(|d| IdDifference {
            path: d.path.clone(),
            program: d.program.clone(),
            read: d.read.clone(),
        })
        .collect();
    let status = match (step.op, &step.error) {
        (_, Some(_)) => IdentificationStatus::Failed,
        (StepOp::Import, None)
            if !step.changed.is_empty()
                || !step.replace_keys.is_empty()
                || !differences.is_empty() =>
        {
            IdentificationStatus::Differs
        }
        (StepOp::Import, None) => IdentificationStatus::Identified,
        _ => IdentificationStatus::Unidentified,
    };
    let id = match status {
        IdentificationStatus::Identified
        | IdentificationStatus::Differs
        | IdentificationStatus::Failed => step.import_id.clone().or_else(|| step.id.clone()),
        IdentificationStatus::Unidentified => None,
    };
    let mut attempt = attempt.clone();
    attempt.reason = step.error.clone().or(attempt.reason);
    Some(IdentificationRow {
        type_: step.type_.clone(),
        name: step.name.clone(),
        urn: step.urn.clone(),
        id,
        status,
        differences,
        attempt,
        line: step.line,
    })
}

/// The identification table of an identifying preview's plan, in program order.
pub fn rows(plan: &Plan) -> Identifications {
    Identifications::new(plan.steps.iter().filter_map(row_of).collect())
}

/// How callers see an identification job: its table is made of the rows it reported.
impl JobShown for IdentificationJob {
    const KIND: JobKind = JobKind::Identification;
    /// The stream has just given every row.
    const END_WITH_EVENTS: bool = false;
    fn shown(job: StoredJob, events: Vec<String>) -> Result<IdentificationJob, ServiceError> {
        let total = job.total.max(0) as usize;
        let events: Vec<IdentificationEvent> = parse_events(events)?;
        let done = job.status == JobStatus::Done;
        let finished = if done {
            total
        } else {
            events
                .iter()
                .filter(|e| matches!(e, IdentificationEvent::Resource { .. }))
                .count()
                .min(total)
        };
        // A finished job reported each of the program's resources (a program has at least one),
        // so no events means they were not asked for: the table is left out, not empty.
        let identifications =
            (done && !events.is_empty()).then(|| IdentificationJob::rows_of(events));
        Ok(IdentificationJob {
            id: job.id,
            stack_id: job.stack_id,
            status: job.status,
            total,
            finished,
            identifications,
            error: job.error,
        })
    }
}

impl Previews {
    /// Starts identifying the would-be creates of a program against the stack's latest version
    /// as a job (each resource reported as the preview finishes it, then the table's rows). The
    /// preview it runs is not kept and nothing is changed anywhere: only `Read`, `Check` and
    /// `Diff` reach the providers. What can be checked at once is, before the job starts: the
    /// program reads, declares a resource, and the passphrase opens the stack's secrets.
    pub async fn start_identification(
        &self,
        stack_id: &str,
        request: ProgramRequest,
        typed: BTreeMap<String, String>,
    ) -> Result<IdentificationJob, ServiceError> {
        let ProgramRequest { source, config, mapping, passphrase, prior } = request;
        let (file, _, program) = parse_source(source).await?;
        if program.resources.is_empty() {
            return Err(ServiceError::Plan("the program declares no resources to identify".into()));
        }
        self.backends().refresh_from_backend(stack_id).await?;
        let version = self.stacks().version(stack_id, None).await?;
        let secrets = Arc::new(self.secrets_for(&version, passphrase).await?);
        // A program identified is a snippet of what exists: the rest of the stack is left
        // alone, as a plan's program is.
        let run = ProgramRun {
            file,
            config,
            mapping,
            scope: PlanScope::Imports,
            prior,
            identify: Some(Identify { typed }),
        };
        // The program's own resources are its progress (not the stack or default providers a
        // preview adds).
        let own: HashSet<String> =
            program.resources.iter().map(|r| r.logical_name().to_string()).collect();
        let id = ferry_store::random_id();
        let stack = version.summary.id.clone();
        let new = NewJob {
            id: &id,
            kind: JobKind::Identification,
            stack_id: &stack,
            plan: None,
            total: own.len() as i64,
            detail: None,
        };
        let service = self.clone();
        self.jobs()
            .start_job(new, move |sink: JobSink<IdentificationEvent>| {
                // Only the name and type: a failed `Read`'s message may quote the ID it tried,
                // which a secret part makes secret (the row says what it may).
                let report = sink.clone();
                let progress = Progress(Arc::new(move |e: JobEvent| {
                    if own.contains(&e.name) {
                        report(IdentificationEvent::Resource { name: e.name, type_: e.type_ });
                    }
                }));
                Box::pin(async move {
                    let deployed = service
                        .previews()
                        .run_program(
                            &version,
                            &program,
                            &run,
                            &secrets,
                            DeployMode::Preview,
                            Some(progress),
                        )
                        .await?;
                    for row in rows(&deployed.plan).rows {
                        sink(IdentificationEvent::Row(row));
                    }
                    Ok(JobEnd::default())
                })
            })
            .await?;
        self.jobs().get::<IdentificationJob>(&id, None).await
    }
}

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

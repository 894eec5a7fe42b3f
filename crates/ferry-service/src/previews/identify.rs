//! Identification, the CDK import design's middle step: a program's would-be creates each
//! tried as an import under an ID built from its type's recipe (or typed by a person), proven
//! by the provider's `Read` in a preview that is not kept, run as a job whose progress any
//! follower sees. A person's choices of its rows are written into the plan by
//! `plans/identify_choices.rs`.

use std::collections::{BTreeMap, HashSet};
use std::sync::Arc;

use ferry_engine::deploy::{
    DeployMode, DeploymentPlan, DiffCause, DiffKind, Identify, PlanScope, Step, StepOp,
};
use ferry_engine::progress::{JobEvent, Progress};
use ferry_store::jobs::{JobKind, NewJob, StoredJob};
use ferry_types::identify::{
    IdDifference, IdentificationEvent, IdentificationJob, IdentificationRow, IdentificationStatus,
    Identifications,
};
use ferry_types::JobStatus;

use crate::jobs::{parse_events, JobEnd, JobShown, JobSink};
use crate::previews::programs::parse_source;
use crate::previews::ProgramRun;
use crate::{Previews, ProgramRequest, ServiceError};

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
pub fn rows(plan: &DeploymentPlan) -> Identifications {
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
        self.backends.refresh_from_backend(stack_id).await?;
        let version = self.stacks.version(stack_id, None).await?;
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
        self.jobs
            .start_job(new, move |sink: JobSink<IdentificationEvent>, _turn| {
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
        self.jobs.get::<IdentificationJob>(&id, None).await
    }
}

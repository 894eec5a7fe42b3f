//! Background jobs (a plan revision's preview), kept in the store so that any instance serves
//! them: the instance that starts one claims it with a lease it renews while the preview runs,
//! writes its events in batches as they come, and ends it. Followers on any instance read the
//! store, woken by this instance's own writes, by PostgreSQL's notifications from the others, or
//! (SQLite) by polling. A job whose instance died is marked interrupted once its lease runs out,
//! by whichever instance looks first; a restarted single-instance (SQLite) store marks its
//! running jobs interrupted at once.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, Weak};
use std::time::Duration;

use ferry_engine::progress::{Progress, ProgressEvent};
use ferry_store::jobs::StoredJob;
use ferry_store::Dialect;
use serde::Serialize;
use tokio::sync::{broadcast, mpsc, oneshot};

pub use ferry_types::JobStatus;

use crate::{ServiceError, StackService};

/// How long a job's lease lasts unless renewed: the longest a dead instance's job still shows
/// as running. Renewed every third of it.
pub const DEFAULT_LEASE: Duration = Duration::from_secs(15);

/// How often a follower looks at the store without being woken (SQLite has no notifications;
/// in PostgreSQL this only covers notifications lost while reconnecting).
const POLL_SQLITE: Duration = Duration::from_millis(250);
const POLL_POSTGRES: Duration = Duration::from_secs(2);

/// Events written to the store in one transaction at most.
const BATCH: usize = 1000;

/// A preview running (or run) in the background, and every resource it reported.
#[derive(Debug, Clone, Serialize)]
pub struct JobView {
    pub id: String,
    pub plan_id: String,
    pub revision: i64,
    pub status: JobStatus,
    /// Resources the preview covers, and how many have finished.
    pub total: usize,
    pub finished: usize,
    pub events: Vec<ProgressEvent>,
    pub preview_id: Option<String>,
    pub error: Option<String>,
    /// Resources of the stack an imports-scope program leaves as they are (known at the end).
    pub untouched: usize,
}

/// What a follower of a job sees, in order: each event once, then the job when it stopped.
pub enum JobUpdate {
    Event(ProgressEvent),
    End(JobView),
}

fn status_of(stored: &str) -> JobStatus {
    match stored {
        "queued" => JobStatus::Queued,
        "running" => JobStatus::Running,
        "done" => JobStatus::Done,
        "cancelled" => JobStatus::Cancelled,
        "interrupted" => JobStatus::Interrupted,
        _ => JobStatus::Failed,
    }
}

fn view_of(job: StoredJob, events: Vec<ProgressEvent>) -> JobView {
    JobView {
        status: status_of(&job.status),
        id: job.id,
        plan_id: job.plan_id,
        revision: job.revision,
        total: job.total.max(0) as usize,
        finished: job.finished.max(0) as usize,
        events,
        preview_id: job.preview_id,
        error: job.error,
        untouched: job.untouched.max(0) as usize,
    }
}

fn parse_events(texts: Vec<String>) -> Result<Vec<ProgressEvent>, ServiceError> {
    texts.iter().map(|t| serde_json::from_str(t).map_err(|e| ServiceError::Internal(format!("a stored job event is damaged: {e}")))).collect()
}

/// This instance's part in the jobs: its ID, the jobs it runs, and who to wake on a change.
pub struct Jobs {
    instance: String,
    lease: Duration,
    running: Mutex<HashMap<String, tokio::task::AbortHandle>>,
    changed: broadcast::Sender<String>,
    started: std::sync::Once,
}

impl Default for Jobs {
    fn default() -> Self {
        Jobs::with_lease(DEFAULT_LEASE)
    }
}

impl Jobs {
    pub fn with_lease(lease: Duration) -> Jobs {
        Jobs {
            instance: ferry_store::random_id(),
            lease,
            running: Mutex::new(HashMap::new()),
            changed: broadcast::channel(1024).0,
            started: std::sync::Once::new(),
        }
    }

    fn lease_until(&self) -> String {
        ferry_store::clock::in_millis(self.lease.as_millis() as i64)
    }
}

/// A message to a job's event writer.
enum ToWriter {
    Event(ProgressEvent),
    /// Everything sent before is written; answer when it is.
    Flush(oneshot::Sender<()>),
}

impl StackService {
    /// This service's jobs with leases of `lease` (tests shorten it; `ferry serve` reads
    /// `FERRY_JOB_LEASE_SECONDS`).
    pub fn with_job_lease(mut self, lease: Duration) -> StackService {
        self.jobs = Jobs::with_lease(lease);
        self
    }

    /// Puts right what a previous run left: in SQLite (one instance) every job still queued
    /// or running was this store's last process's, so it is interrupted now; in PostgreSQL
    /// only those whose lease ran out are. Starts the lease renewal and, in PostgreSQL, the
    /// listener for other instances' changes. `ferry serve` calls it on start.
    pub async fn recover_jobs(self: &Arc<Self>) -> Result<Vec<String>, ServiceError> {
        let all = self.store.dialect() == Dialect::Sqlite;
        let interrupted = self.store.interrupt_jobs(all).await?;
        self.start_job_upkeep();
        Ok(interrupted)
    }

    /// The background upkeep, once per service: lease renewal (which also stops a job cancelled
    /// from another instance), interrupting jobs whose lease ran out, and PostgreSQL's
    /// notifications. It holds the service weakly, and stops when the service is dropped.
    fn start_job_upkeep(self: &Arc<Self>) {
        self.jobs.started.call_once(|| {
            let weak = Arc::downgrade(self);
            let every = self.jobs.lease / 3;
            tokio::spawn(async move {
                let mut tick = tokio::time::interval(every);
                tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
                loop {
                    tick.tick().await;
                    let Some(service) = weak.upgrade() else { return };
                    if let Err(e) = service.job_upkeep().await {
                        tracing::warn!(error = %e, "job upkeep failed; retrying");
                    }
                }
            });
            let weak: Weak<StackService> = Arc::downgrade(self);
            let changed = self.jobs.changed.clone();
            tokio::spawn(async move {
                let Some(service) = weak.upgrade() else { return };
                let notifications = service.store.job_notifications().await;
                drop(service);
                let mut notifications = match notifications {
                    Ok(Some(n)) => n,
                    Ok(None) => return,
                    Err(e) => return tracing::warn!(error = %e, "cannot listen for other instances' job changes; followers poll"),
                };
                loop {
                    match notifications.next().await {
                        Ok(id) => {
                            if weak.strong_count() == 0 {
                                return;
                            }
                            let _ = changed.send(id);
                        }
                        Err(e) => {
                            tracing::warn!(error = %e, "job notifications stopped; followers poll");
                            return;
                        }
                    }
                }
            });
        });
    }

    async fn job_upkeep(&self) -> Result<(), ServiceError> {
        let until = self.jobs.lease_until();
        let mine: Vec<(String, tokio::task::AbortHandle)> =
            self.jobs.running.lock().expect("jobs lock").iter().map(|(id, handle)| (id.clone(), handle.clone())).collect();
        if !mine.is_empty() {
            self.store.renew_job_leases(&self.jobs.instance, &until).await?;
        }
        for (id, handle) in mine {
            // Cancelled on another instance (or interrupted): stop running it here.
            if !self.store.job(&id).await?.is_live() {
                handle.abort();
            }
        }
        for id in self.store.interrupt_jobs(false).await? {
            let _ = self.jobs.changed.send(id);
        }
        Ok(())
    }

    /// Queues a preview of the plan revision as a job, claims it for this instance and runs
    /// it in the background (it goes on when the caller leaves); returns at once.
    pub(crate) async fn start_job(
        self: &Arc<Self>,
        plan_id: &str,
        revision: i64,
        total: usize,
        run: impl FnOnce(Progress) -> futures_util::future::BoxFuture<'static, Result<(Option<String>, usize), ServiceError>> + Send + 'static,
    ) -> Result<JobView, ServiceError> {
        self.start_job_upkeep();
        let id = ferry_store::random_id();
        self.store.add_job(&id, plan_id, revision, total as i64).await?;
        if !self.store.claim_job(&id, &self.jobs.instance, &self.jobs.lease_until()).await? {
            return self.job(plan_id, &id).await;
        }

        // Events go to the store in batches, as fast as it takes them, in the order reported.
        let (to_writer, mut inbox) = mpsc::unbounded_channel::<ToWriter>();
        let writer = {
            let service = self.clone();
            let id = id.clone();
            tokio::spawn(async move {
                let mut seq = 0i64;
                let mut failed = None;
                while let Some(first) = inbox.recv().await {
                    let mut batch = Vec::new();
                    let mut flushes = Vec::new();
                    let mut next = Some(first);
                    while let Some(message) = next.take() {
                        match message {
                            ToWriter::Event(e) => batch.push(serde_json::to_string(&e).expect("events serialise")),
                            ToWriter::Flush(done) => flushes.push(done),
                        }
                        if batch.len() < BATCH {
                            next = inbox.try_recv().ok();
                        }
                    }
                    if !batch.is_empty() && failed.is_none() {
                        match service.store.add_job_events(&id, seq, &batch, total as i64).await {
                            Ok(_) => {
                                seq += batch.len() as i64;
                                let _ = service.jobs.changed.send(id.clone());
                            }
                            Err(e) => failed = Some(e),
                        }
                    }
                    for done in flushes {
                        let _ = done.send(());
                    }
                }
                failed
            })
        };
        let sender = to_writer.clone();
        let progress = Progress(Arc::new(move |event: ProgressEvent| {
            let _ = sender.send(ToWriter::Event(event));
        }));

        let preview = tokio::spawn(run(progress));
        self.jobs.running.lock().expect("jobs lock").insert(id.clone(), preview.abort_handle());
        let service = self.clone();
        let job_id = id.clone();
        tokio::spawn(async move {
            let outcome = preview.await;
            let (flushed, wait) = oneshot::channel();
            let _ = to_writer.send(ToWriter::Flush(flushed));
            let _ = wait.await;
            drop(to_writer);
            let write_error = writer.await.ok().flatten();
            let ended = match (outcome, write_error) {
                (_, Some(e)) => service.store.end_job(&job_id, "failed", None, 0, Some(&format!("its progress could not be stored: {e}"))).await,
                (Ok(Ok((preview_id, untouched))), None) => service.store.end_job(&job_id, "done", preview_id.as_deref(), untouched as i64, None).await,
                (Ok(Err(e)), None) => service.store.end_job(&job_id, "failed", None, 0, Some(&e.to_string())).await,
                // Aborted: it was cancelled (or interrupted), which the store already says.
                (Err(e), None) if e.is_cancelled() => Ok(false),
                (Err(e), None) => service.store.end_job(&job_id, "failed", None, 0, Some(&format!("the preview stopped unexpectedly: {e}"))).await,
            };
            if let Err(e) = ended {
                tracing::error!(job = %job_id, error = %e, "cannot record the end of a job; it will show interrupted when its lease runs out");
            }
            service.jobs.running.lock().expect("jobs lock").remove(&job_id);
            let _ = service.jobs.changed.send(job_id);
        });
        self.job(plan_id, &id).await
    }

    /// The job with every event it reported. A job whose lease ran out is marked interrupted
    /// here, by the first instance that looks.
    pub async fn job(&self, plan_id: &str, job_id: &str) -> Result<JobView, ServiceError> {
        let stored = self.live_job(plan_id, job_id).await?;
        let events = parse_events(self.store.job_events(job_id, 0).await?)?;
        Ok(view_of(stored, events))
    }

    async fn live_job(&self, plan_id: &str, job_id: &str) -> Result<StoredJob, ServiceError> {
        let mut stored = match self.store.job(job_id).await {
            Ok(j) if j.plan_id == plan_id => j,
            Ok(_) | Err(ferry_store::StoreError::JobNotFound(_)) => return Err(ServiceError::JobNotFound(job_id.to_string())),
            Err(e) => return Err(e.into()),
        };
        let expired = stored.status == "running" && stored.lease_until.as_deref().is_some_and(|until| until < ferry_store::clock::now().as_str());
        if expired {
            for id in self.store.interrupt_jobs(false).await? {
                let _ = self.jobs.changed.send(id);
            }
            stored = self.store.job(job_id).await?;
        }
        Ok(stored)
    }

    /// The plan's jobs, newest first (the latest 50), without their events.
    pub async fn plan_jobs(&self, plan_id: &str) -> Result<Vec<JobView>, ServiceError> {
        Ok(self.store.plan_jobs(plan_id, 50).await?.into_iter().map(|j| view_of(j, Vec::new())).collect())
    }

    /// Stops a job, on whichever instance runs it; what it reported so far stays.
    pub async fn cancel_job(&self, plan_id: &str, job_id: &str) -> Result<JobView, ServiceError> {
        self.live_job(plan_id, job_id).await?;
        self.store.cancel_job(job_id).await?;
        if let Some(handle) = self.jobs.running.lock().expect("jobs lock").get(job_id) {
            handle.abort();
        }
        let _ = self.jobs.changed.send(job_id.to_string());
        self.job(plan_id, job_id).await
    }

    /// Follows a job: every event from the first, then the job once it stopped. Works for a
    /// job any instance runs.
    pub async fn follow_job(
        self: &Arc<Self>,
        plan_id: &str,
        job_id: &str,
    ) -> Result<impl futures_util::Stream<Item = JobUpdate> + Send + 'static, ServiceError> {
        self.live_job(plan_id, job_id).await?;
        self.start_job_upkeep();
        let poll = if self.store.dialect() == Dialect::Postgres { POLL_POSTGRES } else { POLL_SQLITE };
        let state = (self.clone(), plan_id.to_string(), job_id.to_string(), self.jobs.changed.subscribe(), 0i64, std::collections::VecDeque::new(), false);
        Ok(futures_util::stream::unfold(state, move |(service, plan_id, job_id, mut changed, mut sent, mut pending, ended)| async move {
            if ended {
                return None;
            }
            loop {
                if let Some(event) = pending.pop_front() {
                    return Some((JobUpdate::Event(event), (service, plan_id, job_id, changed, sent, pending, false)));
                }
                // Read the job before its events: when it has stopped, every event is stored.
                let stored = service.live_job(&plan_id, &job_id).await.ok()?;
                let fresh = parse_events(service.store.job_events(&job_id, sent).await.ok()?).ok()?;
                if !fresh.is_empty() {
                    sent += fresh.len() as i64;
                    pending.extend(fresh);
                    continue;
                }
                if !stored.is_live() {
                    let view = service.job(&plan_id, &job_id).await.ok()?;
                    return Some((JobUpdate::End(view), (service, plan_id, job_id, changed, sent, pending, true)));
                }
                let deadline = tokio::time::sleep(poll);
                tokio::pin!(deadline);
                loop {
                    tokio::select! {
                        _ = &mut deadline => break,
                        got = changed.recv() => match got {
                            Ok(id) if id == job_id => break,
                            Ok(_) => continue,
                            Err(broadcast::error::RecvError::Lagged(_)) => break,
                            Err(broadcast::error::RecvError::Closed) => return None,
                        },
                    }
                }
            }
        }))
    }
}

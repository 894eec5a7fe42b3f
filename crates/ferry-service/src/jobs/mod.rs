//! Background jobs (a plan revision's preview, a stack's discovery), kept in the store so that
//! any instance serves them: the instance that starts one claims it with a lease it renews while the preview runs,
//! writes its events in batches as they come, and ends it. Followers on any instance read the
//! store, woken by this instance's own writes, by PostgreSQL's notifications from the others, or
//! (SQLite) by polling. A job whose instance died is marked interrupted once its lease runs out,
//! by whichever instance looks first; a restarted single-instance (SQLite) store marks its
//! running jobs interrupted at once.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, Weak};
use std::time::Duration;

use ferry_store::Store;

use ferry_engine::progress::JobEvent;
use ferry_store::jobs::{JobKind, NewJob, StoredJob};
use ferry_store::Dialect;
use futures_util::future::BoxFuture;
use serde::Serialize;
use tokio::sync::{broadcast, mpsc, oneshot};

pub use ferry_types::{JobStatus, JobView};

use crate::ServiceError;

/// How long a job's lease lasts unless renewed: the longest a dead instance's job still shows
/// as running. Renewed every third of it.
pub const DEFAULT_LEASE: Duration = Duration::from_secs(15);

/// How often a follower looks at the store without being woken (SQLite has no notifications;
/// in PostgreSQL this only covers notifications lost while reconnecting).
const POLL_SQLITE: Duration = Duration::from_millis(250);
const POLL_POSTGRES: Duration = Duration::from_secs(2);

/// Events written to the store in one transaction at most.
const BATCH: usize = 1000;

/// How long the writer gathers events after the first of a batch before it writes them. Written
/// as fast as the store took them, a 10,000-import preview's events went in over a thousand
/// transactions, each waking every follower for two queries: the job cost the server a second
/// of CPU more than the same preview through the API (`perf`, 2026-11-27: the SQLite threads'
/// context switches were a fifth of the server's samples), on the cores the preview runs on.
/// Followers see progress ten times a second.
const GATHER: Duration = Duration::from_millis(100);

/// What a follower of a job sees, in order, as JSON: each event once, then the whole job (its
/// view) once it stopped. A job that waited its turn (queued) is announced when it starts,
/// before its first event.
pub enum JobUpdate {
    Started,
    Event(String),
    End(String),
}

/// A turn to run: one of this instance's `concurrent_runs` permits, given back when its last
/// clone is dropped. Each run holds one: a job from when it starts (it waits queued for it),
/// and a preview asked for directly while it runs and stores its results. A job's run is
/// given its job's turn, and a preview it runs goes in that turn rather than waiting for
/// another (which, with every turn held by jobs, would never come).
#[derive(Clone)]
pub struct Turn {
    /// Held, never read: dropping the last clone gives the permit back.
    _permit: Arc<tokio::sync::OwnedSemaphorePermit>,
}

/// Where a running job's events go: called once per event, from any task; it never waits.
pub(crate) type JobSink<E> = Arc<dyn Fn(E) + Send + Sync>;

/// What a job's run ends with.
#[derive(Default)]
pub(crate) struct JobEnd {
    pub preview_id: Option<String>,
    pub untouched: usize,
}

/// How callers see a kind of job: a plan's preview ([`JobView`]) or a discovery
/// ([`ferry_types::discovery::DiscoveryView`]). [`Jobs::get`], [`Jobs::follow_job`] and
/// [`Jobs::cancel`] serve every kind through it.
pub trait JobShown: Serialize + Sized + Send + 'static {
    const KIND: JobKind;
    /// Whether a follower's last message carries every event again. A preview's does not: the
    /// stream has just given each of them (10,000 for a preview of as many imports; sent again,
    /// they doubled what it carried). A discovery's does, as its count of results.
    const END_WITH_EVENTS: bool;
    /// The view of `job` with `events`, the JSON texts it reported.
    fn shown(job: StoredJob, events: Vec<String>) -> Result<Self, ServiceError>;
}

impl JobShown for JobView {
    const KIND: JobKind = JobKind::Preview;
    const END_WITH_EVENTS: bool = false;
    fn shown(job: StoredJob, events: Vec<String>) -> Result<JobView, ServiceError> {
        Ok(view_of(job, parse_events(events)?))
    }
}

/// Whether `job` is of kind `V` and, when `plan` is given, one of that plan's.
fn belongs<V: JobShown>(plan: Option<&str>) -> impl Fn(&StoredJob) -> bool + '_ {
    move |j| j.kind == V::KIND && plan.is_none_or(|p| j.plan_id.as_deref() == Some(p))
}

fn view_of(job: StoredJob, events: Vec<JobEvent>) -> JobView {
    JobView {
        status: job.status,
        id: job.id,
        plan_id: job.plan_id.unwrap_or_default(),
        revision: job.revision.unwrap_or_default(),
        total: job.total.max(0) as usize,
        finished: job.finished.max(0) as usize,
        events,
        preview_id: job.preview_id,
        error: job.error,
        untouched: job.untouched.max(0) as usize,
        // A job started before packages were counted has none.
        packages: job
            .detail
            .as_deref()
            .and_then(|d| serde_json::from_str(d).ok())
            .unwrap_or_default(),
    }
}

pub(crate) fn parse_events<E: serde::de::DeserializeOwned>(
    texts: Vec<String>,
) -> Result<Vec<E>, ServiceError> {
    texts
        .iter()
        .map(|t| {
            serde_json::from_str(t)
                .map_err(|e| ServiceError::Internal(format!("a stored job event is damaged: {e}")))
        })
        .collect()
}

/// This instance's part in the jobs: its ID, the jobs it runs, and who to wake on a change.
struct LiveJobs {
    instance: String,
    lease: Duration,
    /// How long finished jobs, their events and ended sessions are kept.
    retention: Duration,
    /// When the upkeep last removed what outlived `retention`.
    last_forgotten: Mutex<Option<std::time::Instant>>,
    /// The jobs this instance runs or holds queued, waiting for a turn.
    running: Mutex<HashMap<String, tokio::task::AbortHandle>>,
    /// One permit per run (a job, or a preview asked for directly) that may go at once on
    /// this instance.
    turns: Arc<tokio::sync::Semaphore>,
    changed: broadcast::Sender<String>,
    started: std::sync::Once,
}

/// How many runs go at once unless told (`--concurrent-runs`): the cores this process may use.
/// One run's engine keeps every core busy on its own when it has work for them.
pub fn default_concurrent_runs() -> usize {
    available_cores()
}

/// The cores this process may use (1 when the system cannot say): the default number of runs
/// at once, and the engine's threads.
pub(crate) fn available_cores() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get())
}

/// How long finished jobs, their events and ended sessions are kept by default
/// (`--retain-jobs-days`).
pub const DEFAULT_RETENTION: Duration = Duration::from_secs(30 * 86_400);
/// How often the upkeep removes what outlived the retention: often enough that nothing stays
/// much longer than asked, seldom enough to cost nothing.
const FORGET_EVERY: Duration = Duration::from_secs(600);

/// Background jobs (plan previews, discoveries, identifications): start, follow, cancel,
/// recover. Beneath every domain that runs one: a job is told what to run, never who asked.
#[derive(Clone)]
pub struct Jobs {
    store: Store,
    live: Arc<LiveJobs>,
}

impl Jobs {
    /// Jobs kept in `store`, leased for `lease`, kept `retention` after they end; at most
    /// `concurrent_runs` runs go at once.
    pub(crate) fn new(
        store: Store,
        lease: Duration,
        retention: Duration,
        concurrent_runs: usize,
    ) -> Jobs {
        let live = LiveJobs {
            instance: ferry_store::random_id(),
            lease,
            retention,
            last_forgotten: Mutex::new(None),
            running: Mutex::new(HashMap::new()),
            turns: Arc::new(tokio::sync::Semaphore::new(concurrent_runs.max(1))),
            changed: broadcast::channel(1024).0,
            started: std::sync::Once::new(),
        };
        Jobs { store, live: Arc::new(live) }
    }

    /// The next free turn to run, waiting for one (in the order asked) when all are held.
    pub(crate) async fn turn(&self) -> Turn {
        Turn {
            _permit: Arc::new(self.live.turns.clone().acquire_owned().await.expect("never closed")),
        }
    }

    /// A free turn now, if there is one.
    fn try_turn(&self) -> Option<Turn> {
        let permit = self.live.turns.clone().try_acquire_owned().ok()?;
        Some(Turn { _permit: Arc::new(permit) })
    }

    /// Starts the queued job `id` this instance holds; false when it is not queued any more.
    async fn claim(&self, id: &str) -> Result<bool, ServiceError> {
        Ok(self.store.jobs().claim_job(id, &self.live.instance, &self.lease_until()).await?)
    }

    /// This instance's ID, as jobs and backend locks record their holder.
    pub(crate) fn instance(&self) -> &str {
        &self.live.instance
    }

    /// When a lease taken or renewed now runs out.
    pub(crate) fn lease_until(&self) -> String {
        self.store.clock().in_millis(self.live.lease.as_millis() as i64)
    }
}

/// A message to a job's event writer.
enum ToWriter {
    /// An event, as JSON.
    Event(String),
    /// Everything sent before is written; answer when it is.
    Flush(oneshot::Sender<()>),
}

impl Jobs {
    /// Puts right what a previous run left: with `all` (SQLite: one instance) every job still
    /// queued or running was this store's last process's, so it is interrupted now; otherwise
    /// (PostgreSQL) only those whose lease ran out are. Starts the lease renewal and, in
    /// PostgreSQL, the listener for other instances' changes ([`crate::Ferry::recover`]).
    pub(crate) async fn recover_jobs(&self, all: bool) -> Result<Vec<String>, ServiceError> {
        let interrupted = self.store.jobs().interrupt_jobs(all).await?;
        self.start_job_upkeep();
        Ok(interrupted)
    }

    /// The background upkeep, once per service: lease renewal (which also stops a job cancelled
    /// from another instance), interrupting jobs whose lease ran out, and PostgreSQL's
    /// notifications. The tasks hold this instance's jobs weakly, and stop once the service is
    /// dropped.
    fn start_job_upkeep(&self) {
        self.live.started.call_once(|| {
            let weak: Weak<LiveJobs> = Arc::downgrade(&self.live);
            let store = self.store.clone();
            crate::every(weak, self.live.lease / 3, "job upkeep", move |live| {
                let jobs = Jobs { store: store.clone(), live };
                Box::pin(async move { jobs.job_upkeep().await })
            });
            let weak: Weak<LiveJobs> = Arc::downgrade(&self.live);
            let changed = self.live.changed.clone();
            let store = self.store.clone();
            tokio::spawn(async move {
                let notifications = store.jobs().job_notifications().await;
                drop(store);
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
        let until = self.lease_until();
        let mine: Vec<(String, tokio::task::AbortHandle)> = self
            .live
            .running
            .lock()
            .expect("jobs lock")
            .iter()
            .map(|(id, handle)| (id.clone(), handle.clone()))
            .collect();
        if !mine.is_empty() {
            self.store.jobs().renew_job_leases(&self.live.instance, &until).await?;
        }
        for (id, handle) in mine {
            // Cancelled on another instance (or interrupted): stop running it here.
            if !self.store.jobs().job(&id).await?.is_live() {
                handle.abort();
            }
        }
        for id in self.store.jobs().interrupt_jobs(false).await? {
            let _ = self.live.changed.send(id);
        }
        // This instance's backend locks share its lease: kept alive with its jobs (dead
        // instances' are removed by the service's upkeep, `Ferry::recover`).
        self.store.stacks().renew_backend_locks(&self.live.instance, &until).await?;
        let due = self
            .live
            .last_forgotten
            .lock()
            .expect("jobs lock")
            .is_none_or(|at| at.elapsed() >= FORGET_EVERY);
        if due {
            self.forget_finished().await?;
        }
        Ok(())
    }

    /// Removes the jobs that finished longer ago than the retention, with their events, and
    /// the sessions and sign-in links that ended that long ago; how many jobs went.
    pub async fn forget_finished(&self) -> Result<u64, ServiceError> {
        *self.live.last_forgotten.lock().expect("jobs lock") = Some(std::time::Instant::now());
        let before = self.store.clock().in_seconds(-(self.live.retention.as_secs() as i64));
        let forgotten = self.store.jobs().forget_finished(&before).await?;
        if forgotten > 0 {
            tracing::info!(jobs = forgotten, "removed finished jobs past their retention");
        }
        Ok(forgotten)
    }

    /// Queues a job, held by this instance, and runs it in the background when its [`Turn`]
    /// comes (it goes on when the caller leaves); returns at once. At most the service's
    /// `concurrent_runs` go at a time: each holds its providers' answers and its results in
    /// memory, and more at once than there are cores only share the same cores more thinly.
    /// One started at once shows running when this returns; one that waits shows queued, and
    /// its followers hear when it starts. `run` gets the sink its events go to and the turn.
    pub(crate) async fn start_job<E: Serialize + Send + 'static>(
        &self,
        new: NewJob<'_>,
        run: impl FnOnce(JobSink<E>, Turn) -> BoxFuture<'static, Result<JobEnd, ServiceError>>
            + Send
            + 'static,
    ) -> Result<StoredJob, ServiceError> {
        self.start_job_upkeep();
        let id = new.id.to_string();
        let total = new.total;
        self.store.jobs().add_job(new, &self.live.instance, &self.lease_until()).await?;
        let turn_now = match self.try_turn() {
            Some(turn) => {
                if !self.claim(&id).await? {
                    return Ok(self.store.jobs().job(&id).await?);
                }
                Some(turn)
            }
            None => None,
        };

        // Events go to the store in batches (gathered for up to GATHER), in the order reported.
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
                    let gathered = tokio::time::Instant::now() + GATHER;
                    let mut next = Some(first);
                    while let Some(message) = next.take() {
                        match message {
                            ToWriter::Event(e) => batch.push(e),
                            // A flush is waited for (the job's end): written at once.
                            ToWriter::Flush(done) => {
                                flushes.push(done);
                                break;
                            }
                        }
                        if batch.len() < BATCH {
                            next = tokio::time::timeout_at(gathered, inbox.recv())
                                .await
                                .ok()
                                .flatten();
                        }
                    }
                    if !batch.is_empty() && failed.is_none() {
                        match service.store.jobs().add_job_events(&id, seq, &batch, total).await {
                            Ok(_) => {
                                seq += batch.len() as i64;
                                let _ = service.live.changed.send(id.clone());
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
        let sink: JobSink<E> = Arc::new(move |event: E| {
            let _ = sender
                .send(ToWriter::Event(serde_json::to_string(&event).expect("events serialise")));
        });

        let task = {
            let jobs = self.clone();
            let id = id.clone();
            tokio::spawn(async move {
                // The turn is held until the run ends (or is aborted), then it is the next
                // waiting run's (the semaphore is fair: in the order they asked).
                let turn = match turn_now {
                    Some(turn) => turn,
                    None => {
                        let turn = jobs.turn().await;
                        match jobs.claim(&id).await {
                            Ok(true) => {
                                let _ = jobs.live.changed.send(id);
                            }
                            // Cancelled (or interrupted) while it waited: the store says so.
                            Ok(false) => return None,
                            Err(e) => return Some(Err(e)),
                        }
                        turn
                    }
                };
                Some(run(sink, turn.clone()).await)
            })
        };
        self.live.running.lock().expect("jobs lock").insert(id.clone(), task.abort_handle());
        let service = self.clone();
        let job_id = id.clone();
        tokio::spawn(async move {
            let outcome = task.await;
            let (flushed, wait) = oneshot::channel();
            let _ = to_writer.send(ToWriter::Flush(flushed));
            let _ = wait.await;
            drop(to_writer);
            let write_error = writer.await.ok().flatten();
            let ended = match (outcome, write_error) {
                (_, Some(e)) => {
                    service
                        .store
                        .jobs()
                        .end_job(
                            &job_id,
                            JobStatus::Failed,
                            None,
                            0,
                            Some(&format!("its progress could not be stored: {e}")),
                        )
                        .await
                }
                // Never started: cancelled or interrupted while it waited.
                (Ok(None), None) => Ok(false),
                (Ok(Some(Ok(end))), None) => {
                    service
                        .store
                        .jobs()
                        .end_job(
                            &job_id,
                            JobStatus::Done,
                            end.preview_id.as_deref(),
                            end.untouched as i64,
                            None,
                        )
                        .await
                }
                (Ok(Some(Err(e))), None) => {
                    service
                        .store
                        .jobs()
                        .end_job(&job_id, JobStatus::Failed, None, 0, Some(&e.to_string()))
                        .await
                }
                // Aborted: it was cancelled (or interrupted), which the store already says.
                (Err(e), None) if e.is_cancelled() => Ok(false),
                (Err(e), None) => {
                    service
                        .store
                        .jobs()
                        .end_job(
                            &job_id,
                            JobStatus::Failed,
                            None,
                            0,
                            Some(&format!("the job stopped unexpectedly: {e}")),
                        )
                        .await
                }
            };
            if let Err(e) = ended {
                tracing::error!(job = %job_id, error = %e, "cannot record the end of a job; it will show interrupted when its lease runs out");
            }
            service.live.running.lock().expect("jobs lock").remove(&job_id);
            let _ = service.live.changed.send(job_id);
        });
        Ok(self.store.jobs().job(&id).await?)
    }

    /// The job `id` of kind `V` (of `plan`, when given) with every event it reported.
    pub async fn get<V: JobShown>(&self, id: &str, plan: Option<&str>) -> Result<V, ServiceError> {
        let stored = self.live_job(id, belongs::<V>(plan)).await?;
        V::shown(stored, self.store.jobs().job_events(id, 0).await?)
    }

    /// The job as [`Jobs::get`] gives it, without its events (a page that follows the job
    /// replays them; one whose preview is stored shows that).
    pub async fn status<V: JobShown>(
        &self,
        id: &str,
        plan: Option<&str>,
    ) -> Result<V, ServiceError> {
        V::shown(self.live_job(id, belongs::<V>(plan)).await?, Vec::new())
    }

    /// The job `job_id` if `belongs` says it is the one asked for. A job whose lease ran out is
    /// marked interrupted here, by the first instance that looks.
    async fn live_job(
        &self,
        job_id: &str,
        belongs: impl Fn(&StoredJob) -> bool,
    ) -> Result<StoredJob, ServiceError> {
        let mut stored = match self.store.jobs().job(job_id).await {
            Ok(j) if belongs(&j) => j,
            Ok(_) | Err(ferry_store::StoreError::JobNotFound(_)) => {
                return Err(ServiceError::JobNotFound(job_id.to_string()))
            }
            Err(e) => return Err(e.into()),
        };
        let expired = stored.is_live()
            && stored
                .lease_until
                .as_deref()
                .is_some_and(|until| until < self.store.clock().now().as_str());
        if expired {
            for id in self.store.jobs().interrupt_jobs(false).await? {
                let _ = self.live.changed.send(id);
            }
            stored = self.store.jobs().job(job_id).await?;
        }
        Ok(stored)
    }

    /// The plan's jobs, newest first (the latest 50), without their events.
    pub async fn plan_jobs(&self, plan_id: &str) -> Result<Vec<JobView>, ServiceError> {
        Ok(self
            .store
            .jobs()
            .plan_jobs(plan_id, 50)
            .await?
            .into_iter()
            .map(|j| view_of(j, Vec::new()))
            .collect())
    }

    /// Stops the job `id` of kind `V` (of `plan`, when given), on whichever instance runs it;
    /// what it reported so far stays.
    pub async fn cancel<V: JobShown>(
        &self,
        id: &str,
        plan: Option<&str>,
    ) -> Result<V, ServiceError> {
        self.live_job(id, belongs::<V>(plan)).await?;
        self.stop_job(id).await?;
        self.get(id, plan).await
    }

    /// Stops a job on whichever instance runs it (at once when it is this one).
    async fn stop_job(&self, job_id: &str) -> Result<(), ServiceError> {
        self.store.jobs().cancel_job(job_id).await?;
        if let Some(handle) = self.live.running.lock().expect("jobs lock").get(job_id) {
            handle.abort();
        }
        let _ = self.live.changed.send(job_id.to_string());
        Ok(())
    }

    /// Follows the job `id` of kind `V` (of `plan`, when given), whichever instance runs it:
    /// every event (JSON) from the first, then the job's view once it stopped, made from the
    /// row the follower has just read; [`JobUpdate::Started`] first when it was seen waiting.
    pub async fn follow_job<V: JobShown>(
        &self,
        id: &str,
        plan: Option<&str>,
    ) -> Result<impl futures_util::Stream<Item = JobUpdate> + Send + 'static, ServiceError> {
        self.live_job(id, belongs::<V>(plan)).await?;
        self.start_job_upkeep();
        let poll =
            if self.store.dialect() == Dialect::Postgres { POLL_POSTGRES } else { POLL_SQLITE };
        let state = (
            self.clone(),
            id.to_string(),
            self.live.changed.subscribe(),
            0i64,
            std::collections::VecDeque::new(),
            false,
            false,
        );
        Ok(futures_util::stream::unfold(
            state,
            move |(service, job_id, mut changed, mut sent, mut pending, ended, mut waiting)| {
                async move {
                    if ended {
                        return None;
                    }
                    loop {
                        if let Some(event) = pending.pop_front() {
                            return Some((
                                JobUpdate::Event(event),
                                (service, job_id, changed, sent, pending, false, waiting),
                            ));
                        }
                        // Read the job before its events: when it has stopped, every event is stored.
                        let stored = match service.live_job(&job_id, |_| true).await {
                            Ok(j) => j,
                            Err(e) => {
                                tracing::warn!(job = %job_id, error = %e, "cannot follow the job");
                                return None;
                            }
                        };
                        // A job seen waiting its turn: its followers hear when it starts
                        // (before its events, even when it has ended since), and never of a
                        // start that did not happen (it ended while it waited).
                        match stored.status {
                            JobStatus::Queued => waiting = true,
                            _ if waiting && stored.started_at.is_some() => {
                                return Some((
                                    JobUpdate::Started,
                                    (service, job_id, changed, sent, pending, false, false),
                                ));
                            }
                            _ => {}
                        }
                        let fresh = match service.store.jobs().job_events(&job_id, sent).await {
                            Ok(events) => events,
                            Err(e) => {
                                tracing::warn!(job = %job_id, error = %e, "cannot read the job's events");
                                return None;
                            }
                        };
                        if !fresh.is_empty() {
                            sent += fresh.len() as i64;
                            pending.extend(fresh);
                            continue;
                        }
                        if !stored.is_live() {
                            let events = if V::END_WITH_EVENTS {
                                service.store.jobs().job_events(&job_id, 0).await.ok()?
                            } else {
                                Vec::new()
                            };
                            let view = V::shown(stored, events).ok()?;
                            let view = serde_json::to_string(&view).expect("job views serialise");
                            return Some((
                                JobUpdate::End(view),
                                (service, job_id, changed, sent, pending, true, waiting),
                            ));
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
                }
            },
        ))
    }
}

#[cfg(test)]
mod tests;

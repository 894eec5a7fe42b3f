//! The jobs' own tests: how events are written, and how runs wait their turn.

use super::*;
use ferry_store::jobs::JobKind;

/// A service over a scratch store running `runs` at once, and the ID of an empty stack `name`
/// its jobs can belong to.
async fn service_with_stack(name: &str, runs: usize) -> (Store, crate::Ferry, String) {
    let store = ferry_store::testing::scratch().await.unwrap();
    let service = crate::Ferry::new(store.clone(), 1024 * 1024).with_concurrent_runs(runs);
    let empty = br#"{"version":3,"deployment":{}}"#.to_vec();
    let stack = service.stacks().upload(Some(name), empty, None, "upload").await.unwrap();
    (store, service, stack.summary.id)
}

/// Events reported a few milliseconds apart (as a preview reports its resources) are written
/// in a few batches, not one write each: every write wakes each follower for two queries.
#[tokio::test]
async fn events_reported_apart_are_written_in_few_batches_and_all_in_order() {
    const EVENTS: usize = 60;
    let (store, service, stack) = service_with_stack("acme/jobs/batched", 2).await;
    let jobs = service.jobs();
    let mut changed = jobs.live.changed.subscribe();
    let new = NewJob {
        id: "batched",
        kind: JobKind::Discovery,
        stack_id: &stack,
        plan: None,
        total: EVENTS as i64,
        detail: None,
    };
    jobs.start_job(new, |sink: JobSink<usize>, _| {
        Box::pin(async move {
            for i in 0..EVENTS {
                sink(i);
                tokio::time::sleep(Duration::from_millis(2)).await;
            }
            Ok(JobEnd::default())
        })
    })
    .await
    .unwrap();
    // One announcement per batch written, and one at the end.
    let mut announcements = 0;
    loop {
        let id = changed.recv().await.unwrap();
        // In PostgreSQL every test's service hears every job's notification (one database,
        // a schema per test): only this job's count.
        if id != "batched" {
            continue;
        }
        announcements += 1;
        if store.jobs().job(&id).await.unwrap().status != JobStatus::Running {
            break;
        }
    }
    let events: Vec<usize> =
        parse_events(store.jobs().job_events("batched", 0).await.unwrap()).unwrap();
    assert_eq!(events, (0..EVENTS).collect::<Vec<_>>(), "every event, once, in order");
    // Written one at a time they took one write each (60); gathered, a few (2 to 4 here).
    assert!(
        announcements <= EVENTS / 5,
        "{announcements} writes for {EVENTS} events reported 2 ms apart"
    );
}

/// Past the service's limit a job waits queued: it starts when a running one ends, in the
/// order queued, and its follower hears nothing until it starts, then that it started; one
/// cancelled while it waits never runs.
#[tokio::test]
async fn jobs_past_the_limit_wait_queued_and_start_in_turn() {
    use crate::{DiscoveryEvent, DiscoveryView};
    use futures_util::StreamExt;
    let (store, service, stack) = service_with_stack("acme/jobs/turns", 1).await;
    let jobs = service.jobs();
    let ran = Arc::new(Mutex::new(Vec::new()));
    let (release_first, first_may_end) = oneshot::channel::<()>();
    let mut first_may_end = Some(first_may_end);
    let mut statuses = Vec::new();
    for id in ["first", "second", "third"] {
        let new = NewJob {
            id,
            kind: JobKind::Discovery,
            stack_id: &stack,
            plan: None,
            total: 0,
            detail: Some("[]"),
        };
        let ran = ran.clone();
        let wait = if id == "first" { first_may_end.take() } else { None };
        let started = jobs
            .start_job(new, move |_: JobSink<DiscoveryEvent>, _| {
                Box::pin(async move {
                    ran.lock().unwrap().push(id);
                    if let Some(wait) = wait {
                        let _ = wait.await;
                    }
                    Ok(JobEnd::default())
                })
            })
            .await
            .unwrap();
        statuses.push(started.status);
    }
    assert_eq!(statuses, [JobStatus::Running, JobStatus::Queued, JobStatus::Queued]);

    let mut follower = Box::pin(jobs.follow_job::<DiscoveryView>("second", None).await.unwrap());
    let heard = tokio::time::timeout(Duration::from_millis(300), follower.next()).await;
    assert!(heard.is_err(), "a waiting job's follower hears nothing yet");
    // A preview asked for directly waits as well.
    let direct = tokio::time::timeout(Duration::from_millis(100), jobs.turn()).await;
    assert!(direct.is_err(), "a direct run got a turn while a job held the only one");
    let third = Box::pin(jobs.follow_job::<DiscoveryView>("third", None).await.unwrap());
    let cancelled = jobs.cancel::<DiscoveryView>("third", None).await.unwrap();
    assert_eq!(cancelled.status, JobStatus::Cancelled);
    // Its follower saw it wait, then end: it never hears that it started.
    let heard: Vec<JobUpdate> = third.collect().await;
    assert!(
        matches!(heard.as_slice(), [JobUpdate::End(_)]),
        "a job that ended while it waited is not said to start"
    );

    release_first.send(()).unwrap();
    let updates: Vec<JobUpdate> = follower.collect().await;
    assert!(matches!(updates.first(), Some(JobUpdate::Started)), "its start is heard first");
    let Some(JobUpdate::End(end)) = updates.last() else { panic!("then its end") };
    let end: DiscoveryView = serde_json::from_str(end).unwrap();
    assert_eq!(end.status, JobStatus::Done);
    assert_eq!(*ran.lock().unwrap(), ["first", "second"], "the cancelled one never ran");
    let third = store.jobs().job("third").await.unwrap();
    assert_eq!((third.status, third.started_at), (JobStatus::Cancelled, None));
    assert!(store.jobs().job("second").await.unwrap().started_at.is_some(), "claimed when it ran");
    // Every turn came back.
    tokio::time::timeout(Duration::from_secs(5), jobs.turn()).await.expect("the turn came back");

    // A job that fails while it waits (the store erred as it was claimed) never started either.
    let new = NewJob {
        id: "fourth",
        kind: JobKind::Discovery,
        stack_id: &stack,
        plan: None,
        total: 0,
        detail: Some("[]"),
    };
    store.jobs().add_job(new, jobs.instance(), &jobs.lease_until()).await.unwrap();
    let mut fourth = Box::pin(jobs.follow_job::<DiscoveryView>("fourth", None).await.unwrap());
    let heard = tokio::time::timeout(Duration::from_millis(300), fourth.next()).await;
    assert!(heard.is_err(), "seen waiting");
    store.jobs().end_job("fourth", JobStatus::Failed, None, 0, Some("no claim")).await.unwrap();
    jobs.live.changed.send("fourth".to_string()).unwrap();
    let heard: Vec<JobUpdate> = fourth.collect().await;
    assert!(
        matches!(heard.as_slice(), [JobUpdate::End(_)]),
        "a job that failed while it waited is not said to start"
    );
}

/// The service keeps time by its store's clock: a job whose instance died is interrupted once
/// its lease ran out by that clock, and forgotten once the retention passed by it, with no
/// waiting in the test.
#[tokio::test]
async fn leases_and_retention_run_on_the_stores_clock() {
    use crate::DiscoveryView;
    let clock = ferry_store::Clock::manual(time::macros::datetime!(2030-06-01 12:00 UTC));
    let store = ferry_store::testing::scratch().await.unwrap().with_clock(clock.clone());
    let service = crate::Ferry::new(store.clone(), 1024 * 1024);
    let empty = br#"{"version":3,"deployment":{}}"#.to_vec();
    let stack = service.stacks().upload(Some("acme/jobs/clock"), empty, None, "upload").await;
    let stack = stack.unwrap().summary.id;
    // A job another instance took and then stopped renewing.
    let new = NewJob {
        id: "orphan",
        kind: JobKind::Discovery,
        stack_id: &stack,
        plan: None,
        total: 1,
        detail: None,
    };
    store.jobs().add_job(new, "gone", &clock.in_seconds(60)).await.unwrap();
    assert!(store.jobs().claim_job("orphan", "gone", &clock.in_seconds(60)).await.unwrap());
    let seen: DiscoveryView = service.jobs().get("orphan", None).await.unwrap();
    assert_eq!(seen.status, JobStatus::Running, "its lease runs for a minute more");
    clock.advance(Duration::from_secs(61));
    let seen: DiscoveryView = service.jobs().get("orphan", None).await.unwrap();
    assert_eq!(seen.status, JobStatus::Interrupted, "its lease ran out by the clock");

    assert_eq!(service.jobs().forget_finished().await.unwrap(), 0, "ended only now");
    clock.advance(DEFAULT_RETENTION + Duration::from_secs(1));
    assert_eq!(service.jobs().forget_finished().await.unwrap(), 1, "past the retention");
}

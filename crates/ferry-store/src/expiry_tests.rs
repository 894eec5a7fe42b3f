//! What runs out, the same in both databases: a job's lease (its instance stops, another
//! marks it interrupted), a sign-in started at an OpenID Provider, a backend lock whose holder
//! died, and finished jobs and ended sessions past their retention.

use super::tests::{new, new_plan, stores};
use super::*;

#[tokio::test]
async fn jobs_are_leased_ended_once_and_interrupted_when_their_lease_runs_out() {
    for store in stores().await {
        // A clock that moves only when the test moves it: what runs out does so without waiting.
        let store = store.with_clock(Clock::manual(time::macros::datetime!(2030-01-01 0:00 UTC)));
        let stack = store
            .stacks()
            .add_version(&StackName::parse("a/b/c").unwrap(), new("{}"))
            .await
            .unwrap();
        let plan = new_plan(&store, &stack.id).await;
        let new_job = |id| jobs::NewJob {
            id,
            kind: jobs::JobKind::Preview,
            stack_id: &stack.id,
            plan: Some((&plan.id, 1)),
            total: 3,
            detail: None,
        };
        let job = store
            .jobs()
            .add_job(new_job("j1"), "instance-a", &store.clock().in_seconds(60))
            .await
            .unwrap();
        assert_eq!(
            (job.kind, job.plan_id.as_deref(), job.revision),
            (jobs::JobKind::Preview, Some(plan.id.as_str()), Some(1))
        );
        assert_eq!((job.status.as_str(), job.is_live()), ("queued", true));
        assert!(store
            .jobs()
            .claim_job("j1", "instance-a", &store.clock().in_seconds(60))
            .await
            .unwrap());
        assert!(
            !store
                .jobs()
                .claim_job("j1", "instance-b", &store.clock().in_seconds(60))
                .await
                .unwrap(),
            "claimed once, by the instance that holds it"
        );
        assert!(store
            .jobs()
            .add_job_events("j1", 0, &["{\"n\":0}".into(), "{\"n\":1}".into()], 3)
            .await
            .unwrap());
        assert!(store
            .jobs()
            .add_job_events("j1", 2, &["{\"n\":2}".into(), "{\"n\":3}".into()], 3)
            .await
            .unwrap());
        assert_eq!(store.jobs().job_events("j1", 3).await.unwrap(), ["{\"n\":3}"]);
        // A batch larger than one statement's rows keeps its order.
        let many: Vec<String> = (4..1004).map(|n| format!("{{\"n\":{n}}}")).collect();
        assert!(store.jobs().add_job_events("j1", 4, &many, 3).await.unwrap());
        let stored = store.jobs().job_events("j1", 0).await.unwrap();
        assert_eq!((stored.len(), stored[1003].as_str()), (1004, "{\"n\":1003}"));
        let seen = store.jobs().job("j1").await.unwrap();
        assert_eq!(
            (seen.finished, seen.total),
            (1004, 1004),
            "the total grows with what was reported"
        );
        // A cancel wins over a result that comes later.
        assert!(store.jobs().cancel_job("j1").await.unwrap());
        assert!(!store.jobs().end_job("j1", jobs::JobStatus::Done, None, 0, None).await.unwrap());
        assert!(!store.jobs().add_job_events("j1", 1004, &["{}".into()], 3).await.unwrap());
        assert_eq!(store.jobs().job("j1").await.unwrap().status, jobs::JobStatus::Cancelled);
        // The database keeps only the statuses the type knows.
        assert!(sqlx::query("UPDATE jobs SET status = 'paused' WHERE id = 'j1'")
            .execute(&store.pool)
            .await
            .is_err());
        assert_eq!(store.jobs().job("j1").await.unwrap().status, jobs::JobStatus::Cancelled);

        // An instance that stops renewing: its job is interrupted once the lease ran out, not before.
        // So is one it held queued, waiting for its turn.
        store
            .jobs()
            .add_job(new_job("j2"), "instance-a", &store.clock().in_seconds(60))
            .await
            .unwrap();
        store.jobs().claim_job("j2", "instance-a", &store.clock().in_millis(300)).await.unwrap();
        store
            .jobs()
            .add_job(new_job("j4"), "instance-a", &store.clock().in_millis(300))
            .await
            .unwrap();
        store
            .jobs()
            .add_job(new_job("j5"), "instance-b", &store.clock().in_seconds(60))
            .await
            .unwrap();
        assert!(store.jobs().interrupt_jobs(false).await.unwrap().is_empty());
        store.clock().advance(std::time::Duration::from_millis(400));
        let mut interrupted = store.jobs().interrupt_jobs(false).await.unwrap();
        interrupted.sort();
        assert_eq!(interrupted, ["j2", "j4"], "a held lease keeps a queued job");
        let interrupted = store.jobs().job("j2").await.unwrap();
        assert_eq!(
            (interrupted.status.as_str(), interrupted.error.as_deref()),
            ("interrupted", Some(jobs::INTERRUPTED))
        );
        // A restarted single-instance store interrupts whatever was live.
        store
            .jobs()
            .add_job(
                jobs::NewJob {
                    kind: jobs::JobKind::Discovery,
                    plan: None,
                    detail: Some("[]"),
                    ..new_job("j3")
                },
                "instance-a",
                &store.clock().in_seconds(60),
            )
            .await
            .unwrap();
        let mut interrupted = store.jobs().interrupt_jobs(true).await.unwrap();
        interrupted.sort();
        assert_eq!(interrupted, ["j3", "j5"]);
        let listed: Vec<String> =
            store.jobs().plan_jobs(&plan.id, 10).await.unwrap().into_iter().map(|j| j.id).collect();
        assert_eq!(listed.len(), 4, "the plan's previews, not the stack's discoveries");
        for sql in ["UPDATE job_events SET event = 'x'"] {
            let err = sqlx::query(sql).execute(&store.pool).await.unwrap_err();
            assert!(err.to_string().contains("immutable"), "{sql}: {err}");
        }
    }
}

#[tokio::test]
async fn an_oidc_login_is_taken_once_and_not_after_it_expired() {
    for store in stores().await {
        // A clock that moves only when the test moves it: what runs out does so without waiting.
        let store = store.with_clock(Clock::manual(time::macros::datetime!(2030-01-01 0:00 UTC)));
        let login =
            accounts::OidcLogin { verifier: "v".into(), nonce: "n".into(), next: "/".into() };
        store.accounts().add_oidc_login("live", &login, 60).await.unwrap();
        store.accounts().add_oidc_login("gone", &login, -1).await.unwrap();
        assert_eq!(store.accounts().take_oidc_login("live").await.unwrap(), Some(login.clone()));
        assert_eq!(store.accounts().take_oidc_login("live").await.unwrap(), None, "once");
        assert_eq!(store.accounts().take_oidc_login("gone").await.unwrap(), None, "expired");
    }
}

#[tokio::test]
async fn a_backend_lock_is_recovered_once_its_lease_ran_out_and_by_one_instance() {
    for store in stores().await {
        // A clock that moves only when the test moves it: what runs out does so without waiting.
        let store = store.with_clock(Clock::manual(time::macros::datetime!(2030-01-01 0:00 UTC)));
        let stack = store
            .stacks()
            .add_version(&StackName::parse("a/b/c").unwrap(), new("{}"))
            .await
            .unwrap();
        let url = "file:///srv/state";
        store
            .stacks()
            .add_backend_lock(
                "locks/held.json",
                &stack.id,
                url,
                "instance-a",
                &store.clock().in_millis(300),
            )
            .await
            .unwrap();
        store
            .stacks()
            .add_backend_lock(
                "locks/released.json",
                &stack.id,
                url,
                "instance-a",
                &store.clock().in_millis(300),
            )
            .await
            .unwrap();
        store.stacks().release_backend_lock("locks/released.json", None).await.unwrap();
        assert!(
            store
                .stacks()
                .take_over_backend_locks("instance-b", &store.clock().in_seconds(60), false)
                .await
                .unwrap()
                .is_empty(),
            "a running lease is left alone"
        );
        // Renewed while its holder lives; once it stops, the lease runs out.
        store
            .stacks()
            .renew_backend_locks("instance-a", &store.clock().in_millis(300))
            .await
            .unwrap();
        store.clock().advance(std::time::Duration::from_millis(400));
        let taken = store
            .stacks()
            .take_over_backend_locks("instance-b", &store.clock().in_seconds(60), false)
            .await
            .unwrap();
        assert_eq!(
            taken.iter().map(|l| (l.path.as_str(), l.instance.as_str())).collect::<Vec<_>>(),
            [("locks/held.json", "instance-b")]
        );
        assert!(
            store
                .stacks()
                .take_over_backend_locks("instance-c", &store.clock().in_seconds(60), false)
                .await
                .unwrap()
                .is_empty(),
            "taken over once"
        );
        store.stacks().release_backend_lock("locks/held.json", Some("removed")).await.unwrap();
        // A single-instance store starting up takes every unreleased one, lease or not.
        store
            .stacks()
            .add_backend_lock(
                "locks/fresh.json",
                &stack.id,
                url,
                "instance-d",
                &store.clock().in_seconds(60),
            )
            .await
            .unwrap();
        assert_eq!(
            store
                .stacks()
                .take_over_backend_locks("instance-e", &store.clock().in_seconds(60), true)
                .await
                .unwrap()
                .len(),
            1
        );
        let listed = store.stacks().backend_locks(&stack.id, 10).await.unwrap();
        assert_eq!(listed.len(), 3);
        let held = listed.iter().find(|l| l.path == "locks/held.json").unwrap();
        assert_eq!((held.recovery.as_deref(), held.released_at.is_some()), (Some("removed"), true));
    }
}

#[tokio::test]
async fn finished_jobs_and_ended_sessions_past_their_retention_are_removed_live_ones_kept() {
    for store in stores().await {
        // A clock that moves only when the test moves it: what runs out does so without waiting.
        let store = store.with_clock(Clock::manual(time::macros::datetime!(2030-01-01 0:00 UTC)));
        let stack = store
            .stacks()
            .add_version(&StackName::parse("a/b/c").unwrap(), new("{}"))
            .await
            .unwrap();
        let job = |id| jobs::NewJob {
            id,
            kind: jobs::JobKind::Discovery,
            stack_id: &stack.id,
            plan: None,
            total: 1,
            detail: None,
        };
        let user = store
            .accounts()
            .add_user(accounts::NewUser { name: "u", ..Default::default() })
            .await
            .unwrap();
        let held = &store;
        let start = |id: &'static str| async move {
            held.jobs().add_job(job(id), "i", &held.clock().in_seconds(600)).await.unwrap();
            assert!(held.jobs().claim_job(id, "i", &held.clock().in_seconds(600)).await.unwrap());
            assert!(held.jobs().add_job_events(id, 0, &["{}".into()], 1).await.unwrap());
        };
        start("old-done").await;
        start("old-running").await;
        store.jobs().end_job("old-done", jobs::JobStatus::Done, None, 0, None).await.unwrap();
        store
            .accounts()
            .add_session("ended", &user.id, 5 * 86_400, accounts::SessionMethod::Password)
            .await
            .unwrap();
        // Forty days on: the session ended 35 days ago; the old jobs are 40 days old.
        store.clock().advance(std::time::Duration::from_secs(40 * 86_400));
        start("new-done").await;
        store.jobs().end_job("new-done", jobs::JobStatus::Done, None, 0, None).await.unwrap();
        store
            .accounts()
            .add_session("live", &user.id, 3600, accounts::SessionMethod::Password)
            .await
            .unwrap();

        let cutoff = store.clock().in_seconds(-30 * 86_400);
        assert_eq!(
            store.jobs().forget_finished(&cutoff).await.unwrap(),
            1,
            "only the finished job past the retention"
        );
        assert!(matches!(store.jobs().job("old-done").await, Err(StoreError::JobNotFound(_))));
        assert_eq!(
            store.jobs().job_events("old-done", 0).await.unwrap(),
            Vec::<String>::new(),
            "its events went with it"
        );
        assert_eq!(
            store.jobs().job("old-running").await.unwrap().status.as_str(),
            "running",
            "a live job is never removed"
        );
        assert_eq!(store.jobs().job_events("new-done", 0).await.unwrap().len(), 1);
        let sessions: i64 = sqlx::query_scalar("SELECT COUNT(*) FROM sessions")
            .fetch_one(&store.pool)
            .await
            .unwrap();
        assert_eq!(sessions, 1, "the live session stays");
        assert!(store.accounts().session_user("live").await.unwrap().is_some());
    }
}

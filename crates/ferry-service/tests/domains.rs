//! Each of the service's domains driven as the API and the CLI drive them, without HTTP: over a
//! real store (SQLite in memory) and, where a provider answers, Ferry's own plugins, built into
//! the same target folder by `cargo test --workspace`. One test per domain (and its folder of
//! `ferry-service/src`), named after it.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use ferry_engine::deploy::PlanScope;
use ferry_service::access::{Caller, Object, Role};
use ferry_service::webhooks::WebhookSettings;
use ferry_service::{
    AllowedBackend, DiscoveryRequest, DiscoveryView, EngineConfig, Ferry, JobStatus, JobUpdate,
    JobView, PlanInput, PreviewRequest, PreviewSource, TypeQuery,
};
use ferry_types::api::CommentInput;
use ferry_types::plans::PlanState;
use ferry_types::webhooks::{WebhookEvent, WebhookInput};
use ferry_types::StackSettingsView;
use futures_util::StreamExt;

/// `target/<profile>`, where `cargo test --workspace` builds the plugins beside this test.
fn plugin_dir() -> PathBuf {
    let dir = std::env::current_exe().unwrap().parent().unwrap().parent().unwrap().to_path_buf();
    assert!(
        dir.join("pulumi-resource-random").exists(),
        "build the plugins first: cargo test --workspace (looked in {})",
        dir.display()
    );
    dir
}

async fn ferry_with(plugin_dirs: Vec<PathBuf>) -> Arc<Ferry> {
    let store = ferry_store::testing::scratch().await.unwrap();
    let engine = EngineConfig::new(plugin_dirs, None, ferry_state::secrets::random_key());
    Arc::new(Ferry::new(store, 1 << 20).with_engine(engine))
}

async fn ferry() -> Arc<Ferry> {
    ferry_with(vec![plugin_dir()]).await
}

/// A Ferry whose webhooks may reach this machine (none is delivered: no worker runs).
async fn ferry_with_local_webhooks() -> Arc<Ferry> {
    let store = ferry_store::testing::scratch().await.unwrap();
    let engine = EngineConfig::new(vec![plugin_dir()], None, ferry_state::secrets::random_key());
    let settings = WebhookSettings { allow_private: true, ..Default::default() };
    Arc::new(Ferry::new(store, 1 << 20).with_engine(engine).with_webhooks(settings))
}

/// A plan of one import on a fresh stack, previewed through its job: its ID and its preview's.
async fn previewed_plan(ferry: &Arc<Ferry>, planner: &Caller, stack: &str) -> (String, String) {
    let input = PlanInput {
        title: Some("pets".into()),
        spec: Some(port_spec("pet")),
        program: None,
        options: Default::default(),
    };
    let plan = ferry.plans().create_plan(planner, stack, input).await.unwrap().plan.id;
    let job = ferry.plans().start_plan_preview(&plan, None, None).await.unwrap();
    let _: Vec<JobUpdate> =
        ferry.jobs().follow_job::<JobView>(&job.id, Some(&plan)).await.unwrap().collect().await;
    let done = ferry.jobs().get::<JobView>(&job.id, Some(&plan)).await.unwrap();
    assert_eq!(done.status, JobStatus::Done, "{:?}", done.error);
    (plan, done.preview_id.unwrap())
}

/// `user`, granted `role` in `org`, as the API sees a caller with one of their tokens.
async fn member(ferry: &Arc<Ferry>, user: &str, org: &str, role: Role) -> Caller {
    let accounts = ferry.accounts();
    let user = accounts.grant(user, org, role).await.unwrap();
    let token =
        accounts.issue_api_token(&user.id, "test", org, role, 3600).await.unwrap().token.unwrap();
    accounts.caller_of_token(&token).await.unwrap()
}

const EMPTY_STATE: &[u8] = br#"{"version": 3, "deployment": {}}"#;

async fn empty_stack(ferry: &Arc<Ferry>, name: &str) -> String {
    ferry
        .stacks()
        .upload(Some(name), EMPTY_STATE.to_vec(), None, "upload")
        .await
        .unwrap()
        .summary
        .id
}

/// An import of one random integer (the random plugin reads its ID: value, min, max).
fn port_spec(name: &str) -> String {
    format!(
        r#"{{"resources": [{{"type": "random:index/randomInteger:RandomInteger", "name": "{name}", "id": "7,1,10"}}]}}"#
    )
}

fn spec_request(text: &str) -> PreviewRequest {
    let spec = ferry_engine::import_spec::parse_import_spec(text).unwrap();
    PreviewRequest {
        source: PreviewSource::Spec { text: text.to_string(), spec, strategy: Default::default() },
        scope: PlanScope::Imports,
        progress: None,
        turn: None,
    }
}

#[tokio::test]
async fn stacks_keep_whole_versions_and_list_only_what_a_caller_may_read() {
    let ferry = ferry().await;
    let stacks = ferry.stacks();
    let ours = empty_stack(&ferry, "acme/site/dev").await;
    empty_stack(&ferry, "other/site/dev").await;

    let viewer = member(&ferry, "vic", "acme", Role::Viewer).await;
    let listed: Vec<String> =
        stacks.list_for(&viewer).await.unwrap().into_iter().map(|s| s.name).collect();
    assert_eq!(listed, ["acme/site/dev"], "another organisation's stack is not listed");

    // A file that does not load stores nothing: the stack keeps its one version.
    let err = stacks
        .upload(
            Some("acme/site/dev"),
            br#"{"version": 3, "deployment": {"resources": [{"urn": "x"}]}}"#.to_vec(),
            None,
            "upload",
        )
        .await
        .unwrap_err();
    assert_eq!(err.code(), "invalid_state");
    assert_eq!(stacks.versions(&ours).await.unwrap().len(), 1);
    assert!(stacks.version(&ours, None).await.unwrap().deployment.resources().is_empty());
}

#[tokio::test]
async fn accounts_decide_who_may_do_what_in_which_organisation() {
    let ferry = ferry().await;
    let accounts = ferry.accounts();
    let ours = empty_stack(&ferry, "acme/site/dev").await;
    let theirs = empty_stack(&ferry, "other/site/dev").await;
    let planner = member(&ferry, "pat", "acme", Role::Planner).await;

    assert_eq!(
        accounts.authorize(&planner, Object::Stack, &ours, Role::Planner).await.unwrap(),
        "acme"
    );
    let refused =
        accounts.authorize(&planner, Object::Stack, &ours, Role::Admin).await.unwrap_err();
    assert_eq!(
        (refused.status(), refused.code()),
        (403, "forbidden"),
        "a planner is not an administrator"
    );
    let refused =
        accounts.authorize(&planner, Object::Stack, &theirs, Role::Viewer).await.unwrap_err();
    assert_eq!(refused.status(), 403, "another organisation's stack is out of reach");
    let refused = accounts
        .authorize(&Caller::anonymous(), Object::Stack, &ours, Role::Viewer)
        .await
        .unwrap_err();
    assert_eq!(refused.status(), 401);

    // An administrator of one organisation does not set a password for a member of another.
    member(&ferry, "olga", "other", Role::Viewer).await;
    let admin = member(&ferry, "ada", "acme", Role::Admin).await;
    let refused = accounts
        .set_member(&admin, "acme", "olga", &[Role::Viewer], Some("a long enough password"))
        .await
        .unwrap_err();
    assert_eq!(refused.status(), 403, "{refused}");

    // A sign-in at an OpenID Provider is found by its `state` only in the browser that began it.
    let login = ferry_service::accounts::PendingOidcLogin {
        verifier: "v".into(),
        nonce: "n".into(),
        next: "/".into(),
    };
    let browser = accounts.begin_oidc_login("state-1", login.clone(), 600).await.unwrap();
    assert!(
        accounts.finish_oidc_login("state-1", "another-browser").await.unwrap().is_none(),
        "another browser's cookie"
    );
    assert_eq!(
        accounts.finish_oidc_login("state-1", &browser).await.unwrap(),
        Some(login),
        "the browser that began it"
    );
    assert!(accounts.finish_oidc_login("state-1", &browser).await.unwrap().is_none(), "once");
}

#[tokio::test]
async fn plans_keep_revisions_shares_and_comments() {
    let ferry = ferry().await;
    let plans = ferry.plans();
    let stack = empty_stack(&ferry, "acme/site/dev").await;
    let planner = member(&ferry, "pat", "acme", Role::Planner).await;

    let input = |name: &str| PlanInput {
        title: Some("pets".into()),
        spec: Some(port_spec(name)),
        program: None,
        options: Default::default(),
    };
    let created = plans.create_plan(&planner, &stack, input("first")).await.unwrap();
    let plan = created.plan.id.clone();
    let saved = plans.save_plan(&planner, &plan, input("second")).await.unwrap();
    assert_eq!((created.current.revision, saved.current.revision), (1, 2));
    let first = plans.plan_view(&plan, Some(1), false).await.unwrap();
    assert!(
        first.current.spec.as_deref().unwrap().contains("first"),
        "a saved revision never changes"
    );

    let share = plans.share_plan(&plan).await.unwrap();
    let shared = plans.shared_plan(&share.token, None).await.unwrap();
    assert!(shared.read_only);
    assert_eq!(shared.current.revision, 2);
    assert!(
        plans.revoke_plan_share(&plan, &share.token).await.is_err(),
        "a link is revoked by its ID, not its token"
    );
    plans.revoke_plan_share(&plan, &share.link.id).await.unwrap();
    assert_eq!(
        plans.shared_plan(&share.token, None).await.unwrap_err().status(),
        404,
        "a revoked link reads nothing"
    );

    let urn = "urn:pulumi:dev::site::random:index/randomInteger:RandomInteger::second".to_string();
    let comment =
        CommentInput { revision: 2, urn, path: None, parent: None, body: "looks right".into() };
    plans.add_comment(&planner, &plan, comment).await.unwrap();
    let comments = plans.comments(&plan, Some(2)).await.unwrap();
    assert_eq!(comments.iter().map(|c| c.body.as_str()).collect::<Vec<_>>(), ["looks right"]);
}

#[tokio::test]
async fn previews_reach_the_stack_only_when_committed() {
    let ferry = ferry().await;
    let (stacks, previews) = (ferry.stacks(), ferry.previews());
    let stack = empty_stack(&ferry, "acme/site/dev").await;

    let record = previews.preview(&stack, spec_request(&port_spec("pet"))).await.unwrap();
    assert_eq!(record.base_version, 1);
    assert_eq!(
        stacks.versions(&stack).await.unwrap().len(),
        1,
        "a preview writes nothing to the stack"
    );
    assert_eq!(previews.stored_preview(&record.id).await.unwrap().id, record.id);

    ferry.workflow().commit_preview(&record.id, None, false).await.unwrap();
    let latest = stacks.version(&stack, None).await.unwrap();
    assert_eq!(latest.summary.version, 2);
    let found: Vec<_> = latest
        .deployment
        .resources()
        .iter()
        .map(|r| (r.type_.to_string(), r.id().map(str::to_string)))
        .collect();
    assert!(
        found.contains(&("random:index/randomInteger:RandomInteger".into(), Some("7".into()))),
        "{found:?}"
    );
    assert!(
        ferry.workflow().commit_preview(&record.id, None, false).await.is_err(),
        "a preview commits once"
    );
}

#[tokio::test]
async fn jobs_run_a_plan_preview_in_the_background_and_report_its_end() {
    let ferry = ferry().await;
    let stack = empty_stack(&ferry, "acme/site/dev").await;
    let planner = member(&ferry, "pat", "acme", Role::Planner).await;
    let input = PlanInput {
        title: None,
        spec: Some(port_spec("pet")),
        program: None,
        options: Default::default(),
    };
    let plan = ferry.plans().create_plan(&planner, &stack, input).await.unwrap().plan.id;

    let job = ferry.plans().start_plan_preview(&plan, None, None).await.unwrap();
    assert_eq!(job.total, 1);
    let jobs = ferry.jobs();
    let updates: Vec<JobUpdate> =
        jobs.follow_job::<JobView>(&job.id, Some(&plan)).await.unwrap().collect().await;
    assert!(matches!(updates.last(), Some(JobUpdate::End(_))), "a follower hears the end last");
    let done = jobs.get::<JobView>(&job.id, Some(&plan)).await.unwrap();
    assert_eq!(done.status, JobStatus::Done, "{:?}", done.error);
    assert!(done.preview_id.is_some());
    assert_eq!(jobs.plan_jobs(&plan).await.unwrap().len(), 1);
    let missing = jobs.get::<JobView>("no-such-job", Some(&plan)).await.unwrap_err();
    assert_eq!((missing.status(), missing.code()), (404, "not_found"));
    // One handle serves every kind of job, and tells them apart: a preview is no discovery,
    // nor another plan's job.
    assert_eq!(jobs.get::<DiscoveryView>(&job.id, None).await.unwrap_err().status(), 404);
    assert_eq!(jobs.get::<JobView>(&job.id, Some("another-plan")).await.unwrap_err().status(), 404);
}

#[tokio::test]
async fn discoveries_list_what_a_provider_finds_and_mark_what_stacks_manage() {
    use std::os::unix::fs::PermissionsExt;
    let dir = tempfile::tempdir().unwrap();
    let wrapper = dir.path().join("pulumi-resource-test");
    std::fs::write(
        &wrapper,
        format!(
            "#!/bin/sh\nFERRY_TEST_PROVIDER_MODE=ok exec '{}' \"$@\"\n",
            plugin_dir().join("ferry-test-provider").display()
        ),
    )
    .unwrap();
    std::fs::set_permissions(&wrapper, std::fs::Permissions::from_mode(0o755)).unwrap();
    // The store is kept to see the index of managed resources.
    let store = ferry_store::testing::scratch().await.unwrap();
    let engine = EngineConfig::new(
        vec![dir.path().to_path_buf(), plugin_dir()],
        None,
        ferry_state::secrets::random_key(),
    );
    let ferry = Arc::new(Ferry::new(store.clone(), 1 << 20).with_engine(engine));
    let stack = empty_stack(&ferry, "acme/things/dev").await;
    // Plugins outside Ferry's own run for an organisation once its settings list them.
    let settings = ferry_types::OrgSettingsView {
        allowed_packages: vec!["test".into()],
        ..Default::default()
    };
    ferry.accounts().set_org_settings("acme", settings).await.unwrap();
    let spec =
        r#"{"resources": [{"type": "test:index:Thing", "name": "three", "id": "thing-03"}]}"#;
    let record = ferry.previews().preview(&stack, spec_request(spec)).await.unwrap();
    ferry.workflow().commit_preview(&record.id, None, false).await.unwrap();
    // An upload writes no index rows: they are stale until a discovery asks, and a commit
    // onto stale rows leaves them so.
    let stale = || async { store.stacks().stale_managed_stacks("acme").await.unwrap() };
    assert_eq!(stale().await, [(stack.clone(), 2)], "stale after the upload and the commit");

    let jobs = ferry.jobs();
    let discover = || async {
        let query: TypeQuery =
            serde_json::from_value(serde_json::json!({"type": "test:index:Thing", "pageSize": 10}))
                .unwrap();
        let started = ferry
            .discoveries()
            .start_discovery(&stack, DiscoveryRequest { types: vec![query] })
            .await
            .unwrap();
        let updates: Vec<JobUpdate> =
            jobs.follow_job::<DiscoveryView>(&started.id, None).await.unwrap().collect().await;
        let Some(JobUpdate::End(end)) = updates.last() else {
            panic!("a follower hears the end last")
        };
        assert_eq!(
            serde_json::from_str::<DiscoveryView>(end).unwrap().found,
            25,
            "a discovery's end counts its results"
        );
        let done = jobs.get::<DiscoveryView>(&started.id, None).await.unwrap();
        assert_eq!((done.status, done.found), (JobStatus::Done, 25), "{:?}", done.error);
        serde_json::to_value(&done.events).unwrap()
    };
    let status_of = |events: &serde_json::Value, id: &str| {
        events.as_array().unwrap().iter().find(|e| e["id"] == id).map(|e| e["status"].clone())
    };
    let first = discover().await;
    assert_eq!(status_of(&first, "thing-03"), Some("in-this-stack".into()));
    assert_eq!(status_of(&first, "thing-04"), Some("unmanaged".into()));
    assert_eq!(
        stale().await,
        Vec::<(String, i64)>::new(),
        "the discovery rebuilt the stack's rows"
    );

    // A commit onto rows that reflect its base writes what it changed, in its transaction.
    let spec = r#"{"resources": [{"type": "test:index:Thing", "name": "four", "id": "thing-04"}]}"#;
    let record = ferry.previews().preview(&stack, spec_request(spec)).await.unwrap();
    ferry.workflow().commit_preview(&record.id, None, false).await.unwrap();
    assert_eq!(stale().await, Vec::<(String, i64)>::new(), "the commit kept the rows up to date");
    let second = discover().await;
    assert_eq!(status_of(&second, "thing-03"), Some("in-this-stack".into()));
    assert_eq!(status_of(&second, "thing-04"), Some("in-this-stack".into()));
}

fn write(root: &Path, rel: &str, bytes: &[u8]) {
    let path = root.join(rel);
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, bytes).unwrap();
}

#[tokio::test]
async fn backends_connect_stacks_only_from_what_the_administrator_allows() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    write(root, ".pulumi/meta.yaml", b"version: 1\n");
    write(root, ".pulumi/stacks/site/dev.json", br#"{"version": 3, "checkpoint": {"stack": "organization/site/dev", "latest": {"resources": []}}}"#);
    let url = format!("file://{}", root.display());
    let store = ferry_store::testing::scratch().await.unwrap();
    let ferry = Arc::new(Ferry::new(store, 1 << 20).with_allowed_backends(vec![AllowedBackend {
        org: "organization".into(),
        url: url.clone(),
    }]));
    let planner = member(&ferry, "pat", "organization", Role::Planner).await;
    let backends = ferry.backends();

    let listed = backends.backend_stacks(&planner, "organization", &url).await.unwrap();
    assert_eq!(
        listed.iter().map(|s| s.name.as_str()).collect::<Vec<_>>(),
        ["organization/site/dev"]
    );
    assert_eq!(
        backends
            .backend_stacks(&planner, "organization", "file:///etc")
            .await
            .unwrap_err()
            .status(),
        403,
        "a folder not allowed"
    );

    let connected =
        backends.connect_stack(&planner, &url, "organization/site/dev", None, None).await.unwrap();
    assert_eq!(connected.summary.name, "organization/site/dev");
    assert!(
        backends.backend_locks(&connected.summary.id).await.unwrap().is_empty(),
        "connecting leaves no lock"
    );
    let stranger = member(&ferry, "sam", "elsewhere", Role::Admin).await;
    assert_eq!(
        backends
            .connect_stack(&stranger, &url, "organization/site/dev", None, None)
            .await
            .unwrap_err()
            .status(),
        403
    );
}

#[tokio::test]
async fn workflow_moves_a_plan_with_its_events_and_gates_its_commit_by_the_stacks_rule() {
    let ferry = ferry().await;
    let workflow = ferry.workflow();
    let stack = empty_stack(&ferry, "acme/site/dev").await;
    let planner = member(&ferry, "pat", "acme", Role::Planner).await;
    let approver = member(&ferry, "ann", "acme", Role::Approver).await;
    let rule = StackSettingsView { required_approvals: 1, author_may_approve: false };
    workflow.set_stack_settings(&stack, rule).await.unwrap();

    let (plan, preview) = previewed_plan(&ferry, &planner, &stack).await;
    assert_eq!(workflow.plan_status(&plan).await.unwrap().state, PlanState::Previewed);
    let refused = workflow.commit_preview(&preview, None, false).await.unwrap_err();
    assert_eq!(refused.code(), "approval_required", "{refused}");
    assert_eq!(
        ferry.stacks().versions(&stack).await.unwrap().len(),
        1,
        "a refused commit writes nothing"
    );
    let author = workflow.approve(&planner, &plan, 1, &preview).await.unwrap_err();
    assert_eq!(author.status(), 403, "the rule keeps authors from approving: {author}");

    let state = workflow.approve(&approver, &plan, 1, &preview).await.unwrap();
    assert!(state.satisfied, "{state:?}");
    assert_eq!(workflow.plan_status(&plan).await.unwrap().state, PlanState::Approved);
    workflow.commit_preview(&preview, None, false).await.unwrap();
    let committed = workflow.plan_status(&plan).await.unwrap();
    assert_eq!((committed.state, committed.committed_version), (PlanState::Committed, Some(2)));
    assert_eq!(ferry.stacks().version(&stack, None).await.unwrap().summary.version, 2);
}

#[tokio::test]
async fn webhooks_queue_each_plan_event_for_the_organisations_that_hear_it() {
    let ferry = ferry_with_local_webhooks().await;
    let stack = empty_stack(&ferry, "acme/site/dev").await;
    let admin = member(&ferry, "ada", "acme", Role::Admin).await;
    let outsider = member(&ferry, "oz", "other", Role::Admin).await;
    let heard = WebhookInput {
        url: "http://127.0.0.1:9/hook".into(),
        events: vec![WebhookEvent::PlanCreated, WebhookEvent::PlanCommitted],
    };
    let hook = ferry.webhooks().create(&admin, "acme", &heard).await.unwrap();
    assert!(hook.secret.starts_with("whsec_"), "its secret is shown once, when made");
    let other = ferry.webhooks().create(&outsider, "other", &heard).await.unwrap();
    assert_eq!(
        ferry.webhooks().create(&outsider, "acme", &heard).await.unwrap_err().status(),
        403,
        "only the organisation's administrators make its webhooks"
    );

    let (plan, preview) = previewed_plan(&ferry, &admin, &stack).await;
    ferry.workflow().commit_preview(&preview, None, false).await.unwrap();
    let deliveries = ferry.webhooks().deliveries(&admin, "acme", &hook.webhook.id).await.unwrap();
    let mut events: Vec<WebhookEvent> = deliveries.iter().map(|d| d.event).collect();
    events.sort();
    assert_eq!(
        events,
        [WebhookEvent::PlanCreated, WebhookEvent::PlanCommitted],
        "the events it hears, once each (not the preview it does not hear)"
    );
    assert!(deliveries.iter().all(|d| d.plan_id == plan));
    let elsewhere =
        ferry.webhooks().deliveries(&outsider, "other", &other.webhook.id).await.unwrap();
    assert!(elsewhere.is_empty(), "another organisation hears nothing of acme's plans");
}

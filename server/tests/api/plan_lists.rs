//! Plans a team finds: each plan's state follows what happens to it (a draft until its latest
//! revision is previewed, changes requested until withdrawn or answered by a later revision's
//! preview, approved once the stack's rule is met, committed with the version it made, closed and
//! reopened), and `GET /api/v1/plans` lists them by every filter, a page at a time, only from the
//! organisations the caller reads. On SQLite, and on PostgreSQL when the test command runs the
//! API tests again there.

use crate::common;

use axum::body::Body;
use axum::http::{header, Method, Request, StatusCode};
use axum::Router;
use ferry_service::access::Role;
use serde_json::{json, Value};

struct Team {
    app: Router,
    tokens: std::collections::HashMap<&'static str, String>,
    stack: String,
}

impl Team {
    async fn call(&self, who: &str, method: Method, uri: &str, body: Value) -> (StatusCode, Value) {
        let req = Request::builder()
            .method(method)
            .uri(uri)
            .header(header::AUTHORIZATION, format!("Bearer {}", self.tokens[who]))
            .header(header::CONTENT_TYPE, "application/json")
            .body(if body.is_null() { Body::empty() } else { Body::from(body.to_string()) })
            .unwrap();
        common::call(&self.app, req).await
    }

    async fn get(&self, who: &str, uri: &str) -> Value {
        let (status, body) = self.call(who, Method::GET, uri, Value::Null).await;
        assert_eq!(status, StatusCode::OK, "{uri} as {who}: {body}");
        body
    }

    /// A plan of `who`'s on the team's stack importing the integer `id`.
    async fn plan(&self, who: &str, title: &str, id: &str) -> String {
        let body = json!({"title": title, "spec": spec(id)});
        let (status, plan) = self
            .call(who, Method::POST, &format!("/api/v1/stacks/{}/plans", self.stack), body)
            .await;
        assert_eq!(status, StatusCode::CREATED, "{plan}");
        plan["id"].as_str().unwrap().to_string()
    }

    async fn preview(&self, who: &str, plan: &str) -> String {
        common::plan_preview(&common::as_caller(self.app.clone(), self.tokens[who].clone()), plan)
            .await
            .0
    }

    /// The plan's status as its page shows it.
    async fn status(&self, plan: &str) -> Value {
        self.get("admin", &format!("/api/v1/plans/{plan}")).await["status"].clone()
    }

    async fn state(&self, plan: &str) -> String {
        self.status(plan).await["state"].as_str().unwrap().to_string()
    }

    /// Every plan a list query finds, following its pages of `limit`.
    async fn list_all(&self, who: &str, query: &str, limit: usize) -> Vec<Value> {
        let mut rows = Vec::new();
        let mut cursor = String::new();
        for _ in 0..100 {
            let page = self
                .get(who, &format!("/api/v1/plans?{query}&limit={limit}&cursor={}", url(&cursor)))
                .await;
            let plans = page["plans"].as_array().unwrap();
            assert!(plans.len() <= limit, "{page}");
            rows.extend(plans.iter().cloned());
            match page["next"].as_str() {
                Some(next) => cursor = next.to_string(),
                None => return rows,
            }
        }
        panic!("a list that never ends");
    }

    async fn titles(&self, who: &str, query: &str) -> Vec<String> {
        let mut titles: Vec<String> = self
            .list_all(who, query, 50)
            .await
            .iter()
            .map(|r| r["title"].as_str().unwrap().to_string())
            .collect();
        titles.sort();
        titles
    }
}

/// The kinds of what keeps a status's commit back.
fn blockers(status: &Value) -> Vec<&str> {
    status["blockers"]
        .as_array()
        .map(|b| b.iter().map(|b| b["kind"].as_str().unwrap()).collect())
        .unwrap_or_default()
}

fn url(s: &str) -> String {
    url::form_urlencoded::byte_serialize(s.as_bytes()).collect()
}

fn spec(id: &str) -> String {
    json!({"resources": [{"type": "random:index/randomInteger:RandomInteger", "name": "n", "id": id}]}).to_string()
}

async fn team() -> Team {
    let store = ferry_store::testing::scratch().await.unwrap();
    let engine = ferry_service::EngineConfig::new(
        vec![common::plugin_dir()],
        None,
        ferry_state::secrets::random_key(),
    );
    let (app, stacks) =
        common::bare_app_of(ferry_service::Ferry::new(store, 1 << 20).with_engine(engine), true)
            .await;
    let mut tokens = std::collections::HashMap::new();
    for (name, role) in [
        ("admin", Role::Admin),
        ("pat", Role::Planner),
        ("ann", Role::Approver),
        ("amy", Role::Approver),
        ("cid", Role::Committer),
        ("vic", Role::Viewer),
    ] {
        tokens.insert(name, common::token_for(&stacks, name, "ferry", role).await);
    }
    tokens.insert("out", common::token_for(&stacks, "out", "other", Role::Admin).await);
    // Pam plans and approves (an author who may not approve her own plans).
    let pam = stacks.accounts().grant("pam", "ferry", Role::Planner).await.unwrap();
    stacks.accounts().grant("pam", "ferry", Role::Approver).await.unwrap();
    tokens.insert(
        "pam-planner",
        stacks
            .accounts()
            .issue_api_token(&pam.id, "p", "ferry", Role::Planner, 3600)
            .await
            .unwrap()
            .token
            .unwrap(),
    );
    tokens.insert(
        "pam",
        stacks
            .accounts()
            .issue_api_token(&pam.id, "a", "ferry", Role::Approver, 3600)
            .await
            .unwrap()
            .token
            .unwrap(),
    );
    let mut team = Team { app, tokens, stack: String::new() };
    let stacks = team.get("admin", "/api/v1/stacks").await;
    team.stack = stacks[0]["id"].as_str().unwrap().to_string();
    team
}

#[tokio::test]
async fn a_plan_moves_through_its_states_as_things_happen() {
    let team = team().await;
    let stack = team.stack.clone();
    let (status, _) = team
        .call(
            "admin",
            Method::PUT,
            &format!("/api/v1/stacks/{stack}/settings"),
            json!({"required_approvals": 1}),
        )
        .await;
    assert_eq!(status, StatusCode::OK);

    // A draft until its latest revision is previewed.
    let plan = team.plan("pat", "Import n", "5,1,10").await;
    assert_eq!(team.state(&plan).await, "draft");
    assert_eq!(
        blockers(&team.get("vic", &format!("/api/v1/plans/{plan}/status")).await),
        ["no-preview"]
    );
    let first = team.preview("pat", &plan).await;
    let status = team.status(&plan).await;
    assert_eq!(status["state"], "previewed", "{status}");
    assert_eq!((status["revision"].clone(), status["preview"].clone()), (json!(1), json!(first)));
    assert_eq!(
        status["counts"],
        json!({"ready": 1}),
        "the preview's resources by status: {status}"
    );
    assert_eq!(
        (status["approvals"].clone(), status["required_approvals"].clone()),
        (json!(0), json!(1))
    );
    assert_eq!(blockers(&status), ["approvals-missing"], "{status}");

    // A reviewer asks for changes to what they reviewed: it blocks the commit, naming them.
    let ask = |revision: i64, preview: &str| json!({"revision": revision, "preview": preview, "body": "Use the production range"});
    let (status, stale) = team
        .call("ann", Method::POST, &format!("/api/v1/plans/{plan}/change-requests"), ask(2, &first))
        .await;
    assert_eq!(
        status,
        StatusCode::CONFLICT,
        "a request names what was reviewed, and it must be the latest: {stale}"
    );
    let (status, asked) = team
        .call("ann", Method::POST, &format!("/api/v1/plans/{plan}/change-requests"), ask(1, &first))
        .await;
    assert_eq!(status, StatusCode::OK, "{asked}");
    assert_eq!(
        (asked["state"].clone(), asked["changes_requested_by"].clone()),
        (json!("changes-requested"), json!(["ann"]))
    );
    let (status, _) = team
        .call(
            "pam-planner",
            Method::POST,
            &format!("/api/v1/plans/{plan}/change-requests"),
            ask(1, &first),
        )
        .await;
    assert_eq!(status, StatusCode::FORBIDDEN, "planners do not review");
    // Approved or not, a standing request refuses the commit.
    let (status, _) = team
        .call(
            "amy",
            Method::POST,
            &format!("/api/v1/plans/{plan}/approvals"),
            json!({"revision": 1, "preview": first}),
        )
        .await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(
        team.state(&plan).await,
        "changes-requested",
        "approvals do not answer a request for changes"
    );
    let (status, refused) = team
        .call("cid", Method::POST, &format!("/api/v1/previews/{first}/commit"), Value::Null)
        .await;
    assert_eq!(status, StatusCode::CONFLICT, "{refused}");
    assert!(
        refused["error"]["message"].as_str().unwrap().contains("`ann` requested changes"),
        "{refused}"
    );
    assert_eq!(
        blockers(&team.status(&plan).await),
        ["changes-requested"],
        "approved, and still asked for changes"
    );
    let requests = team.get("vic", &format!("/api/v1/plans/{plan}/change-requests")).await;
    assert_eq!(
        (requests[0]["reviewer"].clone(), requests[0]["body"].clone()),
        (json!("ann"), json!("Use the production range"))
    );

    // Only the reviewer (or an administrator) withdraws it; withdrawn, the approval counts.
    let (status, _) = team
        .call(
            "amy",
            Method::DELETE,
            &format!("/api/v1/plans/{plan}/change-requests/ann"),
            Value::Null,
        )
        .await;
    assert_eq!(status, StatusCode::FORBIDDEN, "another reviewer does not withdraw ann's request");
    let (status, withdrawn) = team
        .call(
            "ann",
            Method::DELETE,
            &format!("/api/v1/plans/{plan}/change-requests/ann"),
            Value::Null,
        )
        .await;
    assert_eq!(status, StatusCode::OK, "{withdrawn}");
    assert_eq!(withdrawn["state"], "approved", "amy's approval meets the rule: {withdrawn}");
    let (status, _) = team
        .call(
            "ann",
            Method::DELETE,
            &format!("/api/v1/plans/{plan}/change-requests/ann"),
            Value::Null,
        )
        .await;
    assert_eq!(status, StatusCode::CONFLICT, "nothing left to withdraw");

    // Asked again, the request lasts through a new revision until that revision is previewed.
    let (status, _) = team
        .call("ann", Method::POST, &format!("/api/v1/plans/{plan}/change-requests"), ask(1, &first))
        .await;
    assert_eq!(status, StatusCode::OK);
    let (status, _) = team
        .call(
            "pat",
            Method::POST,
            &format!("/api/v1/plans/{plan}/revisions"),
            json!({"spec": spec("7,1,10")}),
        )
        .await;
    assert_eq!(status, StatusCode::CREATED);
    let status = team.status(&plan).await;
    assert_eq!(
        (status["state"].clone(), status["revision"].clone()),
        (json!("draft"), json!(2)),
        "{status}"
    );
    assert_eq!(
        status["changes_requested_by"],
        json!(["ann"]),
        "still asked, until revision 2 is previewed"
    );
    let second = team.preview("pat", &plan).await;
    let status = team.status(&plan).await;
    assert_eq!(
        (status["state"].clone(), status["changes_requested_by"].clone()),
        (json!("previewed"), json!([])),
        "{status}"
    );

    // Approved once the rule is met; the rule's change moves it back and forth.
    let (status, _) = team
        .call(
            "ann",
            Method::POST,
            &format!("/api/v1/plans/{plan}/approvals"),
            json!({"revision": 2, "preview": second}),
        )
        .await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(team.state(&plan).await, "approved");
    team.call(
        "admin",
        Method::PUT,
        &format!("/api/v1/stacks/{stack}/settings"),
        json!({"required_approvals": 2}),
    )
    .await;
    assert_eq!(team.state(&plan).await, "previewed", "one approval of two");
    team.call(
        "admin",
        Method::PUT,
        &format!("/api/v1/stacks/{stack}/settings"),
        json!({"required_approvals": 1}),
    )
    .await;
    assert_eq!(team.state(&plan).await, "approved");
    assert_eq!(
        blockers(&team.status(&plan).await),
        Vec::<&str>::new(),
        "nothing keeps the commit back"
    );
    // Another plan previewed now will be stale once this one commits.
    let stale = team.plan("pat", "Stale", "8,1,10").await;
    team.preview("pat", &stale).await;

    // Committed, with the version it made; the stack's version links back to the plan.
    let (status, committed) = team
        .call("cid", Method::POST, &format!("/api/v1/previews/{second}/commit"), Value::Null)
        .await;
    assert_eq!(status, StatusCode::CREATED, "{committed}");
    let status = team.status(&plan).await;
    assert_eq!(
        (status["state"].clone(), status["committed_version"].clone()),
        (json!("committed"), committed["version"].clone()),
        "{status}"
    );
    let versions = team.get("vic", &format!("/api/v1/stacks/{stack}/versions")).await;
    assert_eq!(versions[0]["version"], committed["version"]);
    assert_eq!(versions[0]["plan_id"], json!(plan), "the version names its plan: {versions}");
    assert_eq!(versions[1].get("plan_id"), None, "the demo's first version came from no plan");
    assert_eq!(blockers(&team.status(&plan).await), Vec::<&str>::new());
    let (status, _) =
        team.call("pat", Method::POST, &format!("/api/v1/plans/{plan}/close"), Value::Null).await;
    assert_eq!(status, StatusCode::CONFLICT, "a committed plan stays committed");
    assert_eq!(
        blockers(&team.status(&stale).await),
        ["stale-preview", "approvals-missing"],
        "the stack moved on since its preview"
    );

    // Closed by its author or an administrator, never by another planner; reopened, it is what
    // its history makes it.
    let other = team.plan("pat", "Another", "9,1,10").await;
    let (status, _) = team
        .call("pam-planner", Method::POST, &format!("/api/v1/plans/{other}/close"), Value::Null)
        .await;
    assert_eq!(status, StatusCode::FORBIDDEN, "pam did not write it");
    let (status, closed) =
        team.call("pat", Method::POST, &format!("/api/v1/plans/{other}/close"), Value::Null).await;
    assert_eq!(status, StatusCode::OK, "{closed}");
    assert_eq!(
        (closed["state"].clone(), closed["closed_by"].clone()),
        (json!("closed"), json!("pat"))
    );
    let third = team.preview("pat", &other).await;
    assert_eq!(team.state(&other).await, "closed", "a preview does not reopen a closed plan");
    assert!(blockers(&team.status(&other).await).contains(&"closed"));
    let (status, refused) = team
        .call("cid", Method::POST, &format!("/api/v1/previews/{third}/commit"), Value::Null)
        .await;
    assert_eq!(status, StatusCode::CONFLICT, "a closed plan's preview is not committed: {refused}");
    let (status, reopened) = team
        .call("admin", Method::POST, &format!("/api/v1/plans/{other}/reopen"), Value::Null)
        .await;
    assert_eq!(status, StatusCode::OK, "{reopened}");
    assert_eq!(
        (reopened["state"].clone(), reopened["closed_by"].clone()),
        (json!("previewed"), Value::Null)
    );
    let (status, _) = team
        .call("admin", Method::POST, &format!("/api/v1/plans/{other}/reopen"), Value::Null)
        .await;
    assert_eq!(status, StatusCode::CONFLICT, "only a closed plan reopens");

    // The plan's timeline records each step.
    let activity = team.get("vic", &format!("/api/v1/plans/{plan}/activity")).await;
    let actions: Vec<&str> =
        activity.as_array().unwrap().iter().map(|r| r["action"].as_str().unwrap()).collect();
    for action in ["plan.request-changes", "plan.change-request.withdraw", "preview.commit"] {
        assert!(actions.contains(&action), "{action} in {actions:?}");
    }
}

#[tokio::test]
async fn lists_filter_page_and_keep_to_the_callers_organisations() {
    let team = team().await;
    let stack = team.stack.clone();
    // Pat's three plans (one previewed, one approved, one closed), Pam's one (previewed), and
    // the other organisation's one.
    let drafted = team.plan("pat", "pat draft", "1,1,10").await;
    let previewed = team.plan("pat", "pat previewed", "2,1,10").await;
    team.preview("pat", &previewed).await;
    let approved = team.plan("pat", "pat approved", "3,1,10").await;
    let preview = team.preview("pat", &approved).await;
    team.call(
        "ann",
        Method::POST,
        &format!("/api/v1/plans/{approved}/approvals"),
        json!({"revision": 1, "preview": preview}),
    )
    .await;
    let closed = team.plan("pat", "pat closed", "4,1,10").await;
    team.call("pat", Method::POST, &format!("/api/v1/plans/{closed}/close"), Value::Null).await;
    let pams = team.plan("pam-planner", "pam previewed", "6,1,10").await;
    team.preview("pam-planner", &pams).await;
    let (status, upload) = team
        .call(
            "out",
            Method::POST,
            "/api/v1/stacks?name=other/app/dev",
            json!({"version": 3, "deployment": {"resources": []}}),
        )
        .await;
    assert_eq!(status, StatusCode::CREATED, "{upload}");
    let (status, _) = team
        .call(
            "out",
            Method::POST,
            &format!("/api/v1/stacks/{}/plans", upload["id"].as_str().unwrap()),
            json!({"title": "other's", "spec": spec("8,1,10")}),
        )
        .await;
    assert_eq!(status, StatusCode::CREATED);

    let mine = ["pam previewed", "pat approved", "pat closed", "pat draft", "pat previewed"];
    assert_eq!(
        team.titles("vic", "").await,
        mine,
        "a viewer reads the organisation's plans, none of another's"
    );
    assert_eq!(
        team.titles("out", "").await,
        ["other's"],
        "and the other organisation's admin only theirs"
    );
    assert_eq!(
        team.titles("vic", "org=other").await,
        Vec::<String>::new(),
        "asking for another organisation finds nothing"
    );
    assert_eq!(team.titles("vic", &format!("stack={stack}")).await, mine);
    assert_eq!(
        team.get("vic", &format!("/api/v1/stacks/{stack}/plans")).await["plans"]
            .as_array()
            .unwrap()
            .len(),
        5,
        "the stack's own list"
    );
    assert_eq!(team.titles("vic", "state=previewed").await, ["pam previewed", "pat previewed"]);
    assert_eq!(team.titles("vic", "state=draft,closed").await, ["pat closed", "pat draft"]);
    assert_eq!(
        team.titles("vic", "state=open").await,
        ["pam previewed", "pat approved", "pat draft", "pat previewed"]
    );
    assert_eq!(team.titles("vic", "author=pam").await, ["pam previewed"]);

    // Waiting for a review: previewed, not approved by the caller, not the caller's own.
    assert_eq!(team.titles("ann", "awaiting=me").await, ["pam previewed", "pat previewed"]);
    assert_eq!(
        team.titles("pam", "awaiting=me").await,
        ["pat previewed"],
        "pam's own plan does not wait for her"
    );
    assert_eq!(
        team.titles("vic", "awaiting=me").await,
        Vec::<String>::new(),
        "a viewer approves nothing"
    );
    assert_eq!(
        team.titles("out", "awaiting=me").await,
        Vec::<String>::new(),
        "nor does another organisation's admin"
    );
    team.call(
        "ann",
        Method::POST,
        &format!("/api/v1/plans/{previewed}/approvals"),
        json!({"revision": 1, "preview": team.status(&previewed).await["preview"]}),
    )
    .await;
    assert_eq!(
        team.titles("amy", "awaiting=me").await,
        ["pam previewed"],
        "approved plans wait for nobody"
    );
    team.call(
        "admin",
        Method::PUT,
        &format!("/api/v1/stacks/{stack}/settings"),
        json!({"required_approvals": 0, "author_may_approve": true}),
    )
    .await;
    assert_eq!(
        team.titles("pam", "awaiting=me").await,
        ["pam previewed"],
        "where authors may approve, her own plan waits for her too"
    );

    // Rows say what a person decides by; newest activity first, each once across pages.
    let rows = team.list_all("vic", "", 2).await;
    let ids: Vec<&str> = rows.iter().map(|r| r["id"].as_str().unwrap()).collect();
    let mut unique = ids.clone();
    unique.sort();
    unique.dedup();
    assert_eq!((ids.len(), unique.len()), (5, 5), "every plan once: {ids:?}");
    let times: Vec<&str> = rows.iter().map(|r| r["last_activity_at"].as_str().unwrap()).collect();
    assert!(times.windows(2).all(|w| w[0] >= w[1]), "newest first: {times:?}");
    assert_eq!(ids[0], previewed, "the last approved plan moved to the top");
    let row = rows.iter().find(|r| r["id"] == json!(approved)).unwrap();
    assert_eq!(
        (
            row["stack"].clone(),
            row["org"].clone(),
            row["author"].clone(),
            row["state"].clone(),
            row["revision"].clone()
        ),
        (json!("ferry/demo/dev"), json!("ferry"), json!("pat"), json!("approved"), json!(1)),
        "{row}"
    );
    assert_eq!(
        (row["counts"].clone(), row["approvals"].clone()),
        (json!({"ready": 1}), json!(1)),
        "{row}"
    );
    assert!(rows.iter().any(|r| r["id"] == json!(drafted) && r["preview"].is_null()));

    // Bad filters are named.
    let (status, bad) =
        team.call("vic", Method::GET, "/api/v1/plans?state=merged", Value::Null).await;
    assert_eq!(status, StatusCode::BAD_REQUEST, "{bad}");
    assert!(bad["error"]["message"].as_str().unwrap().contains("`state=merged`"), "{bad}");
    let (status, bad) =
        team.call("vic", Method::GET, "/api/v1/plans?cursor=nonsense", Value::Null).await;
    assert_eq!(status, StatusCode::BAD_REQUEST, "{bad}");
    let (status, _) =
        team.call("vic", Method::GET, "/api/v1/plans?awaiting=you", Value::Null).await;
    assert_eq!(status, StatusCode::BAD_REQUEST);
    let (status, _) = common::call(&team.app, common::get("/api/v1/plans")).await;
    assert_eq!(status, StatusCode::UNAUTHORIZED, "lists are for signed-in users");
    let (status, _) =
        team.call("out", Method::GET, &format!("/api/v1/stacks/{stack}/plans"), Value::Null).await;
    assert_eq!(status, StatusCode::FORBIDDEN, "another organisation's stack's plans");
}

/// Viewed marks are each reviewer's own, count against the preview the page shows, and hold
/// while a resource's result stays the same: a later revision's preview that leaves a resource
/// as it was keeps it viewed, one that changes it (another ID, other values) does not.
#[tokio::test]
async fn viewed_marks_are_a_reviewers_own_and_reset_when_a_result_changes() {
    let team = team().await;
    let two = |a: &str, b: &str| {
        json!({"resources": [
            {"type": "random:index/randomInteger:RandomInteger", "name": "a", "id": a},
            {"type": "random:index/randomInteger:RandomInteger", "name": "b", "id": b},
        ]})
        .to_string()
    };
    let (status, plan) = team
        .call(
            "pat",
            Method::POST,
            &format!("/api/v1/stacks/{}/plans", team.stack),
            json!({"title": "Two", "spec": two("5,1,10", "6,1,10")}),
        )
        .await;
    assert_eq!(status, StatusCode::CREATED, "{plan}");
    let plan = plan["id"].as_str().unwrap().to_string();
    let first = team.preview("pat", &plan).await;
    let rows = team.get("ann", &format!("/api/v1/previews/{first}/results")).await;
    let urn = |name: &str| {
        rows["rows"].as_array().unwrap().iter().find(|r| r["name"] == name).unwrap()["urn"]
            .as_str()
            .unwrap()
            .to_string()
    };
    let (a, b) = (urn("a"), urn("b"));
    let team = &team;
    let viewed = |who: &'static str, preview: String| async move {
        team.get(who, &format!("/api/v1/previews/{preview}/viewed")).await
    };
    assert_eq!(viewed("ann", first.clone()).await, json!({"viewed": [], "total": 2}));

    // Marked by ann: hers, not amy's.
    let mark = |who: &'static str, preview: String, urn: String, on: bool| async move {
        team.call(
            who,
            Method::PUT,
            &format!("/api/v1/previews/{preview}/viewed"),
            json!({"urn": urn, "viewed": on}),
        )
        .await
    };
    let (status, answer) = mark("ann", first.clone(), a.clone(), true).await;
    assert_eq!(
        (status, answer),
        (StatusCode::OK, json!({"urn": a, "viewed": true, "count": 1, "total": 2})),
        "the mark and a count, not the list"
    );
    let (status, _) = mark("ann", first.clone(), b.clone(), true).await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(viewed("ann", first.clone()).await["viewed"], json!([a, b]), "in URN order");
    assert_eq!(
        viewed("amy", first.clone()).await["viewed"],
        json!([]),
        "another reviewer's marks are their own"
    );

    // What does not fit is refused, naming it; other organisations do not see the preview.
    let (status, wrong) = mark(
        "ann",
        first.clone(),
        "urn:pulumi:dev::p::random:index/randomInteger:RandomInteger::nope".into(),
        true,
    )
    .await;
    assert_eq!(status, StatusCode::BAD_REQUEST, "{wrong}");
    assert!(wrong["error"]["message"].as_str().unwrap().contains("::nope"), "{wrong}");
    let (status, _) = team
        .call("out", Method::GET, &format!("/api/v1/previews/{first}/viewed"), Value::Null)
        .await;
    assert!(
        status == StatusCode::NOT_FOUND || status == StatusCode::FORBIDDEN,
        "another organisation: {status}"
    );
    let (status, _) = mark("out", first.clone(), a.clone(), true).await;
    assert!(
        status == StatusCode::NOT_FOUND || status == StatusCode::FORBIDDEN,
        "another organisation: {status}"
    );

    // Revision 2 changes b's ID only: a is still viewed, b asks to be looked at again.
    let (status, _) = team
        .call(
            "pat",
            Method::POST,
            &format!("/api/v1/plans/{plan}/revisions"),
            json!({"spec": two("5,1,10", "7,1,10")}),
        )
        .await;
    assert_eq!(status, StatusCode::CREATED);
    let second = team.preview("pat", &plan).await;
    assert_eq!(
        viewed("ann", second.clone()).await,
        json!({"viewed": [a], "total": 2}),
        "only the unchanged resource stays viewed"
    );
    assert_eq!(
        viewed("ann", first.clone()).await["viewed"],
        json!([a, b]),
        "the older preview still shows what ann saw there"
    );

    // Taken off, and marked again on the new result.
    let (status, answer) = mark("ann", second.clone(), a.clone(), false).await;
    assert_eq!((status, answer["count"].clone()), (StatusCode::OK, json!(0)));
    let (_, answer) = mark("ann", second.clone(), b.clone(), true).await;
    assert_eq!(answer["count"], json!(1));
    assert_eq!(viewed("ann", second.clone()).await["viewed"], json!([b]));
    assert_eq!(
        viewed("ann", first.clone()).await["viewed"],
        json!([]),
        "b's mark is on its new result now, a's is off"
    );
}

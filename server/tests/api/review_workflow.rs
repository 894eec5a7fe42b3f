//! Review as a workflow over the API: comments in threads, approvals of one revision's preview
//! that a new revision clears, the stack's approval rule at commit, the plan's timeline, and
//! the organisation's switch for read-only links.

use crate::common;

use axum::body::Body;
use axum::http::{header, Method, Request, StatusCode};
use axum::Router;
use ferry_service::access::Role;
use serde_json::{json, Value};

struct Team {
    app: Router,
    tokens: std::collections::HashMap<&'static str, String>,
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
        ("cid", Role::Committer),
        ("vic", Role::Viewer),
    ] {
        tokens.insert(name, common::token_for(&stacks, name, "ferry", role).await);
    }
    // Pam plans and approves.
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
        "pam-approver",
        stacks
            .accounts()
            .issue_api_token(&pam.id, "a", "ferry", Role::Approver, 3600)
            .await
            .unwrap()
            .token
            .unwrap(),
    );
    Team { app, tokens }
}

fn spec(id: &str) -> String {
    json!({"resources": [{"type": "random:index/randomInteger:RandomInteger", "name": "n", "id": id}]}).to_string()
}

/// Previews the plan's latest revision as `who`; the preview's ID.
async fn preview(team: &Team, who: &str, plan: &str) -> String {
    let admin = common::as_caller(team.app.clone(), team.tokens[who].clone());
    common::plan_preview(&admin, plan).await.0
}

#[tokio::test]
async fn approvals_gate_commits_and_a_new_revision_clears_them() {
    let team = team().await;
    let (_, stacks) = team.call("admin", Method::GET, "/api/v1/stacks", Value::Null).await;
    let stack = stacks[0]["id"].as_str().unwrap().to_string();
    let (status, settings) = team
        .call(
            "admin",
            Method::PUT,
            &format!("/api/v1/stacks/{stack}/settings"),
            json!({"required_approvals": 1}),
        )
        .await;
    assert_eq!(status, StatusCode::OK, "{settings}");
    assert_eq!(settings, json!({"required_approvals": 1, "author_may_approve": false}));
    let (status, _) = team
        .call(
            "pat",
            Method::PUT,
            &format!("/api/v1/stacks/{stack}/settings"),
            json!({"required_approvals": 0}),
        )
        .await;
    assert_eq!(status, StatusCode::FORBIDDEN, "only admins change the rule");
    let (_, audit) = team.call("admin", Method::GET, "/api/v1/orgs/ferry/audit", Value::Null).await;
    assert!(
        audit.as_array().unwrap().iter().any(|r| r["actor"] == "pat"
            && r["action"] == "stack.settings"
            && r["outcome"] == "denied (403)"),
        "a refusal is in the log of the organisation it protected: {audit}"
    );

    // The planner creates and previews a plan.
    let (status, plan) = team
        .call(
            "pat",
            Method::POST,
            &format!("/api/v1/stacks/{stack}/plans"),
            json!({"spec": spec("5,1,10")}),
        )
        .await;
    assert_eq!(status, StatusCode::CREATED, "{plan}");
    let plan = plan["id"].as_str().unwrap().to_string();
    let first = preview(&team, "pat", &plan).await;

    // Without an approval the commit is refused, with the reason.
    let (status, refused) = team
        .call("cid", Method::POST, &format!("/api/v1/previews/{first}/commit"), Value::Null)
        .await;
    assert_eq!(status, StatusCode::CONFLICT, "{refused}");
    assert_eq!(refused["error"]["code"], "approval_required");
    assert!(
        refused["error"]["message"].as_str().unwrap().contains("has 0 of the 1 approvals"),
        "{refused}"
    );

    // The approver comments on a property of the resource, and approves what they saw.
    let urn = "urn:pulumi:dev::demo::random:index/randomInteger:RandomInteger::n";
    let (status, comment) = team
        .call(
            "ann",
            Method::POST,
            &format!("/api/v1/plans/{plan}/comments"),
            json!({"revision": 1, "urn": urn, "path": "max", "body": "Is 10 right?"}),
        )
        .await;
    assert_eq!(status, StatusCode::CREATED, "{comment}");
    let (status, _) = team
        .call(
            "vic",
            Method::POST,
            &format!("/api/v1/plans/{plan}/comments"),
            json!({"revision": 1, "urn": urn, "body": "me too"}),
        )
        .await;
    assert_eq!(status, StatusCode::FORBIDDEN, "viewers read comments, they do not write them");
    let (status, reply) = team
        .call(
            "pat",
            Method::POST,
            &format!("/api/v1/plans/{plan}/comments"),
            json!({"revision": 1, "urn": urn, "parent": comment["id"], "body": "Yes: it is what exists."}),
        )
        .await;
    assert_eq!(status, StatusCode::CREATED, "{reply}");
    assert_eq!(reply["parent_id"], comment["id"]);
    let (status, resolved) = team
        .call(
            "ann",
            Method::POST,
            &format!("/api/v1/plans/{plan}/comments/{}/resolve", reply["id"].as_str().unwrap()),
            json!({}),
        )
        .await;
    assert_eq!(status, StatusCode::OK, "{resolved}");
    assert_eq!(
        (resolved["id"].clone(), resolved["resolved_by"].clone()),
        (comment["id"].clone(), json!("ann")),
        "resolving a reply resolves its thread"
    );
    let (_, thread) = team
        .call("vic", Method::GET, &format!("/api/v1/plans/{plan}/comments?revision=1"), Value::Null)
        .await;
    assert_eq!(thread.as_array().unwrap().len(), 2);
    assert_eq!(thread[0]["path"], "max");

    let (status, state) = team
        .call(
            "ann",
            Method::POST,
            &format!("/api/v1/plans/{plan}/approvals"),
            json!({"revision": 1, "preview": first}),
        )
        .await;
    assert_eq!(status, StatusCode::OK, "{state}");
    assert_eq!(state["satisfied"], true, "{state}");
    assert_eq!(state["approvals"][0]["approver"], "ann");

    // The planner revises: the approval stays with revision 1, and the new preview needs its own.
    let (status, _) = team
        .call(
            "pat",
            Method::POST,
            &format!("/api/v1/plans/{plan}/revisions"),
            json!({"spec": spec("7,1,10")}),
        )
        .await;
    assert_eq!(status, StatusCode::CREATED);
    let (_, state) = team
        .call("vic", Method::GET, &format!("/api/v1/plans/{plan}/approvals"), Value::Null)
        .await;
    assert_eq!(
        (state["revision"].clone(), state["satisfied"].clone(), state["approvals"].clone()),
        (json!(2), json!(false), json!([])),
        "{state}"
    );
    let second = preview(&team, "pat", &plan).await;
    let (status, refused) = team
        .call("cid", Method::POST, &format!("/api/v1/previews/{first}/commit"), Value::Null)
        .await;
    assert_eq!(
        status,
        StatusCode::CONFLICT,
        "the approved preview is no longer the plan's latest: {refused}"
    );
    let (status, stale) = team
        .call(
            "ann",
            Method::POST,
            &format!("/api/v1/plans/{plan}/approvals"),
            json!({"revision": 1, "preview": first}),
        )
        .await;
    assert_eq!(
        status,
        StatusCode::CONFLICT,
        "an approval never lands on something newer than what was reviewed: {stale}"
    );
    let (status, _) = team
        .call(
            "ann",
            Method::POST,
            &format!("/api/v1/plans/{plan}/approvals"),
            json!({"revision": 2, "preview": second}),
        )
        .await;
    assert_eq!(status, StatusCode::OK);
    let (status, _) = team
        .call("pat", Method::POST, &format!("/api/v1/previews/{second}/commit"), Value::Null)
        .await;
    assert_eq!(status, StatusCode::FORBIDDEN, "planners do not commit");
    let (status, committed) = team
        .call("cid", Method::POST, &format!("/api/v1/previews/{second}/commit"), Value::Null)
        .await;
    assert_eq!(status, StatusCode::CREATED, "{committed}");

    // The timeline says who did what, in order.
    let (_, activity) =
        team.call("vic", Method::GET, &format!("/api/v1/plans/{plan}/activity"), Value::Null).await;
    let steps: Vec<String> = activity
        .as_array()
        .unwrap()
        .iter()
        .map(|r| format!("{} {}", r["actor"].as_str().unwrap(), r["action"].as_str().unwrap()))
        .collect();
    assert_eq!(
        steps,
        [
            "pat plan.create",
            "pat plan.preview",
            "ann comment.add",
            "pat comment.add",
            "ann comment.resolve",
            "ann plan.approve",
            "pat plan.revise",
            "pat plan.preview",
            "ann plan.approve",
            "cid preview.commit"
        ]
    );
}

#[tokio::test]
async fn authors_approve_their_own_plans_only_where_the_stack_allows() {
    let team = team().await;
    let (_, stacks) = team.call("admin", Method::GET, "/api/v1/stacks", Value::Null).await;
    let stack = stacks[0]["id"].as_str().unwrap().to_string();
    team.call(
        "admin",
        Method::PUT,
        &format!("/api/v1/stacks/{stack}/settings"),
        json!({"required_approvals": 1}),
    )
    .await;
    let (_, plan) = team
        .call(
            "pam-planner",
            Method::POST,
            &format!("/api/v1/stacks/{stack}/plans"),
            json!({"spec": spec("5,1,10")}),
        )
        .await;
    let plan = plan["id"].as_str().unwrap().to_string();
    let first = preview(&team, "pam-planner", &plan).await;
    let (status, refused) = team
        .call(
            "pam-approver",
            Method::POST,
            &format!("/api/v1/plans/{plan}/approvals"),
            json!({"revision": 1, "preview": first}),
        )
        .await;
    assert_eq!(status, StatusCode::FORBIDDEN, "{refused}");
    assert!(refused["error"]["message"].as_str().unwrap().contains("wrote this plan"), "{refused}");
    team.call(
        "admin",
        Method::PUT,
        &format!("/api/v1/stacks/{stack}/settings"),
        json!({"required_approvals": 1, "author_may_approve": true}),
    )
    .await;
    let (status, state) = team
        .call(
            "pam-approver",
            Method::POST,
            &format!("/api/v1/plans/{plan}/approvals"),
            json!({"revision": 1, "preview": first}),
        )
        .await;
    assert_eq!((status, state["satisfied"].clone()), (StatusCode::OK, json!(true)));
}

#[tokio::test]
async fn an_organisation_can_turn_read_only_links_off_and_links_expire() {
    let team = team().await;
    let (_, stacks) = team.call("admin", Method::GET, "/api/v1/stacks", Value::Null).await;
    let stack = stacks[0]["id"].as_str().unwrap().to_string();
    let (_, plan) = team
        .call(
            "pat",
            Method::POST,
            &format!("/api/v1/stacks/{stack}/plans"),
            json!({"spec": spec("5,1,10")}),
        )
        .await;
    let plan = plan["id"].as_str().unwrap().to_string();
    let (status, share) =
        team.call("pat", Method::POST, &format!("/api/v1/plans/{plan}/shares"), Value::Null).await;
    assert_eq!(status, StatusCode::CREATED, "{share}");
    assert!(
        share["expires_at"].as_str().unwrap() > share["created_at"].as_str().unwrap(),
        "{share}"
    );
    let token = share["token"].as_str().unwrap();
    let anonymous =
        |uri: String| common::call(&team.app, Request::get(uri).body(Body::empty()).unwrap());
    assert_eq!(anonymous(format!("/api/v1/shared/{token}")).await.0, StatusCode::OK);

    let (status, settings) = team
        .call(
            "admin",
            Method::PUT,
            "/api/v1/orgs/ferry/settings",
            json!({"share_links": false, "share_link_days": 7}),
        )
        .await;
    assert_eq!(status, StatusCode::OK, "{settings}");
    assert_eq!(
        anonymous(format!("/api/v1/shared/{token}")).await.0,
        StatusCode::NOT_FOUND,
        "links stop working"
    );
    let (status, refused) =
        team.call("pat", Method::POST, &format!("/api/v1/plans/{plan}/shares"), Value::Null).await;
    assert_eq!(status, StatusCode::FORBIDDEN, "{refused}");
    team.call(
        "admin",
        Method::PUT,
        "/api/v1/orgs/ferry/settings",
        json!({"share_links": true, "share_link_days": 7}),
    )
    .await;
    assert_eq!(
        anonymous(format!("/api/v1/shared/{token}")).await.0,
        StatusCode::OK,
        "and work again"
    );
    let (status, bad) = team
        .call(
            "admin",
            Method::PUT,
            "/api/v1/orgs/ferry/settings",
            json!({"share_links": true, "share_link_days": 0}),
        )
        .await;
    assert_eq!(status, StatusCode::BAD_REQUEST, "{bad}");
}

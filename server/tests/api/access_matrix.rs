//! The access matrix: every route the router was built with (its own table, so a new route
//! cannot be missed), tried by every kind of caller, against the decision this test expects for
//! it. An allowed cell must get the route's own success status (each route is called with what
//! it needs to succeed, on objects made fresh for the call where the call uses them up), and a
//! denied cell its refusal. The holder of a read-only link presents its token every way a client
//! could (as a bearer token, as the session cookie, in place of every ID, in the query): it opens
//! the shared views and nothing else. A route in the router that this test does not know fails
//! it, and so does a route added to the router without a decision (refused, fail-closed).

use crate::common;

use std::collections::BTreeMap;
use std::sync::Arc;

use axum::body::Body;
use axum::http::{header, Method, Request, StatusCode};
use axum::Router;
use ferry_service::access::Role;
use ferry_service::Ferry;
use ferry_store::accounts::SessionMethod;
use http_body_util::BodyExt;
use serde_json::{json, Value};
use tower::ServiceExt;

/// A program to identify (and make choices for): two resources, one of them skipped.
const IDENTIFIED: &str = "name: matrix\nruntime: yaml\nresources:\n  a:\n    type: random:RandomPet\n  b:\n    type: random:RandomPet\n";

/// What a route needs, as this test (not the server) says it.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Need {
    /// Anyone.
    Anyone,
    /// Any signed-in user.
    SignedIn,
    /// A signed-in user's browser session, never an API token (managing credentials).
    Session,
    /// A page: signed-in users; others are sent to sign in.
    Page,
    /// A page of an object: its organisation's members; others are sent to sign in.
    PageOf,
    /// A read-only link: anyone with its token; never a write.
    Link,
    /// This role in the object's organisation.
    Role(Role),
    /// This role in the organisation, from a browser session, never an API token (what makes
    /// accounts: invitations).
    SessionRole(Role),
    /// Accepting an invitation: anyone without credentials (making an account) or a session
    /// (joining as themselves); never an API token.
    Accept,
    /// Taking part in review: planner, approver or committer in the object's organisation.
    Review,
}

/// Each route's need and the status it answers when it does what it is for.
fn expected_needs() -> BTreeMap<(&'static str, &'static str), (Need, u16)> {
    use Need::{Accept, Anyone, Link, Page, PageOf, Review, Session, SessionRole, SignedIn};
    use Role::{Admin, Approver, Committer, Planner, Viewer};
    #[allow(non_snake_case)]
    let Role = Need::Role;
    let table = [
        ("POST", "/auth/login", Anyone, 200),
        ("POST", "/auth/logout", Anyone, 303),
        ("GET", "/auth/link/{token}", Anyone, 303),
        // This world has no OpenID Provider: the routes say so (404 `not configured`).
        ("GET", "/auth/oidc/login", Anyone, 404),
        ("GET", "/auth/oidc/callback", Anyone, 404),
        ("GET", "/api/v1/openapi.json", Anyone, 200),
        ("GET", "/api/v1/me", SignedIn, 200),
        ("POST", "/api/v1/me/password", Session, 200),
        ("POST", "/api/v1/me/sessions/revoke", SignedIn, 200),
        ("GET", "/api/v1/me/tokens", SignedIn, 200),
        ("POST", "/api/v1/me/tokens", Session, 201),
        // A token may revoke itself (attacks.rs); the token here is another one.
        ("DELETE", "/api/v1/me/tokens/{id}", Session, 200),
        ("GET", "/api/v1/orgs/{org}/members", Role(Admin), 200),
        // The roles of someone already a member (newcomers are invited).
        ("PUT", "/api/v1/orgs/{org}/members/{name}", Role(Admin), 200),
        ("GET", "/api/v1/orgs/{org}/invitations", Role(Admin), 200),
        ("POST", "/api/v1/orgs/{org}/invitations", SessionRole(Admin), 201),
        ("DELETE", "/api/v1/orgs/{org}/invitations/{id}", Role(Admin), 200),
        ("GET", "/api/v1/invitations/{token}", Anyone, 200),
        ("POST", "/auth/invitations/{token}", Accept, 200),
        ("GET", "/api/v1/orgs/{org}/audit", Role(Admin), 200),
        ("GET", "/api/v1/stacks", SignedIn, 200),
        ("POST", "/api/v1/stacks", Role(Planner), 201),
        ("GET", "/api/v1/stacks/{id}", Role(Viewer), 200),
        ("GET", "/api/v1/stacks/{id}/versions", Role(Viewer), 200),
        ("GET", "/api/v1/stacks/{id}/locks", Role(Viewer), 200),
        ("GET", "/api/v1/stacks/{id}/config", Role(Viewer), 200),
        ("PUT", "/api/v1/stacks/{id}/config", Role(Planner), 200),
        ("GET", "/api/v1/stacks/{id}/export", Role(Viewer), 200),
        ("GET", "/api/v1/stacks/{id}/graph", Role(Viewer), 200),
        ("GET", "/api/v1/stacks/{id}/resources", Role(Viewer), 200),
        ("GET", "/api/v1/stacks/{id}/resource", Role(Viewer), 200),
        ("POST", "/api/v1/stacks/{id}/previews", Role(Planner), 201),
        ("POST", "/api/v1/stacks/{id}/identifications", Role(Planner), 202),
        ("GET", "/api/v1/previews/{id}", Role(Viewer), 200),
        ("POST", "/api/v1/previews/{id}/commit", Role(Committer), 201),
        ("GET", "/api/v1/previews/{id}/code", Role(Viewer), 200),
        ("POST", "/api/v1/stacks/{id}/plans", Role(Planner), 201),
        ("GET", "/api/v1/stacks/{id}/plans", Role(Viewer), 200),
        // Every organisation's plans the caller reads (none of another's: plan_lists.rs).
        ("GET", "/api/v1/plans", SignedIn, 200),
        // Its authors or an administrator: the members here did not write the plan.
        ("GET", "/api/v1/plans/{id}/status", Role(Viewer), 200),
        ("POST", "/api/v1/plans/{id}/close", Role(Admin), 200),
        ("POST", "/api/v1/plans/{id}/reopen", Role(Admin), 200),
        ("GET", "/api/v1/plans/{id}/change-requests", Role(Viewer), 200),
        ("POST", "/api/v1/plans/{id}/change-requests", Role(Approver), 200),
        // The caller's own request (an administrator may withdraw anyone's: plan_lists.rs).
        ("DELETE", "/api/v1/plans/{id}/change-requests/{reviewer}", Role(Approver), 200),
        ("GET", "/api/v1/plans/{id}", Role(Viewer), 200),
        ("POST", "/api/v1/plans/{id}/revisions", Role(Planner), 201),
        ("GET", "/api/v1/plans/{id}/revisions/{revision}", Role(Viewer), 200),
        ("POST", "/api/v1/plans/{id}/previews", Role(Planner), 202),
        ("GET", "/api/v1/plans/{id}/jobs", Role(Viewer), 200),
        ("GET", "/api/v1/plans/{id}/jobs/{job}", Role(Viewer), 200),
        ("GET", "/api/v1/plans/{id}/jobs/{job}/events", Role(Viewer), 200),
        ("POST", "/api/v1/plans/{id}/jobs/{job}/cancel", Role(Planner), 200),
        ("GET", "/api/v1/plans/{id}/shares", Role(Planner), 200),
        ("POST", "/api/v1/plans/{id}/shares", Role(Planner), 201),
        ("DELETE", "/api/v1/plans/{id}/shares/{link}", Role(Planner), 200),
        ("GET", "/api/v1/shared/{token}", Link, 200),
        ("GET", "/api/v1/shared/{token}/previews/{index}", Link, 200),
        ("GET", "/api/v1/stacks/{id}/code", Role(Viewer), 200),
        ("POST", "/api/v1/markers", SignedIn, 200),
        ("GET", "/api/v1/stacks/{id}/editor-help", Role(Viewer), 200),
        ("GET", "/api/v1/previews/{id}/results", Role(Viewer), 200),
        ("GET", "/api/v1/previews/{id}/results/resource", Role(Viewer), 200),
        ("GET", "/api/v1/previews/{id}/graph", Role(Viewer), 200),
        ("GET", "/api/v1/previews/{id}/viewed", Role(Viewer), 200),
        ("PUT", "/api/v1/previews/{id}/viewed", Role(Viewer), 200),
        ("GET", "/api/v1/shared/{token}/revisions/{revision}/previews/{index}/results", Link, 200),
        (
            "GET",
            "/api/v1/shared/{token}/revisions/{revision}/previews/{index}/results/resource",
            Link,
            200,
        ),
        ("GET", "/api/v1/shared/{token}/revisions/{revision}/previews/{index}/graph", Link, 200),
        ("GET", "/api/v1/shared/{token}/revisions/{revision}/previews/{index}/code", Link, 200),
        ("POST", "/api/v1/plans/{id}/resolutions", Role(Planner), 201),
        ("POST", "/api/v1/plans/{id}/resolutions/zero-values", Role(Planner), 201),
        ("POST", "/api/v1/plans/{id}/identifications", Role(Planner), 201),
        ("GET", "/api/v1/backends/stacks", Role(Planner), 200),
        ("POST", "/api/v1/stacks/{id}/discoveries", Role(Planner), 202),
        ("GET", "/api/v1/stacks/{id}/discoveries/types", Role(Viewer), 200),
        ("POST", "/api/v1/stacks/{id}/discoveries/probe", Role(Planner), 200),
        ("POST", "/api/v1/stacks/{id}/discoveries/plan", Role(Planner), 201),
        ("POST", "/api/v1/stacks/{id}/migrations/terraform", Role(Planner), 201),
        ("POST", "/api/v1/stacks/{id}/migrations/terraform/remote", Role(Planner), 201),
        ("GET", "/api/v1/stacks/{id}/migrations/terraform/workspaces", Role(Planner), 200),
        ("GET", "/api/v1/discoveries/{id}", Role(Viewer), 200),
        ("GET", "/api/v1/discoveries/{id}/events", Role(Viewer), 200),
        ("POST", "/api/v1/discoveries/{id}/cancel", Role(Planner), 200),
        ("GET", "/api/v1/identifications/{id}", Role(Planner), 200),
        ("GET", "/api/v1/identifications/{id}/events", Role(Planner), 200),
        ("POST", "/api/v1/identifications/{id}/cancel", Role(Planner), 200),
        ("GET", "/api/v1/plans/{id}/comments", Role(Viewer), 200),
        ("POST", "/api/v1/plans/{id}/comments", Review, 201),
        ("POST", "/api/v1/plans/{id}/comments/{comment}/resolve", Review, 200),
        ("GET", "/api/v1/shared/{token}/comments", Link, 200),
        ("GET", "/api/v1/plans/{id}/approvals", Role(Viewer), 200),
        ("POST", "/api/v1/plans/{id}/approvals", Role(Approver), 200),
        ("DELETE", "/api/v1/plans/{id}/approvals", Role(Approver), 200),
        ("GET", "/api/v1/plans/{id}/activity", Role(Viewer), 200),
        ("GET", "/api/v1/stacks/{id}/settings", Role(Viewer), 200),
        ("PUT", "/api/v1/stacks/{id}/settings", Role(Admin), 200),
        ("GET", "/api/v1/orgs/{org}/settings", Role(Admin), 200),
        ("PUT", "/api/v1/orgs/{org}/settings", Role(Admin), 200),
        ("GET", "/api/v1/orgs/{org}/webhooks", Role(Admin), 200),
        ("POST", "/api/v1/orgs/{org}/webhooks", Role(Admin), 201),
        ("DELETE", "/api/v1/orgs/{org}/webhooks/{id}", Role(Admin), 204),
        ("GET", "/api/v1/orgs/{org}/webhooks/{id}/deliveries", Role(Admin), 200),
        ("GET", "/", Page, 200),
        ("GET", "/signin", Anyone, 200),
        ("GET", "/invitations/{token}", Anyone, 200),
        ("GET", "/account", Page, 200),
        ("GET", "/stacks/{id}", PageOf, 200),
        ("GET", "/stacks/{id}/graph", PageOf, 200),
        ("GET", "/stacks/{id}/discover", PageOf, 200),
        ("GET", "/stacks/{id}/plans", PageOf, 200),
        ("GET", "/plans/{id}", PageOf, 200),
        ("GET", "/plans/{id}/r/{rev}", PageOf, 200),
        ("GET", "/shared/{token}", Link, 200),
        ("GET", "/shared/{token}/r/{rev}", Link, 200),
    ];
    table.into_iter().map(|(m, p, n, s)| ((m, p), (n, s))).collect()
}

/// How the holder of a read-only link presents its token.
#[derive(Debug, Clone, Copy, PartialEq)]
enum LinkAs {
    /// `Authorization: Bearer <token>`.
    Bearer,
    /// The session cookie `ferry_session=<token>`.
    Cookie,
    /// In the path, in place of every ID (and as a share route's `{token}`, its real use).
    Path,
    /// `?token=<token>&share=<token>`.
    Query,
}

/// Who calls.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Who {
    Anonymous,
    /// A member of the organisation through an API token.
    Member(Role),
    /// A member of the organisation through a browser session (writes from Ferry's pages).
    SessionOf(Role),
    OtherOrgAdmin,
    ExpiredToken,
    RevokedToken,
    /// Someone who holds only a read-only link.
    LinkHolder(LinkAs),
}

fn callers() -> Vec<Who> {
    let mut all = vec![Who::Anonymous, Who::OtherOrgAdmin, Who::ExpiredToken, Who::RevokedToken];
    all.extend(
        [LinkAs::Bearer, LinkAs::Cookie, LinkAs::Path, LinkAs::Query]
            .into_iter()
            .map(Who::LinkHolder),
    );
    all.extend(Role::ALL.into_iter().map(Who::Member));
    all.extend(Role::ALL.into_iter().map(Who::SessionOf));
    all
}

/// Who makes the objects the cells act on: an administrator, and the plans' author (so that
/// the approvers and administrators who approve did not write them).
struct World {
    app: Router,
    stacks: Arc<Ferry>,
    tokens: BTreeMap<String, String>,
    stack: String,
    plan: String,
    preview: String,
    urn: String,
    job: String,
    share: String,
    discovery: String,
    identification: String,
    /// A DIY backend folder allowed to the organisation: no stacks, and a local Terraform
    /// backend's `terraform.tfstate`.
    backend: tempfile::TempDir,
    /// The naive test plugin (`test`), whose previews have zero values to adopt.
    _plugins: tempfile::TempDir,
}

const SPEC_ID: &str = "5,1,10";

fn spec() -> String {
    json!({"resources": [{"type": "random:index/randomInteger:RandomInteger", "name": "n", "id": SPEC_ID}]}).to_string()
}

async fn world() -> World {
    let store = ferry_store::testing::scratch().await.unwrap();
    let plugins = common::naive_plugin_dir();
    let engine = ferry_service::EngineConfig::new(
        vec![plugins.path().to_path_buf(), common::plugin_dir()],
        None,
        ferry_state::secrets::random_key(),
    );
    let backend = tempfile::tempdir().unwrap();
    std::fs::write(
        backend.path().join("terraform.tfstate"),
        common::terraform_fixture("tf-project.tfstate"),
    )
    .unwrap();
    let allowed = vec![ferry_service::AllowedBackend {
        org: "ferry".into(),
        url: format!("file://{}", backend.path().display()),
    }];
    let (app, stacks) = common::bare_app_of(
        Ferry::new(store, 1 << 20).with_engine(engine).with_allowed_backends(allowed),
        true,
    )
    .await;
    let settings = ferry_types::OrgSettingsView {
        allowed_packages: vec!["test".into()],
        share_links: true,
        share_link_days: 30,
    };
    stacks.accounts().set_org_settings("ferry", settings).await.unwrap();
    let mut tokens = BTreeMap::new();
    for role in Role::ALL {
        tokens.insert(
            format!("{role:?}"),
            common::token_for(&stacks, &format!("{}-user", role.as_str()), "ferry", role).await,
        );
    }
    tokens.insert(
        "OtherOrgAdmin".into(),
        common::token_for(&stacks, "outsider", "elsewhere", Role::Admin).await,
    );
    tokens.insert(
        "Author".into(),
        common::token_for(&stacks, "author", "ferry", Role::Planner).await,
    );
    let admin = stacks.accounts().grant("late-admin", "ferry", Role::Admin).await.unwrap();
    tokens.insert(
        "ExpiredToken".into(),
        stacks
            .accounts()
            .issue_api_token(&admin.id, "expired", "ferry", Role::Admin, -1)
            .await
            .unwrap()
            .token
            .unwrap(),
    );
    let revoked = stacks
        .accounts()
        .issue_api_token(&admin.id, "revoked", "ferry", Role::Admin, 3600)
        .await
        .unwrap();
    let admin_caller =
        stacks.accounts().caller_of_token(revoked.token.as_deref().unwrap()).await.unwrap();
    stacks.accounts().revoke_api_token(&admin_caller, &revoked.id).await.unwrap();
    tokens.insert("RevokedToken".into(), revoked.token.clone().unwrap());

    // The objects the routes act on.
    let author = common::as_caller(app.clone(), tokens["Author"].clone());
    let (_, list) = common::call(&author, common::get("/api/v1/stacks")).await;
    let stack = list[0]["id"].as_str().unwrap().to_string();
    let (plan, preview) = plan_with_preview(&author, &stack).await;
    let (_, record) =
        common::call(&author, common::get(&format!("/api/v1/previews/{preview}"))).await;
    let urn = record["preview"]["resources"][0]["urn"].as_str().unwrap().to_string();
    let (_, jobs) = common::call(&author, common::get(&format!("/api/v1/plans/{plan}/jobs"))).await;
    let job = jobs[0]["id"].as_str().unwrap().to_string();
    let (_, share) =
        common::call(&author, common::post(&format!("/api/v1/plans/{plan}/shares"), "")).await;
    let share = share["token"].as_str().unwrap().to_string();
    let discovery = common::discovery(&author, &stack, json!([{"type": "test:index:Thing"}])).await;
    let discovery = discovery["id"].as_str().unwrap().to_string();
    let (_, identification) = common::call(
        &author,
        common::post_json(
            &format!("/api/v1/stacks/{stack}/identifications"),
            &json!({"program": IDENTIFIED}).to_string(),
        ),
    )
    .await;
    let identification = identification["id"].as_str().unwrap().to_string();
    World {
        app,
        stacks,
        tokens,
        stack,
        plan,
        preview,
        urn,
        job,
        share,
        discovery,
        identification,
        backend,
        _plugins: plugins,
    }
}

/// A plan of the author's importing one integer, previewed: the plan and its preview.
async fn plan_with_preview(author: &Router, stack: &str) -> (String, String) {
    let (status, plan) = common::call(
        author,
        common::post(
            &format!("/api/v1/stacks/{stack}/plans"),
            &json!({"spec": spec()}).to_string(),
        ),
    )
    .await;
    assert_eq!(status, StatusCode::CREATED, "{plan}");
    let plan = plan["id"].as_str().unwrap().to_string();
    let (preview, _) = common::plan_preview(author, &plan).await;
    (plan, preview)
}

/// What one call sends.
struct Call {
    uri: String,
    body: String,
}

impl World {
    fn author(&self) -> Router {
        common::as_caller(self.app.clone(), self.tokens["Author"].clone())
    }

    /// The user a member caller acts as.
    async fn user_of(&self, role: Role) -> ferry_store::accounts::User {
        self.stacks.accounts().ensure_user(&format!("{}-user", role.as_str())).await.unwrap()
    }

    /// The route's request for `who`, with this world's objects in it, or fresh ones where the
    /// call uses them up (a commit, a revoked link, an approval).
    async fn prepare(&self, method: &Method, path: &str, who: Who) -> Call {
        let author = self.author();
        let mut plan = self.plan.clone();
        let mut preview = self.preview.clone();
        let mut share = self.share.clone();
        let mut token_id = "0123456789abcdef0123456789abcdef".to_string();
        let mut comment = "0123456789abcdef0123456789abcdef".to_string();
        let mut link = "0123456789abcdef0123456789abcdef".to_string();
        let mut login = String::new();
        let mut invitation = (
            "0123456789abcdef0123456789abcdef".to_string(),
            "ferry_invite_0123456789abcdef0123456789abcdef".to_string(),
        );
        let member_name = format!("someone-{}", ferry_store::random_id());
        let writes = *method != Method::GET;
        let member = match who {
            Who::Member(r) | Who::SessionOf(r) => Some(r),
            _ => None,
        };
        match (method.as_str(), path) {
            ("POST", "/api/v1/previews/{id}/commit") if member.is_some() => {
                let spec = json!({"resources": [{"type": "random:index/randomInteger:RandomInteger", "name": format!("c{}", ferry_store::random_id()), "id": SPEC_ID}]});
                let (_, fresh) = common::call(
                    &author,
                    common::post(
                        &format!("/api/v1/stacks/{}/previews", self.stack),
                        &spec.to_string(),
                    ),
                )
                .await;
                preview = fresh["id"].as_str().unwrap().to_string();
            }
            ("POST" | "DELETE", "/api/v1/plans/{id}/approvals")
            | ("POST", "/api/v1/plans/{id}/resolutions")
            | ("POST", "/api/v1/plans/{id}/close")
            | ("POST", "/api/v1/plans/{id}/change-requests")
            | ("DELETE", "/api/v1/plans/{id}/change-requests/{reviewer}")
                if member.is_some() =>
            {
                (plan, preview) = plan_with_preview(&author, &self.stack).await;
            }
            ("POST", "/api/v1/plans/{id}/reopen") if member.is_some() => {
                (plan, preview) = plan_with_preview(&author, &self.stack).await;
                let (status, _) =
                    common::call(&author, common::post(&format!("/api/v1/plans/{plan}/close"), ""))
                        .await;
                assert_eq!(status, StatusCode::OK, "the author closes their plan");
            }
            ("POST", "/api/v1/plans/{id}/resolutions/zero-values") if member.is_some() => {
                let program = "name: matrix\nruntime: yaml\nresources:\n  b:\n    type: test:index:Bucket\n    properties:\n      name: zero\n    options:\n      import: zero\n";
                let (_, made) = common::call(
                    &author,
                    common::post(
                        &format!("/api/v1/stacks/{}/plans", self.stack),
                        &json!({"program": program}).to_string(),
                    ),
                )
                .await;
                plan = made["id"].as_str().unwrap().to_string();
                preview = common::plan_preview(&author, &plan).await.0;
            }
            ("POST", "/api/v1/plans/{id}/identifications") if member.is_some() => {
                let (_, made) = common::call(
                    &author,
                    common::post(
                        &format!("/api/v1/stacks/{}/plans", self.stack),
                        &json!({"program": IDENTIFIED}).to_string(),
                    ),
                )
                .await;
                plan = made["id"].as_str().unwrap().to_string();
            }
            ("DELETE", "/api/v1/plans/{id}/shares/{link}") if member.is_some() => {
                let (_, fresh) = common::call(
                    &author,
                    common::post(&format!("/api/v1/plans/{plan}/shares"), ""),
                )
                .await;
                share = fresh["id"].as_str().unwrap().to_string();
            }
            ("POST", "/api/v1/plans/{id}/comments/{comment}/resolve") if member.is_some() => {
                let body = json!({"revision": 1, "urn": self.urn, "body": "a thread to resolve"})
                    .to_string();
                let (_, made) = common::call(
                    &author,
                    common::post_json(&format!("/api/v1/plans/{plan}/comments"), &body),
                )
                .await;
                comment = made["id"].as_str().unwrap().to_string();
            }
            ("DELETE", "/api/v1/me/tokens/{id}") if member.is_some() => {
                let user = self.user_of(member.expect("a member")).await;
                token_id = self
                    .stacks
                    .accounts()
                    .issue_api_token(&user.id, "spare", "ferry", Role::Viewer, 3600)
                    .await
                    .unwrap()
                    .id;
            }
            ("POST", "/auth/login") => {
                // A user of its own each time: the per-account limit would stop the nineteenth.
                let user = self
                    .stacks
                    .accounts()
                    .ensure_user(&format!("login-{}", ferry_store::random_id()))
                    .await
                    .unwrap();
                let session = self
                    .stacks
                    .accounts()
                    .start_session(&user.id, SessionMethod::Password)
                    .await
                    .unwrap();
                let caller = self.stacks.accounts().caller_of_session(&session.0).await.unwrap();
                self.stacks
                    .accounts()
                    .change_own_password(&caller, None, "the login user's password")
                    .await
                    .unwrap();
                login = user.name;
            }
            ("PUT", "/api/v1/orgs/{org}/members/{name}") => {
                self.stacks.accounts().grant(&member_name, "ferry", Role::Viewer).await.unwrap();
            }
            (_, p) if p.contains("invitations/{") => {
                // A fresh invitation each time (accepting uses one up), made as an
                // administrator makes one: from a session.
                let admin = self
                    .stacks
                    .accounts()
                    .grant("invitation-admin", "ferry", Role::Admin)
                    .await
                    .unwrap();
                let session = self
                    .stacks
                    .accounts()
                    .start_session(&admin.id, SessionMethod::Password)
                    .await
                    .unwrap();
                let caller = self.stacks.accounts().caller_of_session(&session.0).await.unwrap();
                let input = ferry_types::invitations::InvitationInput {
                    roles: vec![ferry_types::Role::Viewer],
                    days: None,
                };
                let made = self.stacks.accounts().invite(&caller, "ferry", &input).await.unwrap();
                invitation = (made.invitation.id, made.token);
            }
            ("GET", "/auth/link/{token}") => {
                let user = self.stacks.accounts().ensure_user("link-user").await.unwrap();
                link = self.stacks.accounts().new_sign_in_link(&user.id).await.unwrap().0;
            }
            _ => {}
        }
        let reviewer =
            member.map(|r| format!("{}-user", r.as_str())).unwrap_or_else(|| "someone".into());
        let mut webhook = "0123456789abcdef0123456789abcdef".to_string();
        if path.contains("/webhooks/{id}") && member.is_some() {
            // A webhook of its own each time (a removal uses one up), made by an administrator.
            let admin =
                self.stacks.accounts().caller_of_token(&self.tokens["Admin"]).await.unwrap();
            let input = ferry_types::webhooks::WebhookInput {
                url: "https://hooks.example.com/ferry".into(),
                events: Vec::new(),
            };
            webhook =
                self.stacks.webhooks().create(&admin, "ferry", &input).await.unwrap().webhook.id;
        }
        if let Some(role) =
            member.filter(|r| path.contains("/change-requests/") && r.grants(Role::Approver))
        {
            // Something to withdraw: the caller's own request for changes.
            let approver =
                common::as_caller(self.app.clone(), self.tokens[&format!("{role:?}")].clone());
            let body =
                json!({"revision": 1, "preview": preview, "body": "please change"}).to_string();
            let (status, answer) = common::call(
                &approver,
                common::post_json(&format!("/api/v1/plans/{plan}/change-requests"), &body),
            )
            .await;
            assert_eq!(status, StatusCode::OK, "{answer}");
        }
        if let Some(role) =
            member.filter(|_| path.contains("/approvals") && *method == Method::DELETE)
        {
            // Something to withdraw: the caller's own approval, where they may give one.
            if role.grants(Role::Approver) {
                let token = self.tokens[&format!("{role:?}")].clone();
                let approver = common::as_caller(self.app.clone(), token);
                let body = json!({"revision": 1, "preview": preview}).to_string();
                common::call(
                    &approver,
                    common::post_json(&format!("/api/v1/plans/{plan}/approvals"), &body),
                )
                .await;
            }
        }
        let id = if path.contains("/me/tokens/") {
            token_id.clone()
        } else if path.contains("/webhooks/") {
            webhook.clone()
        } else if path.contains("/invitations/") {
            invitation.0.clone()
        } else if path.starts_with("/api/v1/stacks/") || path.starts_with("/stacks/") {
            self.stack.clone()
        } else if path.starts_with("/api/v1/plans/") || path.starts_with("/plans/") {
            plan.clone()
        } else if path.starts_with("/api/v1/previews/") {
            preview.clone()
        } else if path.starts_with("/api/v1/identifications/") {
            self.identification.clone()
        } else {
            self.discovery.clone()
        };
        let token = if path.starts_with("/auth/link/") {
            link.clone()
        } else if path.contains("invitations/") {
            invitation.1.clone()
        } else {
            share.clone()
        };
        let mut uri = path
            .replace("{id}", &id)
            .replace("{job}", &self.job)
            .replace("{comment}", &comment)
            .replace("{token}", &token)
            .replace("{link}", &share)
            .replace("{revision}", "1")
            .replace("{rev}", "1")
            .replace("{index}", "0")
            .replace("{org}", "ferry")
            .replace("{name}", &member_name)
            .replace("{reviewer}", &reviewer);
        match path {
            p if p.ends_with("/resource") => uri.push_str(&format!(
                "?urn={}",
                url_escape(if p.contains("/previews/") { &self.urn } else { DEMO_ROOT })
            )),
            "/api/v1/backends/stacks" => {
                uri.push_str(&format!("?org=ferry&url=file://{}", self.backend.path().display()))
            }
            p if p.ends_with("/terraform/workspaces") => uri.push_str(&format!(
                "?url=file://{}/terraform.tfstate",
                self.backend.path().display()
            )),
            // A new stack each time: a new version over one needs a committer, a rule of its own.
            "/api/v1/stacks" if writes => {
                uri.push_str(&format!("?name=ferry/matrix-{}/dev", ferry_store::random_id()))
            }
            "/api/v1/markers" => uri.push_str("?kind=spec"),
            "/auth/logout" => {}
            _ => {}
        }
        let body = match (method.as_str(), path) {
            ("POST", "/api/v1/stacks") => r#"{"version": 3, "deployment": {"resources": []}}"#.to_string(),
            ("PUT", p) if p.ends_with("/members/{name}") => json!({"roles": ["viewer"]}).to_string(),
            ("POST", "/api/v1/orgs/{org}/invitations") => json!({"roles": ["viewer"]}).to_string(),
            ("POST", "/auth/invitations/{token}") => {
                json!({"name": format!("joiner-{}", ferry_store::random_id()), "password": "a joiner's own password"}).to_string()
            }
            ("POST", "/auth/login") => json!({"name": login, "password": "the login user's password"}).to_string(),
            ("POST", "/api/v1/me/password") => json!({"password": "a fresh password for the matrix"}).to_string(),
            ("POST", "/api/v1/me/tokens") => json!({"name": "matrix", "org": "ferry", "role": "viewer", "days": 1}).to_string(),
            ("PUT", "/api/v1/stacks/{id}/config") => "config: {}\n".to_string(),
            ("POST", "/api/v1/stacks/{id}/previews") => spec(),
            ("POST", "/api/v1/stacks/{id}/identifications") => json!({"program": IDENTIFIED}).to_string(),
            ("POST", "/api/v1/plans/{id}/identifications") => json!({"choices": [{"name": "b", "choice": "skip"}]}).to_string(),
            ("POST", "/api/v1/stacks/{id}/plans") | ("POST", "/api/v1/plans/{id}/revisions") => json!({"spec": spec()}).to_string(),
            ("POST", "/api/v1/markers") => spec(),
            ("POST", "/api/v1/plans/{id}/resolutions") => json!({"preview": preview, "urn": self.urn, "property": "max", "action": "omit"}).to_string(),
            ("POST", "/api/v1/plans/{id}/resolutions/zero-values") => json!({"preview": preview}).to_string(),
            ("POST", "/api/v1/stacks/{id}/discoveries") => json!({"types": [{"type": "test:index:Thing", "limit": 2}]}).to_string(),
            ("POST", "/api/v1/stacks/{id}/discoveries/probe") => json!({"items": [{"type": "test:index:Bucket", "id": "b"}]}).to_string(),
            ("POST", "/api/v1/stacks/{id}/discoveries/plan") => json!({"items": [{"type": "test:index:Bucket", "id": "b", "name": "b"}]}).to_string(),
            ("POST", "/api/v1/stacks/{id}/migrations/terraform") => common::terraform_fixture("tf-project.tfstate"),
            ("POST", "/api/v1/stacks/{id}/migrations/terraform/remote") => {
                json!({"url": format!("file://{}/terraform.tfstate", self.backend.path().display())}).to_string()
            }
            ("POST", "/api/v1/plans/{id}/comments") => json!({"revision": 1, "urn": self.urn, "body": "a comment"}).to_string(),
            ("POST", "/api/v1/plans/{id}/comments/{comment}/resolve") => json!({"resolved": true}).to_string(),
            ("POST", "/api/v1/plans/{id}/approvals") => json!({"revision": 1, "preview": preview}).to_string(),
            ("POST", "/api/v1/plans/{id}/change-requests") => json!({"revision": 1, "preview": preview, "body": "rename it"}).to_string(),
            ("PUT", "/api/v1/previews/{id}/viewed") => json!({"urn": self.urn, "viewed": true}).to_string(),
            ("PUT", "/api/v1/stacks/{id}/settings") => json!({"required_approvals": 0}).to_string(),
            ("PUT", "/api/v1/orgs/{org}/settings") => json!({"share_links": true, "share_link_days": 30, "allowed_packages": ["test"]}).to_string(),
            ("POST", "/api/v1/orgs/{org}/webhooks") => json!({"url": "https://hooks.example.com/ferry"}).to_string(),
            _ => String::new(),
        };
        Call { uri, body }
    }

    async fn call(&self, who: Who, method: &Method, path: &str) -> (StatusCode, String) {
        let Call { mut uri, body } = self.prepare(method, path, who).await;
        let mut req = Request::builder()
            .method(method.clone())
            .header(header::CONTENT_TYPE, "application/json");
        match who {
            Who::Anonymous => {}
            Who::Member(role) => {
                req = req.header(
                    header::AUTHORIZATION,
                    format!("Bearer {}", self.tokens[&format!("{role:?}")]),
                )
            }
            Who::OtherOrgAdmin | Who::ExpiredToken | Who::RevokedToken => {
                req = req.header(
                    header::AUTHORIZATION,
                    format!("Bearer {}", self.tokens[&format!("{who:?}")]),
                )
            }
            Who::SessionOf(role) => {
                // A fresh session each call: some calls end the user's sessions.
                let user = self.user_of(role).await;
                let session = self
                    .stacks
                    .accounts()
                    .start_session(&user.id, SessionMethod::Password)
                    .await
                    .unwrap();
                req = req
                    .header(header::COOKIE, format!("ferry_session={}", session.0))
                    .header("sec-fetch-site", "same-origin");
            }
            Who::LinkHolder(LinkAs::Bearer) => {
                req = req.header(header::AUTHORIZATION, format!("Bearer {}", self.share))
            }
            Who::LinkHolder(LinkAs::Cookie) => {
                req = req.header(header::COOKIE, format!("ferry_session={}", self.share))
            }
            Who::LinkHolder(LinkAs::Path) => {
                // Every ID in the path is the link's token (a share route's own `{token}` was
                // already).
                for id in [
                    &self.stack,
                    &self.plan,
                    &self.preview,
                    &self.discovery,
                    &self.identification,
                    &self.job,
                ] {
                    uri = uri.replace(id.as_str(), &self.share);
                }
            }
            Who::LinkHolder(LinkAs::Query) => {
                uri.push(if uri.contains('?') { '&' } else { '?' });
                uri.push_str(&format!("token={0}&share={0}", self.share));
            }
        }
        let endpoint = common::api_endpoint(method, uri.split('?').next().unwrap_or(&uri));
        let res =
            self.app.clone().oneshot(req.uri(&uri).body(Body::from(body)).unwrap()).await.unwrap();
        let status = res.status();
        // Event streams of finished jobs end; read a bounded part of any answer.
        let bytes =
            tokio::time::timeout(std::time::Duration::from_secs(20), res.into_body().collect())
                .await
                .map(|b| b.map(|b| b.to_bytes()).unwrap_or_default())
                .unwrap_or_default();
        // Every route is called here, some nowhere else: their answers are examples too.
        if let Some(endpoint) = endpoint.filter(|_| status.is_success()) {
            common::openapi::record_example(endpoint, status.as_u16(), &bytes).await;
        }
        (status, String::from_utf8_lossy(&bytes[..bytes.len().min(300)]).into_owned())
    }
}

const DEMO_ROOT: &str = "urn:pulumi:dev::demo::pulumi:pulumi:Stack::demo-dev";

fn url_escape(s: &str) -> String {
    url::form_urlencoded::byte_serialize(s.as_bytes()).collect()
}

/// The status a cell must get: the route's success status when the caller is allowed.
fn expect(need: Need, success: u16, who: Who, method: &Method) -> u16 {
    assert!(need != Need::Link || method == Method::GET, "a link never writes");
    let anonymous = match need {
        Need::Anyone | Need::Link | Need::Accept => success,
        Need::Page | Need::PageOf => 303,
        Need::SignedIn | Need::Session | Need::Role(_) | Need::SessionRole(_) | Need::Review => 401,
    };
    match who {
        // A token that is not a live API token is refused wherever it is presented as one.
        Who::ExpiredToken | Who::RevokedToken | Who::LinkHolder(LinkAs::Bearer) => 401,
        Who::Anonymous | Who::LinkHolder(LinkAs::Cookie | LinkAs::Query) => anonymous,
        // In place of an ID the token names nothing; only a share route's `{token}` opens.
        Who::LinkHolder(LinkAs::Path) => anonymous,
        Who::OtherOrgAdmin => match need {
            Need::Role(_) | Need::SessionRole(_) | Need::PageOf | Need::Review => 403,
            Need::Session | Need::Accept => 403,
            _ => success,
        },
        Who::Member(held) | Who::SessionOf(held) => {
            let session = matches!(who, Who::SessionOf(_));
            match need {
                Need::Session | Need::SessionRole(_) | Need::Accept if !session => 403,
                Need::SessionRole(needed) if !held.grants(needed) => 403,
                Need::Review if held == Role::Viewer => 403,
                Need::Role(needed) if !held.grants(needed) => 403,
                _ => success,
            }
        }
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn every_route_decides_who_may_call_it() {
    let world = world().await;

    let table = crate::common::access_table().await;
    let expected = expected_needs();
    // Server functions are tried by the next test, each with its own arguments.
    let mut routes: Vec<(Method, String)> = table
        .decisions()
        .filter(|d| d.gate != server::access::Gate::ServerFn)
        .map(|d| (d.method.clone(), d.path.clone()))
        .collect();
    assert!(table
        .decisions()
        .filter(|d| d.gate == server::access::Gate::ServerFn)
        .all(|d| d.path.starts_with("/rpc/")));
    routes.sort_by(|a, b| (a.1.as_str(), a.0.as_str()).cmp(&(b.1.as_str(), b.0.as_str())));
    let known: Vec<(String, String)> =
        expected.keys().map(|(m, p)| (m.to_string(), p.to_string())).collect();
    for (method, path) in &routes {
        assert!(
            expected.contains_key(&(method.as_str(), path.as_str())),
            "the router has {method} {path}, which this test has no expectation for: add it"
        );
    }
    for (method, path) in &known {
        assert!(
            routes.iter().any(|(m, p)| m.as_str() == method && p == path),
            "this test expects {method} {path}, which the router no longer has"
        );
    }
    // The success each API route answers here is one its declaration (and so the OpenAPI
    // document) names.
    for ((method, path), (_, status)) in &expected {
        let Some(endpoint) = crate::common::api_endpoint(&method.parse().unwrap(), path) else {
            continue;
        };
        if (200..300).contains(status) {
            assert!(
                endpoint.success.contains(status),
                "{method} {path} answers {status}; its declaration says {:?}",
                endpoint.success
            );
        }
    }

    // Reads first, writes last, so that what a caller does never changes what the next
    // caller's reads find; writes that use up their object get a fresh one.
    let mut ordered = routes.clone();
    ordered.sort_by_key(|(m, _)| *m != Method::GET);
    let mut cells = 0;
    let mut failures = Vec::new();
    for (method, path) in &ordered {
        let (need, success) = expected[&(method.as_str(), path.as_str())];
        for who in callers() {
            let (status, body) = world.call(who, method, path).await;
            cells += 1;
            let expected = expect(need, success, who, method);
            if status.as_u16() != expected {
                failures.push(format!(
                    "{method} {path} as {who:?}: got {status}, expected {expected} ({body})"
                ));
            }
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {cells} cells wrong:\n{}",
        failures.len(),
        failures.join("\n")
    );
    assert!(cells > 1300, "{cells} cells");
}

/// Server functions answer through one route, and each decides for itself from its arguments.
#[tokio::test(flavor = "multi_thread")]
async fn every_server_function_decides_who_may_call_it() {
    let world = world().await;
    let mut seen = Vec::new();
    for (path, _) in leptos::server_fn::axum::server_fn_paths() {
        let name = path.trim_start_matches("/rpc/").trim_end_matches(|c: char| c.is_ascii_digit());
        let (args, need) = match name {
            "list_stacks" => (String::new(), Need::SignedIn),
            "current_user" | "sign_in_methods" => (String::new(), Need::Anyone),
            // The link's token is the capability: anyone who holds it reads the invitation.
            "invitation" => {
                let admin = world
                    .stacks
                    .accounts()
                    .grant("invitation-admin", "ferry", Role::Admin)
                    .await
                    .unwrap();
                let session = world
                    .stacks
                    .accounts()
                    .start_session(&admin.id, SessionMethod::Password)
                    .await
                    .unwrap();
                let caller = world.stacks.accounts().caller_of_session(&session.0).await.unwrap();
                let input = ferry_types::invitations::InvitationInput {
                    roles: vec![ferry_types::Role::Viewer],
                    days: None,
                };
                (
                    format!(
                        "token={}",
                        world
                            .stacks
                            .accounts()
                            .invite(&caller, "ferry", &input)
                            .await
                            .unwrap()
                            .token
                    ),
                    Need::Anyone,
                )
            }
            "stack_page" => (format!("id={}", world.stack), Need::Role(Role::Viewer)),
            "load_resource_detail" => (
                format!("id={}&urn={}", world.stack, url_escape(DEMO_ROOT)),
                Need::Role(Role::Viewer),
            ),
            "stack_rows" => (
                format!("id={}&version=1&filter=&sort=&offset=0&limit=10", world.stack),
                Need::Role(Role::Viewer),
            ),
            "plan_page" => (format!("id={}&share=", world.plan), Need::Role(Role::Viewer)),
            "new_plan" => {
                (format!("stack_id={}&kind=spec", world.stack), Need::Role(Role::Planner))
            }
            // Only the organisations the caller reads (another's stack lists nothing).
            "plan_list" => (
                format!("stack={}&state=&awaiting=&author=&cursor=&limit=10", world.stack),
                Need::SignedIn,
            ),
            "stack_versions" => (format!("id={}", world.stack), Need::Role(Role::Viewer)),
            other => panic!(
                "the server function `{other}` ({path}) has no expectation in this test: add it"
            ),
        };
        seen.push(name.to_string());
        for who in callers() {
            let mut req = Request::post(path)
                .header(header::CONTENT_TYPE, "application/x-www-form-urlencoded");
            match who {
                Who::Member(role) => {
                    req = req.header(
                        header::AUTHORIZATION,
                        format!("Bearer {}", world.tokens[&format!("{role:?}")]),
                    )
                }
                Who::OtherOrgAdmin | Who::ExpiredToken | Who::RevokedToken => {
                    req = req.header(
                        header::AUTHORIZATION,
                        format!("Bearer {}", world.tokens[&format!("{who:?}")]),
                    )
                }
                Who::SessionOf(role) => {
                    let user = world.user_of(role).await;
                    let session = world
                        .stacks
                        .accounts()
                        .start_session(&user.id, SessionMethod::Password)
                        .await
                        .unwrap();
                    req = req
                        .header(header::COOKIE, format!("ferry_session={}", session.0))
                        .header("sec-fetch-site", "same-origin");
                }
                Who::LinkHolder(LinkAs::Bearer) => {
                    req = req.header(header::AUTHORIZATION, format!("Bearer {}", world.share))
                }
                Who::LinkHolder(LinkAs::Cookie) => {
                    req = req.header(header::COOKIE, format!("ferry_session={}", world.share))
                }
                Who::Anonymous | Who::LinkHolder(LinkAs::Path | LinkAs::Query) => {}
            }
            let res = world
                .app
                .clone()
                .oneshot(req.body(Body::from(args.clone())).unwrap())
                .await
                .unwrap();
            let status = res.status();
            let body =
                String::from_utf8_lossy(&res.into_body().collect().await.unwrap().to_bytes())
                    .into_owned();
            let expected = match (need, who) {
                (_, Who::ExpiredToken | Who::RevokedToken | Who::LinkHolder(LinkAs::Bearer)) => {
                    StatusCode::UNAUTHORIZED
                }
                (Need::Anyone, _) => StatusCode::OK,
                (_, Who::Anonymous | Who::LinkHolder(_)) => StatusCode::UNAUTHORIZED,
                (Need::Role(_), Who::OtherOrgAdmin) => StatusCode::FORBIDDEN,
                (Need::Role(needed), Who::Member(held) | Who::SessionOf(held))
                    if !held.grants(needed) =>
                {
                    StatusCode::FORBIDDEN
                }
                _ => StatusCode::OK,
            };
            assert_eq!(status, expected, "{name} as {who:?}: {body}");
        }
    }
    seen.sort();
    assert_eq!(
        seen,
        [
            "current_user",
            "invitation",
            "list_stacks",
            "load_resource_detail",
            "new_plan",
            "plan_list",
            "plan_page",
            "sign_in_methods",
            "stack_page",
            "stack_rows",
            "stack_versions"
        ]
    );
}

/// Another organisation's member signs in fine but sees none of this organisation's stacks.
#[tokio::test(flavor = "multi_thread")]
async fn lists_show_only_the_callers_organisations() {
    let world = world().await;
    let (status, body) = world.call(Who::OtherOrgAdmin, &Method::GET, "/api/v1/stacks").await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(serde_json::from_str::<Value>(&body).unwrap(), json!([]));
    let (_, body) = world.call(Who::Member(Role::Viewer), &Method::GET, "/api/v1/stacks").await;
    assert!(body.contains("ferry/demo/dev"), "{body}");
}

/// A route that reached the router without a decision is refused, not served.
#[tokio::test]
async fn a_route_without_a_decision_is_refused() {
    use axum::routing::get;
    let store = ferry_store::testing::scratch().await.unwrap();
    let state = crate::common::app_state(Arc::new(Ferry::new(store, 1 << 20)));
    let (gated, table) = server::gated_routes(&state);
    let state = server::AppState { access: Arc::new(table), ..state };
    let app: Router = gated
        .route("/api/v1/undecided", get(|| async { "secret" }))
        .layer(axum::middleware::from_fn_with_state(state.clone(), server::access::authorize))
        .with_state(state);
    let res =
        app.oneshot(Request::get("/api/v1/undecided").body(Body::empty()).unwrap()).await.unwrap();
    assert_eq!(res.status(), StatusCode::INTERNAL_SERVER_ERROR);
    let body = res.into_body().collect().await.unwrap().to_bytes();
    assert!(String::from_utf8_lossy(&body).contains("no access decision"));
}

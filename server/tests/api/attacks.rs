//! The attacks an ordinary role might try on accounts and organisations, each written as the
//! attacker would try it, through the whole router: an organisation's administrator taking over
//! someone else's account, a leaked token becoming the whole account, a planner writing into
//! another organisation's stack, a name squatted before a grant, a provider's group making a
//! server administrator, one organisation reading another's sign-ins, a user with no role
//! listing a backend, an author approving their own plan, a plugin reading the server's
//! credentials.

use crate::common;

use std::path::{Path, PathBuf};
use std::sync::Arc;

use axum::body::Body;
use axum::http::{header, Method, Request, StatusCode};
use axum::Router;
use ferry_service::access::Role;
use ferry_service::accounts::OidcIdentity;
use ferry_service::{AllowedBackend, EngineConfig, Ferry};
use serde_json::{json, Value};

pub(crate) const PASSWORD: &str = "correct horse battery";
const ATTACKER_PASSWORD: &str = "the attacker knows this";

/// How a request proves who it is.
#[derive(Clone)]
pub(crate) enum As {
    Token(String),
    Session(String),
}

impl As {
    /// The `Authorization` header of a token.
    pub(crate) fn bearer(&self) -> String {
        match self {
            As::Token(t) => format!("Bearer {t}"),
            As::Session(_) => unreachable!("a session is a cookie"),
        }
    }
}

pub(crate) async fn send(
    app: &Router,
    who: &As,
    method: Method,
    uri: &str,
    body: Value,
) -> (StatusCode, Value) {
    let mut req =
        Request::builder().method(method).uri(uri).header(header::CONTENT_TYPE, "application/json");
    req = match who {
        As::Token(token) => req.header(header::AUTHORIZATION, format!("Bearer {token}")),
        // A session's writes come from Ferry's own pages.
        As::Session(cookie) => {
            req.header(header::COOKIE, cookie).header("sec-fetch-site", "same-origin")
        }
    };
    common::call(
        app,
        req.body(if body.is_null() { Body::empty() } else { Body::from(body.to_string()) })
            .unwrap(),
    )
    .await
}

/// Signs in with a password: the session's cookie, or the refusal's status.
pub(crate) async fn sign_in(app: &Router, name: &str, password: &str) -> Result<As, StatusCode> {
    let req = Request::post("/auth/login")
        .header(header::CONTENT_TYPE, "application/json")
        .body(Body::from(json!({"name": name, "password": password}).to_string()))
        .unwrap();
    let res = tower::ServiceExt::oneshot(app.clone(), req).await.unwrap();
    match res.status() {
        StatusCode::OK => Ok(As::Session(
            res.headers()[header::SET_COOKIE]
                .to_str()
                .unwrap()
                .split(';')
                .next()
                .unwrap()
                .to_string(),
        )),
        status => Err(status),
    }
}

/// Signs in through a one-time link, as `ferry sign-in-link` hands out.
async fn sign_in_by_link(app: &Router, stacks: &Arc<Ferry>, name: &str) -> As {
    let user = stacks.accounts().ensure_user(name).await.unwrap();
    let link = stacks.accounts().new_sign_in_link(&user.id).await.unwrap();
    let res = tower::ServiceExt::oneshot(
        app.clone(),
        Request::get(format!("/auth/link/{}", link.0)).body(Body::empty()).unwrap(),
    )
    .await
    .unwrap();
    assert_eq!(res.status(), StatusCode::SEE_OTHER);
    As::Session(
        res.headers()[header::SET_COOKIE].to_str().unwrap().split(';').next().unwrap().to_string(),
    )
}

/// An OpenID Connect sign-in as the provider vouched for it (the callback's last step).
pub(crate) async fn oidc_user(
    stacks: &Arc<Ferry>,
    subject: &str,
    name: &str,
    groups: &[&str],
    allow_server_roles: bool,
) -> ferry_store::accounts::User {
    let identity = OidcIdentity {
        issuer: "https://idp.example.test".into(),
        subject: subject.into(),
        email: Some(format!("{name}@example.test")),
        name: name.into(),
        groups: Some(groups.iter().map(|g| g.to_string()).collect()),
    };
    stacks.accounts().sign_in_oidc(identity, None, allow_server_roles).await.unwrap().user
}

pub(crate) struct World {
    pub app: Router,
    pub stacks: std::sync::Arc<Ferry>,
    pub root: As,
    /// The server administrator's browser session: passwords are set from a session only.
    pub root_session: As,
}

pub(crate) async fn world_with(engine: EngineConfig, backends: Vec<AllowedBackend>) -> World {
    let store = ferry_store::testing::scratch().await.unwrap();
    let (app, stacks) = common::bare_app_of(
        Ferry::new(store, 1 << 20).with_engine(engine).with_allowed_backends(backends),
        true,
    )
    .await;
    let root = As::Token(common::token_for(&stacks, "root", "*", Role::Admin).await);
    let root_session = sign_in_by_link(&app, &stacks, "root").await;
    World { app, stacks, root, root_session }
}

pub(crate) async fn world() -> World {
    world_with(
        EngineConfig::new(vec![common::plugin_dir()], None, ferry_state::secrets::random_key()),
        Vec::new(),
    )
    .await
}

impl World {
    pub(crate) async fn call(
        &self,
        who: &As,
        method: Method,
        uri: &str,
        body: Value,
    ) -> (StatusCode, Value) {
        send(&self.app, who, method, uri, body).await
    }

    /// A new local user with a password, made by the server administrator (from a session),
    /// with `roles` in `org`.
    pub(crate) async fn member(&self, org: &str, name: &str, roles: &[&str]) -> As {
        let (status, body) = self
            .call(
                &self.root_session,
                Method::PUT,
                &format!("/api/v1/orgs/{org}/members/{name}"),
                json!({"roles": roles, "password": PASSWORD}),
            )
            .await;
        assert_eq!(status, StatusCode::OK, "{body}");
        sign_in(&self.app, name, PASSWORD).await.unwrap()
    }
}

#[tokio::test]
async fn an_organisation_administrator_cannot_give_a_password_to_anyone_who_exists() {
    let w = world().await;
    // (a) a server administrator without a password (as the first one is until they choose one)
    w.stacks.accounts().grant("admin", "*", Role::Admin).await.unwrap();
    // (b) an OpenID Connect user of another organisation
    oidc_user(&w.stacks, "olga-subject", "olga", &["beta:planner"], false).await;
    // (c) another organisation's member, and a passwordless user made by a sign-in link
    w.member("beta", "bob", &["planner"]).await;
    sign_in_by_link(&w.app, &w.stacks, "lena").await;
    let mallory = w.member("acme", "mallory", &["admin"]).await;

    for victim in ["admin", "olga", "bob", "lena"] {
        let (status, refused) = w
            .call(
                &mallory,
                Method::PUT,
                &format!("/api/v1/orgs/acme/members/{victim}"),
                json!({"roles": ["viewer"], "password": ATTACKER_PASSWORD}),
            )
            .await;
        assert_eq!(status, StatusCode::FORBIDDEN, "{victim}: {refused}");
        assert_eq!(
            sign_in(&w.app, victim, ATTACKER_PASSWORD).await.err(),
            Some(StatusCode::UNAUTHORIZED),
            "{victim} keeps their account"
        );
    }
    // Nor makes an account with a password (an account that would outlive them), nor adds
    // someone who exists and is not a member: people join by accepting an invitation.
    let (status, refused) = w
        .call(
            &mallory,
            Method::PUT,
            "/api/v1/orgs/acme/members/newcomer",
            json!({"roles": ["viewer"], "password": ATTACKER_PASSWORD}),
        )
        .await;
    assert_eq!(status, StatusCode::FORBIDDEN, "{refused}");
    assert!(refused["error"]["message"].as_str().unwrap().contains("invitations"), "{refused}");
    assert_eq!(
        sign_in(&w.app, "newcomer", ATTACKER_PASSWORD).await.err(),
        Some(StatusCode::UNAUTHORIZED),
        "no account was made"
    );
    let (status, refused) = w
        .call(&mallory, Method::PUT, "/api/v1/orgs/acme/members/bob", json!({"roles": ["viewer"]}))
        .await;
    assert_eq!(status, StatusCode::FORBIDDEN, "{refused}");
    // Only a server administrator sets an existing local user's password, from a session,
    // never with a token, and never an OpenID Connect user's.
    let bob_password = json!({"roles": ["planner"], "password": "a new password for bob"});
    let (status, refused) =
        w.call(&w.root, Method::PUT, "/api/v1/orgs/beta/members/bob", bob_password.clone()).await;
    assert_eq!(status, StatusCode::FORBIDDEN, "{refused}");
    let (status, refused) = w
        .call(
            &w.root_session,
            Method::PUT,
            "/api/v1/orgs/beta/members/olga",
            json!({"roles": ["planner"], "password": ATTACKER_PASSWORD}),
        )
        .await;
    assert_eq!(status, StatusCode::FORBIDDEN, "{refused}");
    let (status, set) =
        w.call(&w.root_session, Method::PUT, "/api/v1/orgs/beta/members/bob", bob_password).await;
    assert_eq!(status, StatusCode::OK, "{set}");
    assert!(sign_in(&w.app, "bob", "a new password for bob").await.is_ok());
}

#[tokio::test]
async fn a_token_never_changes_a_password_nor_makes_a_token() {
    let w = world().await;
    // A passwordless user (made by a sign-in link) whose viewer token leaked.
    let session = sign_in_by_link(&w.app, &w.stacks, "pat").await;
    w.stacks.accounts().grant("pat", "acme", Role::Admin).await.unwrap();
    let pat = w.stacks.accounts().ensure_user("pat").await.unwrap();
    let leaked = w
        .stacks
        .accounts()
        .issue_api_token(&pat.id, "ci", "acme", Role::Viewer, 3600)
        .await
        .unwrap();
    let sibling = w
        .stacks
        .accounts()
        .issue_api_token(&pat.id, "other", "acme", Role::Viewer, 3600)
        .await
        .unwrap();
    let token = As::Token(leaked.token.clone().unwrap());

    let (status, refused) = w
        .call(&token, Method::POST, "/api/v1/me/password", json!({"password": ATTACKER_PASSWORD}))
        .await;
    assert_eq!(status, StatusCode::FORBIDDEN, "{refused}");
    assert_eq!(
        sign_in(&w.app, "pat", ATTACKER_PASSWORD).await.err(),
        Some(StatusCode::UNAUTHORIZED)
    );
    let (status, refused) = w
        .call(
            &token,
            Method::POST,
            "/api/v1/me/tokens",
            json!({"name": "forever", "org": "acme", "role": "viewer", "days": 366}),
        )
        .await;
    assert_eq!(status, StatusCode::FORBIDDEN, "{refused}");
    let (status, refused) = w
        .call(&token, Method::DELETE, &format!("/api/v1/me/tokens/{}", sibling.id), Value::Null)
        .await;
    assert_eq!(status, StatusCode::FORBIDDEN, "a token does not revoke its siblings: {refused}");
    // What a token may do: read its user's tokens, and revoke itself (a CI job's last step).
    let (status, _) = w.call(&token, Method::GET, "/api/v1/me/tokens", Value::Null).await;
    assert_eq!(status, StatusCode::OK);
    let (status, revoked) = w
        .call(&token, Method::DELETE, &format!("/api/v1/me/tokens/{}", leaked.id), Value::Null)
        .await;
    assert_eq!(status, StatusCode::OK, "{revoked}");

    // From the user's own session, both work.
    let (status, changed) =
        w.call(&session, Method::POST, "/api/v1/me/password", json!({"password": PASSWORD})).await;
    assert_eq!(status, StatusCode::OK, "{changed}");
    let session = sign_in(&w.app, "pat", PASSWORD).await.unwrap();
    let (status, made) = w
        .call(
            &session,
            Method::POST,
            "/api/v1/me/tokens",
            json!({"name": "new", "org": "acme", "role": "viewer", "days": 1}),
        )
        .await;
    assert_eq!(status, StatusCode::CREATED, "{made}");
}

#[tokio::test]
async fn an_openid_connect_user_never_gets_a_local_password() {
    let w = world().await;
    oidc_user(&w.stacks, "olga-subject", "olga", &["acme:viewer"], false).await;
    // Olga's account reached by a sign-in link (not through the provider): no local password.
    let linked = sign_in_by_link(&w.app, &w.stacks, "olga").await;
    let (status, refused) = w
        .call(&linked, Method::POST, "/api/v1/me/password", json!({"password": ATTACKER_PASSWORD}))
        .await;
    assert_eq!(status, StatusCode::FORBIDDEN, "{refused}");
    assert!(refused["error"]["message"].as_str().unwrap().contains("OpenID Provider"), "{refused}");
    // Signed in through the provider, neither: Ferry keeps no password for her.
    let through_provider = w
        .stacks
        .accounts()
        .start_session(
            &w.stacks.accounts().ensure_user("olga").await.unwrap().id,
            ferry_store::accounts::SessionMethod::Oidc,
        )
        .await
        .unwrap();
    let session = As::Session(format!("ferry_session={}", through_provider.0));
    let (status, refused) =
        w.call(&session, Method::POST, "/api/v1/me/password", json!({"password": PASSWORD})).await;
    assert_eq!(status, StatusCode::FORBIDDEN, "{refused}");
    // Nor may a server administrator give her one.
    let (status, refused) = w
        .call(
            &w.root_session,
            Method::PUT,
            "/api/v1/orgs/acme/members/olga",
            json!({"roles": ["viewer"], "password": PASSWORD}),
        )
        .await;
    assert_eq!(status, StatusCode::FORBIDDEN, "{refused}");
    assert_eq!(sign_in(&w.app, "olga", PASSWORD).await.err(), Some(StatusCode::UNAUTHORIZED));
}

#[tokio::test]
async fn openid_connect_users_are_the_provider_and_subject_never_a_local_name() {
    let w = world().await;
    // An administrator of `acme` cannot make `dave` with a password they know; a local `dave`
    // whose password someone else chose (a server administrator made it) stands for him.
    let mallory = w.member("acme", "mallory", &["admin"]).await;
    let (status, _) = w
        .call(
            &mallory,
            Method::PUT,
            "/api/v1/orgs/acme/members/dave",
            json!({"roles": ["viewer"], "password": ATTACKER_PASSWORD}),
        )
        .await;
    assert_eq!(status, StatusCode::FORBIDDEN);
    let (status, _) = w
        .call(
            &w.root_session,
            Method::PUT,
            "/api/v1/orgs/acme/members/dave",
            json!({"roles": ["viewer"], "password": ATTACKER_PASSWORD}),
        )
        .await;
    assert_eq!(status, StatusCode::OK);
    let beta_admin = w.member("beta", "bea", &["admin"]).await;
    let (status, refused) = w
        .call(
            &beta_admin,
            Method::PUT,
            "/api/v1/orgs/beta/members/dave",
            json!({"roles": ["committer"]}),
        )
        .await;
    assert_eq!(
        status,
        StatusCode::FORBIDDEN,
        "the squatted name gets no role by name alone: {refused}"
    );
    let squatter = sign_in(&w.app, "dave", ATTACKER_PASSWORD).await.unwrap();
    let (_, me) = w.call(&squatter, Method::GET, "/api/v1/me", Value::Null).await;
    assert_eq!(me["roles"], json!([{"org": "acme", "role": "viewer"}]), "{me}");

    // The real Dave signs in through the provider: matched by issuer and subject, never the
    // squatted name.
    let real = oidc_user(&w.stacks, "dave-subject", "dave", &["beta:committer"], false).await;
    assert_ne!(real.name, "dave");
    assert!(
        w.stacks.accounts().ensure_user("dave").await.unwrap().password_hash.is_some(),
        "the squatter's account is untouched"
    );
    let again = oidc_user(&w.stacks, "dave-subject", "dave", &["beta:committer"], false).await;
    assert_eq!(again.id, real.id, "the same person on the next sign-in");
    // Another provider's user with the same subject is someone else.
    let identity = OidcIdentity {
        issuer: "https://other-idp.test".into(),
        subject: "dave-subject".into(),
        email: None,
        name: "dave".into(),
        groups: None,
    };
    assert!(
        w.stacks.accounts().sign_in_oidc(identity, None, false).await.is_err(),
        "never matched across providers"
    );
    // Choosing one's own password changes nothing of that: another organisation's roles come
    // only by accepting its invitation.
    let (status, _) = w
        .call(
            &squatter,
            Method::POST,
            "/api/v1/me/password",
            json!({"current": ATTACKER_PASSWORD, "password": "dave's own choice"}),
        )
        .await;
    assert_eq!(status, StatusCode::OK);
    let (status, refused) = w
        .call(
            &beta_admin,
            Method::PUT,
            "/api/v1/orgs/beta/members/dave",
            json!({"roles": ["viewer"]}),
        )
        .await;
    assert_eq!(status, StatusCode::FORBIDDEN, "{refused}");
}

#[tokio::test]
async fn a_group_from_the_provider_makes_a_server_administrator_only_when_the_server_allows_it() {
    let w = world().await;
    let eve = oidc_user(&w.stacks, "eve-subject", "eve", &["*:admin", "acme:viewer"], false).await;
    let session = As::Session(format!(
        "ferry_session={}",
        w.stacks
            .accounts()
            .start_session(&eve.id, ferry_store::accounts::SessionMethod::Oidc)
            .await
            .unwrap()
            .0
    ));
    let (_, me) = w.call(&session, Method::GET, "/api/v1/me", Value::Null).await;
    assert_eq!(me["roles"], json!([{"org": "acme", "role": "viewer"}]), "`*:admin` ignored: {me}");
    let (status, _) = w.call(&session, Method::GET, "/api/v1/orgs/%2A/audit", Value::Null).await;
    assert_eq!(status, StatusCode::FORBIDDEN);
    // With `--oidc-allow-server-roles`, the provider is trusted with them.
    let eve = oidc_user(&w.stacks, "eve-subject", "eve", &["*:admin"], true).await;
    let session = As::Session(format!(
        "ferry_session={}",
        w.stacks
            .accounts()
            .start_session(&eve.id, ferry_store::accounts::SessionMethod::Oidc)
            .await
            .unwrap()
            .0
    ));
    let (_, me) = w.call(&session, Method::GET, "/api/v1/me", Value::Null).await;
    assert_eq!(me["roles"], json!([{"org": "*", "role": "admin"}]), "{me}");
}

#[tokio::test]
async fn an_organisation_reads_only_its_own_records_and_its_members_sign_ins() {
    let w = world().await;
    let acme_admin = w.member("acme", "alice", &["admin"]).await;
    w.member("beta", "bob", &["planner"]).await;
    w.member("acme", "carol", &["viewer"]).await;
    // Sign-ins, failed ones, a refused upload into beta, a password change of beta's member.
    assert!(sign_in(&w.app, "bob", "not bob's password").await.is_err());
    let bob = sign_in(&w.app, "bob", PASSWORD).await.unwrap();
    let (status, _) = w
        .call(
            &bob,
            Method::POST,
            "/api/v1/me/password",
            json!({"current": PASSWORD, "password": "bob's new password"}),
        )
        .await;
    assert_eq!(status, StatusCode::OK);
    assert!(sign_in(&w.app, "nobody-at-all", "whatever it is").await.is_err());
    let carol = sign_in(&w.app, "carol", PASSWORD).await.unwrap();
    let req = Request::post("/api/v1/stacks?name=beta/web/prod")
        .header(
            header::COOKIE,
            match &carol {
                As::Session(c) => c.clone(),
                As::Token(_) => unreachable!(),
            },
        )
        .header("sec-fetch-site", "same-origin")
        .body(Body::from(ferry_service::demo_export().to_string()))
        .unwrap();
    assert_eq!(common::call(&w.app, req).await.0, StatusCode::FORBIDDEN);

    for uri in ["/api/v1/orgs/acme/audit", "/api/v1/orgs/acme/audit?format=jsonl"] {
        let req = Request::get(uri)
            .header(
                header::COOKIE,
                match &acme_admin {
                    As::Session(c) => c.clone(),
                    As::Token(_) => unreachable!(),
                },
            )
            .body(Body::empty())
            .unwrap();
        let (status, body) = common::call(&w.app, req).await;
        assert_eq!(status, StatusCode::OK, "{uri}");
        let text = body.to_string();
        for foreign in ["bob", "nobody-at-all", "beta/web/prod"] {
            assert!(!text.contains(foreign), "{uri} shows `{foreign}`: {text}");
        }
        assert!(
            text.contains("carol") && text.contains("alice"),
            "its own members' sign-ins: {text}"
        );
    }
    // Beta's administrator sees beta's: Bob's sign-ins and the refused upload into beta.
    let beta_admin = w.member("beta", "bea", &["admin"]).await;
    let (_, records) =
        w.call(&beta_admin, Method::GET, "/api/v1/orgs/beta/audit", Value::Null).await;
    let lines: Vec<String> = records
        .as_array()
        .unwrap()
        .iter()
        .map(|r| format!("{} {} {}", r["actor"], r["action"], r["outcome"]))
        .collect();
    assert!(lines.iter().any(|l| l.contains("\"bob\" \"sign-in\" \"failed")), "{lines:?}");
    assert!(lines.iter().any(|l| l.contains("\"bob\" \"user.password\" \"ok\"")), "{lines:?}");
    assert!(
        lines.iter().any(|l| l.contains("\"carol\" \"stack.upload\" \"denied (403)\"")),
        "a refusal lands with its target: {lines:?}"
    );
    assert!(!lines.iter().any(|l| l.contains("nobody-at-all")), "{lines:?}");
}

#[tokio::test]
async fn members_of_every_organisation_are_shown_by_name_only_and_the_timeline_hides_addresses() {
    let w = world().await;
    let alice = w.member("acme", "alice", &["admin"]).await;
    // Sam holds a role in every organisation; his address is for server administrators.
    oidc_user(&w.stacks, "sam-subject", "sam", &["*:viewer"], true).await;
    let (_, members) = w.call(&alice, Method::GET, "/api/v1/orgs/acme/members", Value::Null).await;
    let sam = members
        .as_array()
        .unwrap()
        .iter()
        .find(|m| m["name"].as_str().unwrap().starts_with("sam"))
        .expect("sam is listed")
        .clone();
    assert_eq!(sam["email"], Value::Null, "{members}");
    let (_, members) = w.call(&w.root, Method::GET, "/api/v1/orgs/acme/members", Value::Null).await;
    let sam = members
        .as_array()
        .unwrap()
        .iter()
        .find(|m| m["name"].as_str().unwrap().starts_with("sam"))
        .unwrap()
        .clone();
    assert_eq!(sam["email"], "sam@example.test", "a server administrator sees it");

    // The plan's timeline: addresses for the organisation's administrators only.
    let viewer = w.member("acme", "vic", &["viewer"]).await;
    let planner = w.member("acme", "pat", &["planner"]).await;
    let acme_stack = upload(&w, "acme/web/prod").await;
    let spec = json!({"resources": [{"type": "random:index/randomInteger:RandomInteger", "name": "n", "id": "5,1,10"}]}).to_string();
    let (status, plan) = w
        .call(
            &planner,
            Method::POST,
            &format!("/api/v1/stacks/{acme_stack}/plans"),
            json!({"spec": spec}),
        )
        .await;
    assert_eq!(status, StatusCode::CREATED, "{plan}");
    let plan = plan["id"].as_str().unwrap().to_string();
    let (_, seen) =
        w.call(&viewer, Method::GET, &format!("/api/v1/plans/{plan}/activity"), Value::Null).await;
    assert!(!seen.as_array().unwrap().is_empty());
    assert!(seen.as_array().unwrap().iter().all(|r| r.get("address").is_none()), "{seen}");
    let (_, seen) =
        w.call(&alice, Method::GET, &format!("/api/v1/plans/{plan}/activity"), Value::Null).await;
    assert!(seen.as_array().unwrap().iter().all(|r| r["address"].is_string()), "{seen}");
}

/// Uploads the demo state as `name`, moved to that name (as the server administrator); the
/// stack's ID.
pub(crate) async fn upload(w: &World, name: &str) -> String {
    let req = Request::post(format!("/api/v1/stacks?name={name}&force=true"))
        .header(header::AUTHORIZATION, w.root.bearer())
        .body(Body::from(ferry_service::demo_export().to_string()))
        .unwrap();
    let (status, stack) = common::call(&w.app, req).await;
    assert_eq!(status, StatusCode::CREATED, "{stack}");
    stack["id"].as_str().unwrap().to_string()
}

fn backend_fixture(name: &str) -> Vec<u8> {
    let dir = std::env::var_os("FERRY_FIXTURES")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../shared/fixtures"));
    std::fs::read(dir.join("pulumi/state/real-diy-checkpoint").join(name)).unwrap()
}

/// A DIY backend folder holding one real checkpoint, `organization/s3bucket-test/test-upsert`.
pub(crate) fn backend_folder(root: &Path) -> String {
    std::fs::create_dir_all(root.join(".pulumi/stacks/s3bucket-test")).unwrap();
    std::fs::write(root.join(".pulumi/meta.yaml"), "version: 1\n").unwrap();
    std::fs::write(
        root.join(".pulumi/stacks/s3bucket-test/test-upsert.json"),
        backend_fixture("test-upsert.checkpoint.json"),
    )
    .unwrap();
    format!("file://{}", root.display())
}

#[tokio::test]
async fn a_connect_lands_in_the_organisation_it_names_and_never_repoints_a_stack() {
    let dir = tempfile::tempdir().unwrap();
    let url = backend_folder(dir.path());
    let engine =
        EngineConfig::new(vec![common::plugin_dir()], None, ferry_state::secrets::random_key());
    let w = world_with(engine, vec![AllowedBackend { org: "acme".into(), url: url.clone() }]).await;
    // A stack the backend's own name points at, in organisation `organization`.
    let theirs = upload(&w, "organization/s3bucket-test/test-upsert").await;
    let planner = w.member("acme", "pat", &["planner"]).await;

    let (status, connected) = w
        .call(
            &planner,
            Method::POST,
            "/api/v1/stacks",
            json!({"backend": url, "name": "acme/s3bucket-test/test-upsert"}),
        )
        .await;
    assert_eq!(status, StatusCode::CREATED, "{connected}");
    assert_eq!(
        connected["name"], "acme/s3bucket-test/test-upsert",
        "stored under the name asked for"
    );
    assert_ne!(connected["id"].as_str().unwrap(), theirs);
    let (_, versions) = w
        .call(&w.root, Method::GET, &format!("/api/v1/stacks/{theirs}/versions"), Value::Null)
        .await;
    assert_eq!(
        versions.as_array().unwrap().len(),
        1,
        "the other organisation's stack is untouched: {versions}"
    );
    let (_, locks) =
        w.call(&w.root, Method::GET, &format!("/api/v1/stacks/{theirs}/locks"), Value::Null).await;
    assert_eq!(locks, json!([]));

    // A second connect under a name Ferry holds is refused: nothing is re-pointed.
    let (status, refused) = w
        .call(
            &planner,
            Method::POST,
            "/api/v1/stacks",
            json!({"backend": url, "name": "acme/s3bucket-test/test-upsert"}),
        )
        .await;
    assert_eq!(status, StatusCode::CONFLICT, "{refused}");
    // Into another organisation: refused, and the backend is not allowed there either.
    let (status, refused) = w
        .call(
            &planner,
            Method::POST,
            "/api/v1/stacks",
            json!({"backend": url, "name": "organization/s3bucket-test/test-upsert"}),
        )
        .await;
    assert_eq!(status, StatusCode::FORBIDDEN, "{refused}");
    let (_, versions) = w
        .call(&w.root, Method::GET, &format!("/api/v1/stacks/{theirs}/versions"), Value::Null)
        .await;
    assert_eq!(versions.as_array().unwrap().len(), 1, "{versions}");
    let (status, refused) = w
        .call(
            &w.root,
            Method::POST,
            "/api/v1/stacks",
            json!({"backend": url, "name": "beta/s3bucket-test/test-upsert"}),
        )
        .await;
    assert_eq!(
        (status, refused["error"]["code"].as_str()),
        (StatusCode::FORBIDDEN, Some("backend_not_allowed")),
        "{refused}"
    );
}

#[tokio::test]
async fn listing_a_backend_needs_a_planner_of_an_organisation_it_is_allowed_to() {
    let dir = tempfile::tempdir().unwrap();
    let url = backend_folder(dir.path());
    let engine =
        EngineConfig::new(vec![common::plugin_dir()], None, ferry_state::secrets::random_key());
    let w = world_with(engine, vec![AllowedBackend { org: "acme".into(), url: url.clone() }]).await;
    let nobody = sign_in_by_link(&w.app, &w.stacks, "nora").await;
    let viewer = w.member("acme", "vic", &["viewer"]).await;
    let planner = w.member("acme", "pat", &["planner"]).await;
    let beta = w.member("beta", "bob", &["planner"]).await;
    let list = |org: &str| format!("/api/v1/backends/stacks?org={org}&url={url}");
    for (who, org, expected) in [
        (&nobody, "acme", StatusCode::FORBIDDEN),
        (&viewer, "acme", StatusCode::FORBIDDEN),
        (&beta, "beta", StatusCode::FORBIDDEN),
        (&beta, "acme", StatusCode::FORBIDDEN),
        (&planner, "acme", StatusCode::OK),
    ] {
        let (status, body) = w.call(who, Method::GET, &list(org), Value::Null).await;
        assert_eq!(status, expected, "{org}: {body}");
    }
}

#[tokio::test]
async fn a_planner_who_also_approves_cannot_approve_a_plan_they_made_from_a_discovery() {
    let w = world().await;
    let (_, stacks) = w.call(&w.root, Method::GET, "/api/v1/stacks", Value::Null).await;
    let stack = stacks[0]["id"].as_str().unwrap().to_string();
    let org = stacks[0]["name"].as_str().unwrap().split('/').next().unwrap().to_string();
    let (status, _) = w
        .call(
            &w.root,
            Method::PUT,
            &format!("/api/v1/stacks/{stack}/settings"),
            json!({"required_approvals": 1}),
        )
        .await;
    assert_eq!(status, StatusCode::OK);
    let pam = w.member(&org, "pam", &["planner", "approver"]).await;
    let items = json!({"items": [{"type": "random:index/randomInteger:RandomInteger", "id": "7,1,10", "name": "seven"}]});
    let (status, plan) = w
        .call(&pam, Method::POST, &format!("/api/v1/stacks/{stack}/discoveries/plan"), items)
        .await;
    assert_eq!(status, StatusCode::CREATED, "{plan}");
    let plan = plan["id"].as_str().unwrap().to_string();
    let (status, job) =
        w.call(&pam, Method::POST, &format!("/api/v1/plans/{plan}/previews"), Value::Null).await;
    assert_eq!(status, StatusCode::ACCEPTED, "{job}");
    let preview = wait_for_preview(&w, &pam, &plan, job["id"].as_str().unwrap()).await;
    let (status, refused) = w
        .call(
            &pam,
            Method::POST,
            &format!("/api/v1/plans/{plan}/approvals"),
            json!({"revision": 1, "preview": preview}),
        )
        .await;
    assert_eq!(status, StatusCode::FORBIDDEN, "{refused}");

    // Someone who only wrote a later revision is an author too.
    let ann = w.member(&org, "ann", &["planner", "approver"]).await;
    let (_, view) = w.call(&ann, Method::GET, &format!("/api/v1/plans/{plan}"), Value::Null).await;
    let (status, _) = w
        .call(
            &ann,
            Method::POST,
            &format!("/api/v1/plans/{plan}/revisions"),
            json!({"spec": view["current"]["spec"]}),
        )
        .await;
    assert_eq!(status, StatusCode::CREATED);
    let (_, job) =
        w.call(&ann, Method::POST, &format!("/api/v1/plans/{plan}/previews"), Value::Null).await;
    let preview = wait_for_preview(&w, &ann, &plan, job["id"].as_str().unwrap()).await;
    let (status, refused) = w
        .call(
            &ann,
            Method::POST,
            &format!("/api/v1/plans/{plan}/approvals"),
            json!({"revision": 2, "preview": preview}),
        )
        .await;
    assert_eq!(status, StatusCode::FORBIDDEN, "{refused}");
    let (_, state) =
        w.call(&ann, Method::GET, &format!("/api/v1/plans/{plan}/approvals"), Value::Null).await;
    assert_eq!(state["authors"], json!(["ann", "pam"]), "{state}");
}

/// Follows a plan's preview job to its end; the stored preview's ID.
async fn wait_for_preview(w: &World, who: &As, plan: &str, job: &str) -> String {
    for _ in 0..600 {
        let (_, view) = w
            .call(who, Method::GET, &format!("/api/v1/plans/{plan}/jobs/{job}"), Value::Null)
            .await;
        match view["status"].as_str() {
            Some("done") => return view["preview_id"].as_str().unwrap().to_string(),
            Some("queued" | "running") => {
                tokio::time::sleep(std::time::Duration::from_millis(50)).await
            }
            _ => panic!("the preview did not finish: {view}"),
        }
    }
    panic!("the preview took over 30 s");
}

#[tokio::test]
async fn a_plugin_sees_only_the_server_variables_given_to_its_package() {
    // The test process's own variables stand for the server's credentials: cargo sets
    // `CARGO_MANIFEST_DIR` for every test it runs.
    let secret = "CARGO_MANIFEST_DIR";
    assert!(std::env::var_os(secret).is_some(), "cargo sets {secret} for tests");
    let passed = "CARGO_PKG_NAME";
    assert!(std::env::var_os(passed).is_some(), "cargo sets {passed} for tests");
    let plugins = common::naive_plugin_dir();
    let engine = EngineConfig::new(
        vec![plugins.path().to_path_buf(), common::plugin_dir()],
        None,
        ferry_state::secrets::random_key(),
    )
    .with_plugin_environment(ferry_engine::plugin::PluginEnvPolicy::Granted(
        ferry_engine::plugin::PluginEnvGrants::parse(&[
            format!("ferry:test={passed}"),
            format!("beta:test={secret}"),
        ])
        .unwrap(),
    ));
    let w = world_with(engine, Vec::new()).await;
    let any =
        ferry_types::OrgSettingsView { allowed_packages: vec!["*".into()], ..Default::default() };
    w.stacks.accounts().set_org_settings("*", any).await.unwrap();
    let (_, stacks) = w.call(&w.root, Method::GET, "/api/v1/stacks", Value::Null).await;
    let stack = stacks[0]["id"].as_str().unwrap().to_string();
    // `env-<NAME>` reads as gone unless the plugin's environment holds the variable.
    let spec = json!({"resources": [
        {"type": "test:index:Bucket", "name": "secret", "id": format!("env-{secret}")},
        {"type": "test:index:Bucket", "name": "passed", "id": format!("env-{passed}")},
        {"type": "test:index:Bucket", "name": "path", "id": "env-PATH"},
    ]});
    let (status, preview) =
        w.call(&w.root, Method::POST, &format!("/api/v1/stacks/{stack}/previews"), spec).await;
    assert_eq!(status, StatusCode::CREATED, "{preview}");
    let status_of = |name: &str| {
        preview["preview"]["resources"]
            .as_array()
            .unwrap()
            .iter()
            .find(|r| r["name"] == name)
            .map(|r| r["status"].as_str().unwrap().to_string())
            .unwrap()
    };
    assert_eq!(
        status_of("secret"),
        "not-found",
        "a variable given to another organisation's plugins: {preview}"
    );
    assert_ne!(status_of("passed"), "not-found", "{preview}");
    assert_ne!(status_of("path"), "not-found", "the minimal environment: {preview}");
}

//! Signing in and out over HTTP: sessions, cookies, CSRF, rate limits, API tokens, the audit log
//! and the security headers, through the whole router.

use crate::common;

use axum::body::Body;
use axum::http::{header, Request, StatusCode};
use axum::Router;
use ferry_service::access::Role;
use http_body_util::BodyExt;
use serde_json::{json, Value};
use tower::ServiceExt;

async fn app() -> (Router, std::sync::Arc<ferry_service::Ferry>) {
    let store = ferry_store::testing::scratch().await.unwrap();
    common::bare_app_of(ferry_service::Ferry::new(store, 1 << 20), true).await
}

async fn send(app: &Router, req: Request<Body>) -> (StatusCode, axum::http::HeaderMap, String) {
    let res = app.clone().oneshot(req).await.unwrap();
    let status = res.status();
    let headers = res.headers().clone();
    let body =
        String::from_utf8_lossy(&res.into_body().collect().await.unwrap().to_bytes()).into_owned();
    (status, headers, body)
}

fn json_post(uri: &str, body: Value) -> axum::http::request::Builder {
    let _ = body;
    Request::post(uri).header(header::CONTENT_TYPE, "application/json")
}

async fn sign_in(app: &Router, name: &str, password: &str) -> (StatusCode, Option<String>, String) {
    let body = json!({"name": name, "password": password}).to_string();
    let (status, headers, text) =
        send(app, json_post("/auth/login", json!({})).body(Body::from(body)).unwrap()).await;
    let cookie = headers.get(header::SET_COOKIE).map(|v| v.to_str().unwrap().to_string());
    (status, cookie, text)
}

#[tokio::test]
async fn a_session_signs_in_reads_writes_from_its_own_pages_and_signs_out() {
    let (app, stacks) = app().await;
    let admin = common::token_for(&stacks, "root", "*", Role::Admin).await;
    common::local_user(&app, &stacks, "ferry", "pat", &["planner"], "correct horse battery").await;

    let (status, cookie, body) = sign_in(&app, "pat", "wrong password!").await;
    assert_eq!((status, cookie), (StatusCode::UNAUTHORIZED, None), "{body}");
    let (status, cookie, _) = sign_in(&app, "pat", "correct horse battery").await;
    assert_eq!(status, StatusCode::OK);
    let cookie = cookie.expect("a session cookie");
    for attribute in ["HttpOnly", "SameSite=Lax", "Path=/"] {
        assert!(cookie.contains(attribute), "{cookie}");
    }
    assert!(!cookie.contains("Secure"), "no TLS here: {cookie}");
    let session = cookie.split(';').next().unwrap().to_string();

    let me =
        Request::get("/api/v1/me").header(header::COOKIE, &session).body(Body::empty()).unwrap();
    let (status, _, body) = send(&app, me).await;
    assert_eq!(status, StatusCode::OK);
    let me: Value = serde_json::from_str(&body).unwrap();
    assert_eq!(me["name"], "pat");
    assert_eq!(me["roles"], json!([{"org": "ferry", "role": "planner"}]));

    // A write with the cookie from another site is refused; from Ferry's pages it goes through.
    let (_, _, list) = send(
        &app,
        Request::get("/api/v1/stacks")
            .header(header::COOKIE, &session)
            .body(Body::empty())
            .unwrap(),
    )
    .await;
    let stack =
        serde_json::from_str::<Value>(&list).unwrap()[0]["id"].as_str().unwrap().to_string();
    let plan = |site: &str| {
        Request::post(format!("/api/v1/stacks/{stack}/plans"))
            .header(header::COOKIE, &session)
            .header("sec-fetch-site", site)
            .header(header::CONTENT_TYPE, "application/json")
            .body(Body::from(
                json!({"spec": json!({"resources": [{"type": "random:index/randomPet:RandomPet", "name": "p", "id": "a-b"}]}).to_string()}).to_string(),
            ))
            .unwrap()
    };
    let (status, _, body) = send(&app, plan("cross-site")).await;
    assert_eq!(status, StatusCode::FORBIDDEN, "{body}");
    assert!(body.contains("cross_site"), "{body}");
    let (status, _, body) = send(&app, plan("same-origin")).await;
    assert_eq!(status, StatusCode::CREATED, "{body}");
    // Without Sec-Fetch-Site, the Origin must be this host.
    let by_origin = |origin: &str| {
        Request::post("/api/v1/me/password")
            .header(header::COOKIE, &session)
            .header(header::HOST, "ferry.test")
            .header(header::ORIGIN, origin)
            .header(header::CONTENT_TYPE, "application/json")
            .body(Body::from(
                json!({"current": "correct horse battery", "password": "short"}).to_string(),
            ))
            .unwrap()
    };
    assert_eq!(send(&app, by_origin("https://evil.test")).await.0, StatusCode::FORBIDDEN);
    assert_eq!(
        send(&app, by_origin("http://ferry.test")).await.0,
        StatusCode::BAD_REQUEST,
        "the password is too short, but the request came through"
    );

    // Signing out everywhere ends every session of the user, on the server.
    let (_, other, _) = sign_in(&app, "pat", "correct horse battery").await;
    let other = other.unwrap().split(';').next().unwrap().to_string();
    let everywhere = Request::post("/api/v1/me/sessions/revoke")
        .header(header::COOKIE, &other)
        .header("sec-fetch-site", "same-origin")
        .body(Body::empty())
        .unwrap();
    assert_eq!(send(&app, everywhere).await.0, StatusCode::OK);
    let me =
        Request::get("/api/v1/me").header(header::COOKIE, &session).body(Body::empty()).unwrap();
    assert_eq!(send(&app, me).await.0, StatusCode::UNAUTHORIZED, "the first session ended too");
    let (_, again, _) = sign_in(&app, "pat", "correct horse battery").await;
    let session = again.unwrap().split(';').next().unwrap().to_string();

    // Signing out ends the session on the server: the old cookie no longer works.
    let out = Request::post("/auth/logout")
        .header(header::COOKIE, &session)
        .header("sec-fetch-site", "same-origin")
        .body(Body::empty())
        .unwrap();
    let (status, headers, _) = send(&app, out).await;
    assert_eq!(status, StatusCode::SEE_OTHER);
    assert!(headers.get(header::SET_COOKIE).unwrap().to_str().unwrap().contains("Max-Age=0"));
    let me =
        Request::get("/api/v1/me").header(header::COOKIE, &session).body(Body::empty()).unwrap();
    assert_eq!(send(&app, me).await.0, StatusCode::UNAUTHORIZED);

    // Every attempt is in the audit log, failed ones too, with what was done between (a
    // cross-site write never reached its route).
    let audit = Request::get("/api/v1/orgs/ferry/audit?format=jsonl")
        .header(header::AUTHORIZATION, format!("Bearer {admin}"))
        .body(Body::empty())
        .unwrap();
    let (status, headers, text) = send(&app, audit).await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(headers.get(header::CONTENT_TYPE).unwrap(), "application/jsonl");
    let records: Vec<Value> = text.lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    let summary: Vec<String> = records
        .iter()
        .map(|r| {
            format!(
                "{} {} {}",
                r["actor"].as_str().unwrap(),
                r["action"].as_str().unwrap(),
                r["outcome"].as_str().unwrap()
            )
        })
        .collect();
    let expected = [
        "session-admin member.set ok",
        "pat sign-in failed: wrong name or password",
        "pat sign-in ok",
        "pat plan.create ok",
        "pat user.password failed (400)",
        "pat sign-in ok",
        "pat session.revoke-all ok",
        "pat sign-in ok",
        "pat sign-out ok",
    ];
    assert_eq!(summary, expected, "{text}");
    assert!(records.iter().all(|r| r["address"].is_string() && r["at"].is_string()));
}

#[tokio::test]
async fn sign_in_is_rate_limited_per_account() {
    let (app, stacks) = app().await;
    common::local_user(&app, &stacks, "ferry", "sam", &["viewer"], "correct horse battery").await;
    let mut statuses = Vec::new();
    for _ in 0..12 {
        statuses.push(sign_in(&app, "sam", "not the password").await.0);
    }
    assert_eq!(statuses[..10], [StatusCode::UNAUTHORIZED; 10]);
    assert_eq!(statuses[10..], [StatusCode::TOO_MANY_REQUESTS; 2]);
    // Even the right password waits now.
    let (status, _, body) = sign_in(&app, "sam", "correct horse battery").await;
    assert_eq!(status, StatusCode::TOO_MANY_REQUESTS, "{body}");
    assert!(body.contains("too many sign-in attempts"), "{body}");
}

#[tokio::test]
async fn api_tokens_are_shown_once_stored_hashed_act_with_their_role_and_can_be_revoked() {
    let (app, stacks) = app().await;
    common::local_user(
        &app,
        &stacks,
        "ferry",
        "ci",
        &["planner", "committer"],
        "correct horse battery",
    )
    .await;
    let (_, cookie, _) = sign_in(&app, "ci", "correct horse battery").await;
    let session = cookie.unwrap().split(';').next().unwrap().to_string();
    let create = |body: Value| {
        Request::post("/api/v1/me/tokens")
            .header(header::COOKIE, &session)
            .header("sec-fetch-site", "same-origin")
            .header(header::CONTENT_TYPE, "application/json")
            .body(Body::from(body.to_string()))
            .unwrap()
    };
    // No token grants more than its user holds.
    let (status, _, body) =
        send(&app, create(json!({"name": "too much", "org": "ferry", "role": "admin"}))).await;
    assert_eq!(status, StatusCode::FORBIDDEN, "{body}");
    let (status, _, body) = send(
        &app,
        create(json!({"name": "pipeline", "org": "ferry", "role": "planner", "days": 7})),
    )
    .await;
    assert_eq!(status, StatusCode::CREATED, "{body}");
    let created: Value = serde_json::from_str(&body).unwrap();
    let token = created["token"].as_str().unwrap().to_string();
    assert!(token.starts_with("ferry_"));
    // Listed without the secret.
    let (_, _, list) = send(
        &app,
        Request::get("/api/v1/me/tokens")
            .header(header::COOKIE, &session)
            .body(Body::empty())
            .unwrap(),
    )
    .await;
    assert!(!list.contains(&token) && list.contains("pipeline"), "{list}");

    let bearer = |uri: &str| {
        Request::get(uri)
            .header(header::AUTHORIZATION, format!("Bearer {token}"))
            .body(Body::empty())
            .unwrap()
    };
    let (status, _, body) = send(&app, bearer("/api/v1/me")).await;
    assert_eq!(status, StatusCode::OK);
    let me: Value = serde_json::from_str(&body).unwrap();
    assert_eq!(
        me["roles"],
        json!([{"org": "ferry", "role": "planner"}]),
        "the token's one role, not the user's two"
    );

    let revoke = Request::delete(format!("/api/v1/me/tokens/{}", created["id"].as_str().unwrap()))
        .header(header::COOKIE, &session)
        .header("sec-fetch-site", "same-origin")
        .body(Body::empty())
        .unwrap();
    assert_eq!(send(&app, revoke).await.0, StatusCode::OK);
    let (status, _, body) = send(&app, bearer("/api/v1/me")).await;
    assert_eq!(status, StatusCode::UNAUTHORIZED);
    assert!(body.contains("was revoked"), "{body}");
    let (status, _, body) = send(
        &app,
        Request::get("/api/v1/me")
            .header(header::AUTHORIZATION, "Basic abc")
            .body(Body::empty())
            .unwrap(),
    )
    .await;
    assert_eq!(status, StatusCode::UNAUTHORIZED);
    assert!(body.contains("Bearer"), "{body}");
}

#[tokio::test]
async fn a_one_time_link_signs_in_once_and_pages_send_strangers_to_sign_in() {
    let (app, stacks) = app().await;
    let link = stacks
        .accounts()
        .ensure_first_admin()
        .await
        .unwrap()
        .expect("a fresh store gets an administrator");
    assert!(stacks.accounts().ensure_first_admin().await.unwrap().is_none(), "only once");
    let (status, headers, _) = send(&app, Request::get("/").body(Body::empty()).unwrap()).await;
    assert_eq!(status, StatusCode::SEE_OTHER);
    assert_eq!(headers.get(header::LOCATION).unwrap(), "/signin?next=%2F");

    let (status, headers, _) =
        send(&app, Request::get(format!("/auth/link/{}", link.0)).body(Body::empty()).unwrap())
            .await;
    assert_eq!(status, StatusCode::SEE_OTHER);
    assert_eq!(headers.get(header::LOCATION).unwrap(), "/account");
    let session = headers
        .get(header::SET_COOKIE)
        .unwrap()
        .to_str()
        .unwrap()
        .split(';')
        .next()
        .unwrap()
        .to_string();
    let (status, _, page) = send(
        &app,
        Request::get("/account").header(header::COOKIE, &session).body(Body::empty()).unwrap(),
    )
    .await;
    assert_eq!(status, StatusCode::OK);
    assert!(page.contains("id=\"account-name\"") && page.contains(">admin<"), "{page}");
    let (status, _, _) =
        send(&app, Request::get(format!("/auth/link/{}", link.0)).body(Body::empty()).unwrap())
            .await;
    assert_eq!(status, StatusCode::UNAUTHORIZED, "a link works once");
}

#[tokio::test]
async fn every_answer_carries_the_security_headers() {
    let (app, _) = app().await;
    for uri in ["/signin", "/api/v1/stacks", "/healthz", "/no-such-page"] {
        let (_, headers, _) = send(&app, Request::get(uri).body(Body::empty()).unwrap()).await;
        let csp = headers
            .get(header::CONTENT_SECURITY_POLICY)
            .unwrap_or_else(|| panic!("{uri}: no CSP"))
            .to_str()
            .unwrap();
        assert!(
            csp.contains("frame-ancestors 'none'")
                && csp.contains("'wasm-unsafe-eval'")
                && csp.contains("worker-src 'self' blob:"),
            "{csp}"
        );
        assert_eq!(headers.get(header::X_CONTENT_TYPE_OPTIONS).unwrap(), "nosniff", "{uri}");
        assert_eq!(headers.get(header::REFERRER_POLICY).unwrap(), "no-referrer", "{uri}");
    }
}

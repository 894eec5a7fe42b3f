//! Behind a proxy the administrator trusts (`--trusted-proxy`), Ferry still knows who is
//! calling: the client's address comes from the proxy's `X-Forwarded-For` (or `Forwarded`), so
//! the per-address sign-in limit and the audit log are about the client, not the proxy; the
//! scheme from `X-Forwarded-Proto` makes the session cookie `Secure`. The same headers from
//! anyone else are ignored.

use crate::common;

use std::net::SocketAddr;

use axum::body::Body;
use axum::extract::ConnectInfo;
use axum::http::{header, Request, StatusCode};
use axum::Router;
use ferry_service::access::Role;
use serde_json::json;

/// The app as reached from `peer`, trusting the proxies in `10.0.0.0/8`.
async fn app_from(stacks: std::sync::Arc<ferry_service::Ferry>, peer: &'static str) -> Router {
    let leptos_options = leptos::prelude::LeptosOptions::builder()
        .output_name("site")
        .site_root("target/site")
        .build();
    let proxies = server::client_address::TrustedProxies::parse(&["10.0.0.0/8"]).unwrap();
    let state = server::AppState::new(leptos_options, stacks, server::AuthConfig::default())
        .with_trusted_proxies(proxies);
    server::router(state).layer(axum::middleware::map_request(
        move |mut req: Request<Body>| async move {
            req.extensions_mut().insert(ConnectInfo(peer.parse::<SocketAddr>().unwrap()));
            req
        },
    ))
}

fn sign_in(name: &str, forwarded_for: &str, proto: &str) -> Request<Body> {
    Request::post("/auth/login")
        .header(header::CONTENT_TYPE, "application/json")
        .header("x-forwarded-for", forwarded_for)
        .header("x-forwarded-proto", proto)
        .body(Body::from(json!({"name": name, "password": "correct horse battery"}).to_string()))
        .unwrap()
}

#[tokio::test]
async fn behind_a_trusted_proxy_the_client_is_who_the_proxy_says_and_a_forger_is_ignored() {
    let store = ferry_store::testing::scratch().await.unwrap();
    let (_, stacks) = common::bare_app_of(ferry_service::Ferry::new(store, 1 << 20), false).await;
    let root = common::token_for(&stacks, "root", "*", Role::Admin).await;
    let proxied = app_from(stacks.clone(), "10.0.0.5:44321").await;
    let direct = app_from(stacks.clone(), "198.51.100.2:5555").await;
    let admin = common::as_caller(proxied.clone(), root);
    common::local_user(&proxied, &stacks, "acme", "pat", &["viewer"], "correct horse battery")
        .await;

    // Through the proxy: the client's address, the rightmost hop that is not a trusted proxy.
    let res = tower::ServiceExt::oneshot(
        proxied.clone(),
        sign_in("pat", "192.0.2.44, 203.0.113.9, 10.0.0.7", "https"),
    )
    .await
    .unwrap();
    assert_eq!(res.status(), StatusCode::OK);
    let cookie = res.headers()[header::SET_COOKIE].to_str().unwrap().to_string();
    assert!(cookie.contains("Secure"), "the client came over TLS, as the proxy says: {cookie}");
    // From anyone else the same headers are ignored: the peer is the client, over plain HTTP.
    let res = tower::ServiceExt::oneshot(direct.clone(), sign_in("pat", "1.2.3.4", "https"))
        .await
        .unwrap();
    assert_eq!(res.status(), StatusCode::OK);
    assert!(
        !res.headers()[header::SET_COOKIE].to_str().unwrap().contains("Secure"),
        "a forged scheme is ignored"
    );

    let (_, records) = common::call(&admin, common::get("/api/v1/orgs/%2A/audit")).await;
    let addresses: Vec<&str> = records
        .as_array()
        .unwrap()
        .iter()
        .filter(|r| r["action"] == "sign-in")
        .map(|r| r["address"].as_str().unwrap())
        .collect::<Vec<_>>();
    // (The administrator who made `pat` signed in through the proxy, from it.)
    assert_eq!(addresses, ["10.0.0.5", "203.0.113.9", "198.51.100.2"], "{records}");

    // The per-address limit is the client's: one client's 60 failures through the proxy do
    // not hold up another client behind the same proxy.
    let mut limited = None;
    for i in 0..70 {
        let mut req = sign_in(&format!("nobody-{i}"), "203.0.113.66", "https");
        *req.body_mut() = Body::from(
            json!({"name": format!("nobody-{i}"), "password": "wrong wrong wrong"}).to_string(),
        );
        let status = tower::ServiceExt::oneshot(proxied.clone(), req).await.unwrap().status();
        if status == StatusCode::TOO_MANY_REQUESTS {
            limited = Some(i);
            break;
        }
    }
    assert!(limited.is_some(), "the noisy client was limited");
    let res = tower::ServiceExt::oneshot(proxied.clone(), sign_in("pat", "203.0.113.77", "https"))
        .await
        .unwrap();
    assert_eq!(res.status(), StatusCode::OK, "another client behind the same proxy signs in");
}

//! The `ferry` server: the Leptos UI (server-rendered, hydrated), its server functions, the
//! JSON API and static files, over one [`Ferry`].
//!
//! Architecture Invariant: handlers only translate between HTTP and the service; what Ferry
//! does lives in the `ferry-*` crates. Every route is built with its access decision
//! (`access.rs`); only static files and the health check are outside it.

pub mod access;
pub mod api;
pub mod auth;
pub mod client_address;
pub mod error;
pub mod extract;
pub mod oidc;
pub mod openapi;
pub mod review_api;
pub mod security;
mod session;

use std::sync::Arc;
use std::time::Duration;

use access::{AccessTable, Gate, Routes};
use app::{shell, App};
use axum::extract::{FromRef, Request};
use axum::http::{header, HeaderValue, Method};
use axum::routing::get;
use axum::Router;
use ferry_service::Ferry;
use leptos::prelude::*;
use leptos_axum::{generate_route_list, LeptosRoutes};
use tower_http::compression::CompressionLayer;
use tower_http::services::ServeDir;
use tower_http::set_header::SetResponseHeaderLayer;
use tower_http::trace::TraceLayer;

pub use auth::AuthConfig;

/// What every handler can reach.
#[derive(Clone, FromRef)]
pub struct AppState {
    pub leptos_options: LeptosOptions,
    pub ferry: Arc<Ferry>,
    pub auth: Arc<AuthConfig>,
    /// Every route's access decision; filled in by [`router`].
    pub access: Arc<AccessTable>,
    /// The proxies whose forwarding headers name the client (`--trusted-proxy`).
    pub proxies: Arc<client_address::TrustedProxies>,
}

impl AppState {
    pub fn new(leptos_options: LeptosOptions, ferry: Arc<Ferry>, auth: AuthConfig) -> AppState {
        AppState {
            leptos_options,
            ferry,
            auth: Arc::new(auth),
            access: Default::default(),
            proxies: Default::default(),
        }
    }

    /// Believes the forwarding headers of requests from `proxies` (and of no one else).
    pub fn with_trusted_proxies(mut self, proxies: client_address::TrustedProxies) -> AppState {
        self.proxies = Arc::new(proxies);
        self
    }
}

/// The app's routes, collected once per process. Collecting renders the app in a special mode;
/// doing it while another router renders a page (tests build several) leaves that page's
/// resources unresolved, so it happens exactly once, before any router exists.
fn route_list() -> Vec<leptos_axum::AxumRouteListing> {
    static ROUTES: std::sync::OnceLock<Vec<leptos_axum::AxumRouteListing>> =
        std::sync::OnceLock::new();
    ROUTES.get_or_init(|| generate_route_list(App)).clone()
}

/// Who may open each page. A page added to the app without a decision here stops the server
/// from starting (and so fails every test).
fn page_gate(path: &str) -> Gate {
    match path {
        "/signin" | "/invitations/{token}" => Gate::Public,
        "/shared/{token}" | "/shared/{token}/r/{rev}" => Gate::Share,
        "/"
        | "/account"
        | "/stacks/{id}"
        | "/stacks/{id}/graph"
        | "/stacks/{id}/discover"
        | "/stacks/{id}/plans"
        | "/plans/{id}"
        | "/plans/{id}/r/{rev}" => Gate::Page,
        other => panic!("the page `{other}` has no access decision (add it to `page_gate`)"),
    }
}

/// Every gated route: sign-in, the API, server functions and pages; and their decisions.
pub fn gated_routes(state: &AppState) -> (Router<AppState>, AccessTable) {
    let pages = route_list();
    let ferry = state.ferry.clone();
    let methods = ferry_types::SignInMethods { oidc: state.auth.oidc.is_some() };
    let context = move || {
        provide_context(ferry.clone());
        provide_context(methods);
    };
    let mut routes = Routes::new("")
        // Sign-in attempts are audited by the service (with the name tried), so no action here.
        .post("/auth/login", Gate::Public, "", auth::login)
        .post("/auth/logout", Gate::Public, "sign-out", auth::logout)
        .get("/auth/link/{token}", Gate::Public, "", auth::sign_in_link)
        // Accepting is audited by the service (in the organisation joined).
        .post("/auth/invitations/{token}", Gate::Public, "", auth::accept_invitation)
        .get("/auth/oidc/login", Gate::Public, "", oidc::login)
        .get("/auth/oidc/callback", Gate::Public, "", oidc::callback)
        .nest(api::routes(), api::fallback());
    // Leptos registers the pages and the server functions (`/rpc/<name><hash>`); each server
    // function checks its caller against the object its arguments name.
    for page in &pages {
        routes = routes.declare(Method::GET, page.path(), page_gate(page.path()), "");
    }
    for (path, method) in leptos::server_fn::axum::server_fn_paths() {
        routes = routes.declare(method, path, Gate::ServerFn, "");
    }
    let options = state.leptos_options.clone();
    routes
        .map_router(move |router| {
            router.leptos_routes_with_context(state, pages, context, move || shell(options.clone()))
        })
        .finish()
}

/// The whole application as one router (no socket: tests call it directly).
pub fn router(state: AppState) -> Router {
    let (gated, table) = gated_routes(&state);
    let state = AppState { access: Arc::new(table), ..state };
    let ferry = state.ferry.clone();
    let context = move || provide_context(ferry.clone());
    let pkg_dir = std::path::Path::new(&*state.leptos_options.site_root)
        .join(&*state.leptos_options.site_pkg_dir);

    gated
        .layer(axum::middleware::from_fn_with_state(state.clone(), access::authorize))
        .layer(axum::middleware::from_fn_with_state(state.clone(), auth::identify))
        // First of all: who is calling from where (behind a trusted proxy, what it says).
        .layer(axum::middleware::from_fn_with_state(state.proxies.clone(), client_address::identify_client))
        // Public: the wasm, scripts and styles, and the health check.
        .nest_service(
            "/pkg",
            tower::ServiceBuilder::new()
                // File names are not hashed, so browsers revalidate (cheap 304s via Last-Modified).
                .layer(SetResponseHeaderLayer::overriding(header::CACHE_CONTROL, HeaderValue::from_static("public, max-age=0, must-revalidate")))
                .service(ServeDir::new(pkg_dir).precompressed_gzip()),
        )
        .route("/healthz", get(|| async { "ok" }))
        .fallback(leptos_axum::file_and_error_handler_with_context::<AppState, _>(context, shell))
        // The fastest level: answers are JSON and HTML, which compress well at any level, and
        // some are megabytes (a 10,000-step plan is 7 MB) that the default level spent 40 to 90
        // ms compressing, as long as the answer took to serialise. zstd where the client takes
        // it (Chromium and Firefox do): a 10,000-import preview's 5.7 MB answer packs into
        // 69 kB in about 10 ms, where gzip's fastest level takes 24 ms for 205 kB (measured
        // with the command-line tools, 2026-11-26).
        .layer(CompressionLayer::new().quality(tower_http::CompressionLevel::Fastest))
        .layer(security::headers())
        .layer(
            TraceLayer::new_for_http()
                // Spans carry the method and the path with IDs and tokens masked: no headers
                // (passphrases, tokens), no query strings, no bodies.
                .make_span_with(|req: &Request| tracing::info_span!("request", method = %req.method(), path = %security::redact_path(req.uri().path())))
                .on_response(tower_http::trace::DefaultOnResponse::new().latency_unit(tower_http::LatencyUnit::Millis)),
        )
        // Uploads and specs are read with their own limit and a JSON error (api::read_body);
        // every other body (server functions) is bounded by the same limit.
        .layer(axum::extract::DefaultBodyLimit::max(state.ferry.max_state_bytes()))
        .layer(tower_http::timeout::TimeoutLayer::with_status_code(axum::http::StatusCode::REQUEST_TIMEOUT, Duration::from_secs(300)))
        .with_state(state)
}

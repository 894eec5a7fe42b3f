//! The `ferry` server: the Leptos UI (server-rendered, hydrated), its server functions, the
//! JSON API and static files, over one [`StackService`].
//!
//! Architecture Invariant: handlers only translate between HTTP and the service; what Ferry
//! does lives in the `ferry-*` crates.

pub mod api;
pub mod error;

use std::sync::Arc;
use std::time::Duration;

use app::{shell, App};
use axum::extract::{FromRef, Request, State};
use axum::http::{header, HeaderValue};
use axum::response::IntoResponse;
use axum::routing::{get, post};
use axum::Router;
use ferry_service::StackService;
use leptos::prelude::*;
use leptos_axum::{generate_route_list, handle_server_fns_with_context, LeptosRoutes};
use tower_http::compression::CompressionLayer;
use tower_http::services::ServeDir;
use tower_http::set_header::SetResponseHeaderLayer;
use tower_http::trace::TraceLayer;

/// What every handler can reach.
#[derive(Clone, FromRef)]
pub struct AppState {
    pub leptos_options: LeptosOptions,
    pub stacks: Arc<StackService>,
}

/// The app's routes, collected once per process. Collecting renders the app in a special mode;
/// doing it while another router renders a page (tests build several) leaves that page's
/// resources unresolved, so it happens exactly once, before any router exists.
fn route_list() -> Vec<leptos_axum::AxumRouteListing> {
    static ROUTES: std::sync::OnceLock<Vec<leptos_axum::AxumRouteListing>> = std::sync::OnceLock::new();
    ROUTES.get_or_init(|| generate_route_list(App)).clone()
}

/// The whole application as one router (no socket: tests call it directly).
pub fn router(state: AppState) -> Router {
    let routes = route_list();
    let stacks = state.stacks.clone();
    let context = move || provide_context(stacks.clone());
    let pkg_dir = std::path::Path::new(&*state.leptos_options.site_root).join(&*state.leptos_options.site_pkg_dir);

    Router::new()
        .nest("/api/v1", api::routes())
        .route("/rpc/{*fn_name}", post(server_fn_handler).get(server_fn_handler))
        .nest_service(
            "/pkg",
            tower::ServiceBuilder::new()
                // File names are not hashed, so browsers revalidate (cheap 304s via Last-Modified).
                .layer(SetResponseHeaderLayer::overriding(header::CACHE_CONTROL, HeaderValue::from_static("public, max-age=0, must-revalidate")))
                .service(ServeDir::new(pkg_dir).precompressed_gzip()),
        )
        .route("/healthz", get(|| async { "ok" }))
        .leptos_routes_with_context(&state, routes, context.clone(), {
            let options = state.leptos_options.clone();
            move || shell(options.clone())
        })
        .fallback(leptos_axum::file_and_error_handler_with_context::<AppState, _>(context, shell))
        .layer(CompressionLayer::new())
        .layer(
            TraceLayer::new_for_http()
                // Spans carry method and path only: no headers (passphrases) and no bodies.
                .make_span_with(|req: &Request| tracing::info_span!("request", method = %req.method(), path = %req.uri().path()))
                .on_response(tower_http::trace::DefaultOnResponse::new().latency_unit(tower_http::LatencyUnit::Millis)),
        )
        // Uploads and specs are read with their own limit and a JSON error (api::read_body);
        // every other body (server functions) is bounded by the same limit.
        .layer(axum::extract::DefaultBodyLimit::max(state.stacks.max_state_bytes()))
        .layer(tower_http::timeout::TimeoutLayer::with_status_code(axum::http::StatusCode::REQUEST_TIMEOUT, Duration::from_secs(300)))
        .with_state(state)
}

async fn server_fn_handler(State(state): State<AppState>, req: Request) -> impl IntoResponse {
    let stacks = state.stacks.clone();
    handle_server_fns_with_context(move || provide_context(stacks.clone()), req).await
}

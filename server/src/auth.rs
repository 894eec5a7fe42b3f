//! Signing in and out, and who each request acts as: a session cookie (browsers) or an API
//! token (`Authorization: Bearer`, CLI and CI). Cookie-authenticated writes must come from
//! Ferry's own pages (CSRF), checked by the browser-set `Sec-Fetch-Site` or `Origin` headers.

use std::sync::Arc;

use axum::body::Body;
use axum::extract::{Path, Request, State};
use axum::http::{header, HeaderMap, StatusCode};
use axum::middleware::Next;
use axum::response::{IntoResponse, Redirect, Response};
use axum::{Extension, Json};
use ferry_service::access::Caller;
use ferry_service::Ferry;
use ferry_types::api::escape;
use serde::Deserialize;
use serde_json::json;

use crate::access::Peer;
use crate::error::ApiError;
use crate::extract::{ApiJson, ApiQuery};
use crate::session::{local_path, set_session, SESSION_COOKIE};
use crate::AppState;
use ferry_service::ServiceError;

/// How Ferry is reached, for cookies and links.
#[derive(Clone, Default)]
pub struct AuthConfig {
    /// The address users reach Ferry at (`--public-url`), e.g. `https://ferry.example.com`.
    pub public_url: Option<String>,
    /// OpenID Connect sign-in, when configured.
    pub oidc: Option<Arc<crate::oidc::Oidc>>,
}

impl AuthConfig {
    /// Cookies are `Secure` behind TLS: the public URL is `https`, or the request came over
    /// TLS (as a trusted proxy says).
    pub(crate) fn secure(&self, https: bool) -> bool {
        https || self.public_url.as_deref().is_some_and(|u| u.starts_with("https://"))
    }
}

fn session_secret(headers: &HeaderMap) -> Option<String> {
    crate::session::cookie_value(headers, SESSION_COOKIE)
}

/// Whether a cookie-carrying write comes from Ferry's own pages: the browser says so in
/// `Sec-Fetch-Site`, or, in browsers without it, the `Origin` names this host.
fn same_origin(headers: &HeaderMap, config: &AuthConfig) -> bool {
    if let Some(site) = headers.get("sec-fetch-site").and_then(|v| v.to_str().ok()) {
        return site == "same-origin";
    }
    let Some(origin) = headers.get(header::ORIGIN).and_then(|v| v.to_str().ok()) else {
        return false;
    };
    let host = headers.get(header::HOST).and_then(|v| v.to_str().ok()).unwrap_or_default();
    let authority = origin.split_once("://").map(|(_, a)| a).unwrap_or(origin);
    authority == host
        || config.public_url.as_deref().is_some_and(|p| p.trim_end_matches('/') == origin)
}

/// Finds who the request acts as and puts the [`Caller`] in its extensions. A bad token is
/// refused here (naming why); a stale cookie just means anonymous.
pub async fn identify(State(state): State<AppState>, mut req: Request, next: Next) -> Response {
    let headers = req.headers();
    let caller = if let Some(value) = headers.get(header::AUTHORIZATION) {
        let Some(token) = value.to_str().ok().and_then(|v| v.strip_prefix("Bearer ")) else {
            return unauthorized("send an API token as `Authorization: Bearer <token>`");
        };
        match state.ferry.accounts().caller_of_token(token.trim()).await {
            Ok(caller) => caller,
            Err(e) => return ApiError::from(e).into_response(),
        }
    } else if let Some(secret) = session_secret(headers) {
        let caller = match state.ferry.accounts().caller_of_session(&secret).await {
            Ok(caller) => caller,
            Err(e) => return ApiError::from(e).into_response(),
        };
        // A cookie that is no live session is nobody's; a live one's writes must come from
        // Ferry's own pages.
        if caller.user.is_some()
            && crate::access::writes(req.method())
            && !same_origin(req.headers(), &state.auth)
        {
            return ApiError::from(ServiceError::CrossSite(
                "a write with a session cookie must come from Ferry's own pages (use an API token from scripts)".into(),
            ))
            .into_response();
        }
        caller
    } else {
        Caller::anonymous()
    };
    req.extensions_mut().insert(caller);
    next.run(req).await
}

fn unauthorized(message: &str) -> Response {
    ApiError::from(ServiceError::BadCredentials(message.to_string())).into_response()
}

#[derive(Deserialize)]
pub struct SignInForm {
    name: String,
    password: String,
    next: Option<String>,
}

/// Whether a browser says the request comes from another site: `Sec-Fetch-Site`, or else an
/// `Origin` that is not this host. A client that is no browser sends neither.
fn from_another_site(headers: &HeaderMap, config: &AuthConfig) -> bool {
    match headers.get("sec-fetch-site").and_then(|v| v.to_str().ok()) {
        Some(site) => !matches!(site, "same-origin" | "none"),
        None => headers.contains_key(header::ORIGIN) && !same_origin(headers, config),
    }
}

/// The media type of a request's body, without its parameters, lower case.
fn media_type(headers: &HeaderMap) -> String {
    let value = headers.get(header::CONTENT_TYPE).and_then(|v| v.to_str().ok()).unwrap_or_default();
    value.split(';').next().unwrap_or_default().trim().to_ascii_lowercase()
}

/// A body from one of Ferry's pages' forms, or JSON: what signing in and accepting an
/// invitation take, read as `T` (`what` names it in errors). Anything else is refused before it
/// is read — a `text/plain` body is what another site's page can send without asking, and that
/// page would sign its visitor into the attacker's account — and so is a form that does not say
/// it comes from Ferry's page, or JSON the browser says comes from another site's. `None`: an
/// empty body or JSON `null`.
struct PageBody<T> {
    form: bool,
    value: Option<T>,
}

async fn page_body<T: serde::de::DeserializeOwned>(
    headers: &HeaderMap,
    config: &AuthConfig,
    body: Body,
    what: &str,
) -> Result<PageBody<T>, ApiError> {
    let form = match media_type(headers).as_str() {
        "application/x-www-form-urlencoded" => true,
        "application/json" => false,
        other => {
            return Err(ServiceError::UnsupportedMediaType(format!(
            "send {what} as `Content-Type: application/json` or from Ferry's page, not `{other}`"
        ))
            .into())
        }
    };
    if (form && !same_origin(headers, config)) || from_another_site(headers, config) {
        return Err(ServiceError::CrossSite(format!("send {what} from Ferry's own page")).into());
    }
    let bytes = axum::body::to_bytes(body, 64 * 1024).await.map_err(|e| {
        ApiError::from(ServiceError::Invalid(format!("could not read the body: {e}")))
    })?;
    let bad = |e: String| ApiError::from(ServiceError::Invalid(format!("{what}: {e}")));
    let value = if bytes.is_empty() {
        None
    } else if form {
        Some(serde_urlencoded::from_bytes(&bytes).map_err(|e| bad(e.to_string()))?)
    } else {
        serde_json::from_slice::<Option<T>>(&bytes).map_err(|e| bad(e.to_string()))?
    };
    Ok(PageBody { form, value })
}

/// `POST /auth/login`: a name and password, as the sign-in page's form (answered with a
/// redirect) or as JSON (answered with the user). Anything else is refused before the password
/// is looked at: a `text/plain` body is what another site's page can send without asking, and
/// that page would sign its visitor into the attacker's account.
pub async fn login(
    State(state): State<AppState>,
    Peer(peer, https): Peer,
    headers: HeaderMap,
    body: Body,
) -> Result<Response, ApiError> {
    let what = "the sign-in (`{\"name\", \"password\"}`)";
    let PageBody { form: is_form, value } =
        page_body::<SignInForm>(&headers, &state.auth, body, what).await?;
    let form = value.ok_or_else(|| {
        ApiError::from(ServiceError::Invalid(format!("{what}: the body is empty")))
    })?;
    let next = local_path(form.next.as_deref());
    match state.ferry.accounts().sign_in(&form.name, &form.password, peer).await {
        Ok(signed_in) => {
            let mut response = if is_form {
                Redirect::to(&next).into_response()
            } else {
                Json(json!({"name": signed_in.user.name})).into_response()
            };
            set_session(&mut response, state.auth.secure(https), Some(signed_in.session.0));
            Ok(response)
        }
        Err(e) if is_form => {
            let message = escape(&e.to_string());
            let next = escape(&next);
            Ok(Redirect::to(&format!("/signin?error={message}&next={next}")).into_response())
        }
        Err(e) => Err(e.into()),
    }
}

/// `POST /auth/logout`: ends the session on the server and clears the cookie.
pub async fn logout(
    State(state): State<AppState>,
    Peer(_, https): Peer,
    headers: HeaderMap,
) -> Result<Response, ApiError> {
    if let Some(secret) = session_secret(&headers) {
        state.ferry.accounts().end_session(&secret).await?;
    }
    let wants_json = headers
        .get(header::ACCEPT)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|a| a.contains("application/json"));
    let mut response = if wants_json {
        StatusCode::NO_CONTENT.into_response()
    } else {
        Redirect::to("/signin").into_response()
    };
    set_session(&mut response, state.auth.secure(https), None);
    Ok(response)
}

/// `POST /api/v1/me/sessions/revoke`: signs the user out everywhere (API tokens stay; revoke
/// those one by one).
pub async fn end_all_sessions(
    State(state): State<AppState>,
    Peer(_, https): Peer,
    Extension(caller): Extension<Caller>,
) -> Result<Response, ApiError> {
    state.ferry.accounts().end_all_sessions(&caller).await?;
    let mut response = Json(ferry_types::api::SignedOut { signed_out: true }).into_response();
    set_session(&mut response, state.auth.secure(https), None);
    Ok(response)
}

/// `GET /auth/link/{token}`: a one-time sign-in link; on to the account page, where a first
/// password can be set.
pub async fn sign_in_link(
    State(state): State<AppState>,
    Peer(peer, https): Peer,
    Path(token): Path<String>,
) -> Result<Response, ApiError> {
    let signed_in = state.ferry.accounts().use_sign_in_link(&token, peer).await?;
    let mut response = Redirect::to("/account").into_response();
    set_session(&mut response, state.auth.secure(https), Some(signed_in.session.0));
    Ok(response)
}

/// `GET /api/v1/me`: who is signed in, with their roles.
pub async fn me(Extension(caller): Extension<Caller>) -> Result<Response, ApiError> {
    let user = caller.require_signed_in()?;
    Ok(Json(user.me()).into_response())
}

/// `POST /api/v1/me/password`.
pub async fn change_password(
    State(ferry): State<Arc<Ferry>>,
    Extension(caller): Extension<Caller>,
    ApiJson(change): ApiJson<ferry_types::api::PasswordChange>,
) -> Result<Response, ApiError> {
    ferry
        .accounts()
        .change_own_password(&caller, change.current.as_deref(), &change.password)
        .await?;
    Ok(Json(ferry_types::api::PasswordChanged { changed: true }).into_response())
}

/// `GET /api/v1/me/tokens`: the caller's API tokens (never their secrets).
pub async fn list_tokens(
    State(ferry): State<Arc<Ferry>>,
    Extension(caller): Extension<Caller>,
) -> Result<Response, ApiError> {
    Ok(Json(ferry.accounts().api_tokens(&caller).await?).into_response())
}

/// `POST /api/v1/me/tokens`: a new token, its secret shown this once.
pub async fn create_token(
    State(ferry): State<Arc<Ferry>>,
    Extension(caller): Extension<Caller>,
    ApiJson(new): ApiJson<ferry_types::api::TokenInput>,
) -> Result<Response, ApiError> {
    let role = new.role;
    let created =
        ferry.accounts().create_api_token(&caller, &new.name, &new.org, role, new.days).await?;
    Ok((StatusCode::CREATED, Json(created)).into_response())
}

/// `DELETE /api/v1/me/tokens/{id}`.
pub async fn revoke_token(
    State(ferry): State<Arc<Ferry>>,
    Extension(caller): Extension<Caller>,
    Path(id): Path<String>,
) -> Result<Response, ApiError> {
    Ok(Json(ferry.accounts().revoke_api_token(&caller, &id).await?).into_response())
}

/// `GET /api/v1/orgs/{org}/members`.
pub async fn members(
    State(ferry): State<Arc<Ferry>>,
    Extension(caller): Extension<Caller>,
    Path(org): Path<String>,
) -> Result<Response, ApiError> {
    Ok(Json(ferry.accounts().members(&caller, &org).await?).into_response())
}

/// `PUT /api/v1/orgs/{org}/members/{name}`: a member's roles there (and a first password for a
/// new local user).
pub async fn set_member(
    State(ferry): State<Arc<Ferry>>,
    Extension(caller): Extension<Caller>,
    Path((org, name)): Path<(String, String)>,
    ApiJson(body): ApiJson<ferry_types::api::MemberInput>,
) -> Result<Response, ApiError> {
    let roles = body.roles;
    Ok(Json(
        ferry.accounts().set_member(&caller, &org, &name, &roles, body.password.as_deref()).await?,
    )
    .into_response())
}

/// `GET /api/v1/orgs/{org}/audit[?after=<seq>&limit=<n>&format=jsonl]`: the organisation's
/// audit records, oldest first; `format=jsonl` exports them as JSON lines.
pub async fn audit(
    State(ferry): State<Arc<Ferry>>,
    Extension(caller): Extension<Caller>,
    Path(org): Path<String>,
    ApiQuery(q): ApiQuery<ferry_types::api::AuditQuery>,
) -> Result<Response, ApiError> {
    let records =
        ferry.accounts().audit_log(&caller, &org, q.after, q.limit.unwrap_or(1000)).await?;
    if q.format.as_deref() == Some("jsonl") {
        let mut text = String::new();
        for record in &records {
            text.push_str(&serde_json::to_string(record).expect("a record serialises"));
            text.push('\n');
        }
        return Ok(([(header::CONTENT_TYPE, "application/jsonl")], text).into_response());
    }
    Ok(Json(records).into_response())
}

/// `GET /api/v1/orgs/{org}/invitations`: its invitations, never their tokens.
pub async fn invitations(
    State(ferry): State<Arc<Ferry>>,
    Extension(caller): Extension<Caller>,
    Path(org): Path<String>,
) -> Result<Response, ApiError> {
    Ok(Json(ferry.accounts().invitations(&caller, &org).await?).into_response())
}

/// `POST /api/v1/orgs/{org}/invitations` `{"roles", "days"?}`: a new invitation; its link's
/// token is in this answer only.
pub async fn invite(
    State(ferry): State<Arc<Ferry>>,
    Extension(caller): Extension<Caller>,
    Path(org): Path<String>,
    ApiJson(input): ApiJson<ferry_types::invitations::InvitationInput>,
) -> Result<Response, ApiError> {
    Ok((StatusCode::CREATED, Json(ferry.accounts().invite(&caller, &org, &input).await?))
        .into_response())
}

pub async fn revoke_invitation(
    State(ferry): State<Arc<Ferry>>,
    Extension(caller): Extension<Caller>,
    Path((org, id)): Path<(String, String)>,
) -> Result<Response, ApiError> {
    Ok(Json(ferry.accounts().revoke_invitation(&caller, &org, &id).await?).into_response())
}

/// `GET /api/v1/invitations/{token}`: the open invitation a link names, for its holder.
pub async fn invitation(
    State(ferry): State<Arc<Ferry>>,
    Path(token): Path<String>,
) -> Result<Response, ApiError> {
    Ok(Json(ferry.accounts().invitation(&token).await?).into_response())
}

/// `POST /auth/invitations/{token}`: accepts an invitation, as the invitation page's form
/// (answered with a redirect: home, or back to the page naming the problem) or as JSON. Signed
/// in, the user joins; otherwise `name` and `password` make a new account, signed in by the
/// answer. As sign-in, refused from another site's page.
pub async fn accept_invitation(
    State(state): State<AppState>,
    Peer(peer, https): Peer,
    Extension(caller): Extension<Caller>,
    Path(token): Path<String>,
    headers: HeaderMap,
    body: Body,
) -> Result<Response, ApiError> {
    let what = "the acceptance (`{\"name\", \"password\"}`, or nothing when signed in)";
    let PageBody { form: is_form, value } =
        page_body::<ferry_types::invitations::AcceptInvitation>(&headers, &state.auth, body, what)
            .await?;
    let input = value.unwrap_or_default();
    // A form sends empty fields for a signed-in user's plain "join".
    let input = ferry_types::invitations::AcceptInvitation {
        name: input.name.filter(|n| !n.is_empty()),
        password: input.password.filter(|p| !p.is_empty()),
    };
    match state.ferry.accounts().accept_invitation(&caller, &token, input, peer).await {
        Ok((accepted, session)) => {
            let mut response = if is_form {
                Redirect::to("/").into_response()
            } else {
                Json(accepted).into_response()
            };
            if let Some(session) = session {
                set_session(&mut response, state.auth.secure(https), Some(session.0));
            }
            Ok(response)
        }
        Err(e) if is_form => {
            let message = escape(&e.to_string());
            let page = escape(&token);
            Ok(Redirect::to(&format!("/invitations/{page}?error={message}")).into_response())
        }
        Err(e) => Err(e.into()),
    }
}

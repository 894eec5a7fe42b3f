//! The session cookie: its name, setting and clearing it, and where a sign-in may send the
//! browser next. Shared by every way of signing in (password, link, OpenID Connect).

use axum::http::{header, HeaderValue};
use axum::response::Response;
use cookie::{Cookie, SameSite};

pub const SESSION_COOKIE: &str = "ferry_session";

/// Sets the session cookie on `response` to a new session's secret (for as long as sessions
/// last), or, with `None`, clears it.
pub(crate) fn set_session(response: &mut Response, secure: bool, secret: Option<String>) {
    let max_age = cookie::time::Duration::seconds(if secret.is_some() { ferry_service::accounts::SESSION_SECONDS } else { 0 });
    let cookie = Cookie::build((SESSION_COOKIE, secret.unwrap_or_default())).http_only(true).same_site(SameSite::Lax).secure(secure).path("/").max_age(max_age);
    response.headers_mut().insert(header::SET_COOKIE, HeaderValue::from_str(&cookie.build().to_string()).expect("a cookie is a valid header"));
}

/// Where to go after signing in: a path on this server only (never another site).
pub(crate) fn local_path(next: Option<&str>) -> String {
    match next {
        Some(p) if p.starts_with('/') && !p.starts_with("//") && !p.starts_with("/\\") => p.to_string(),
        _ => "/".to_string(),
    }
}

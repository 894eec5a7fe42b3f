//! Sign-in's cookies (the session's, and the one that binds an OpenID Connect sign-in to its
//! browser): reading, setting and clearing them; and where a sign-in may send the browser next.
//! Shared by every way of signing in (password, link, OpenID Connect).

use axum::http::{header, HeaderMap, HeaderValue};
use axum::response::Response;
use cookie::{Cookie, SameSite};

pub const SESSION_COOKIE: &str = "ferry_session";

/// The value of the request's cookie `name`.
pub(crate) fn cookie_value(headers: &HeaderMap, name: &str) -> Option<String> {
    headers
        .get_all(header::COOKIE)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(Cookie::split_parse)
        .filter_map(Result::ok)
        .find(|c| c.name() == name)
        .map(|c| c.value().to_string())
}

/// Adds the cookie `name` to `response`: `value` for `lifetime_seconds` on `path`, or, with
/// `None`, clears it. Always `HttpOnly` and `SameSite=Lax` (a top-level `GET` from another site,
/// as a sign-in link or an OpenID Provider sends, carries it); `Secure` behind TLS.
pub(crate) fn set_cookie(
    response: &mut Response,
    name: &str,
    value: Option<String>,
    lifetime_seconds: i64,
    path: &str,
    secure: bool,
) {
    let max_age =
        cookie::time::Duration::seconds(if value.is_some() { lifetime_seconds } else { 0 });
    let cookie = Cookie::build((name, value.unwrap_or_default()))
        .http_only(true)
        .same_site(SameSite::Lax)
        .secure(secure)
        .path(path)
        .max_age(max_age);
    response.headers_mut().append(
        header::SET_COOKIE,
        HeaderValue::from_str(&cookie.build().to_string()).expect("a cookie is a valid header"),
    );
}

/// Sets the session cookie on `response` to a new session's secret (for as long as sessions
/// last), or, with `None`, clears it.
pub(crate) fn set_session(response: &mut Response, secure: bool, secret: Option<String>) {
    set_cookie(
        response,
        SESSION_COOKIE,
        secret,
        ferry_service::accounts::SESSION_SECONDS,
        "/",
        secure,
    );
}

/// The first path segments of the pages a sign-in may go on to (the app's routes).
const PAGES: &[&str] = &["", "signin", "account", "stacks", "plans", "shared"];

/// Where to go after signing in: a page of Ferry's, parsed as a URL against this server (never
/// pattern-matched), its path's first segment one of Ferry's pages; anything else (another
/// site, a scheme, a control character or a backslash that browsers read their own way, an
/// encoded separator) goes home.
pub(crate) fn local_path(next: Option<&str>) -> String {
    let home = "/".to_string();
    let Some(next) = next else { return home };
    // Browsers drop tabs and line breaks from a Location and read `\` as `/`: such a `next`
    // is nobody's page.
    if !next.starts_with('/')
        || next.chars().any(|c| c.is_control() || c.is_whitespace() || c == '\\')
    {
        return home;
    }
    let base = url::Url::parse("http://ferry.invalid/").expect("a URL");
    let Ok(url) = base.join(next) else { return home };
    if url.origin() != base.origin()
        || url.path().contains("%2F")
        || url.path().contains("%2f")
        || url.path().starts_with("//")
    {
        return home;
    }
    let first = url.path().trim_start_matches('/').split('/').next().unwrap_or_default();
    if !PAGES.contains(&first) {
        return home;
    }
    match url.query() {
        Some(query) => format!("{}?{query}", url.path()),
        None => url.path().to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::local_path;

    #[test]
    fn a_sign_in_goes_on_only_to_a_page_of_ferry() {
        for (next, to) in [
            ("/stacks/abc", "/stacks/abc"),
            ("/plans/p?tab=code", "/plans/p?tab=code"),
            ("/", "/"),
            ("/%09/evil.example", "/"),
            ("/\t/evil.example", "/"),
            ("//evil.example", "/"),
            ("/\\evil.example", "/"),
            ("https://evil.example/", "/"),
            ("/..//evil.example", "/"),
            ("/stacks/..//evil.example", "/"),
            ("/api/v1/me", "/"),
            ("/%2F%2Fevil.example", "/"),
            ("evil.example", "/"),
        ] {
            assert_eq!(local_path(Some(next)), to, "{next:?}");
        }
        assert_eq!(local_path(None), "/");
    }
}

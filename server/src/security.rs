//! What every response carries for the browser's protection, and what request logs may show.

use axum::http::{header, HeaderName, HeaderValue};
use tower::layer::util::Stack;
use tower_http::set_header::SetResponseHeaderLayer;

/// The Content Security Policy. Scripts come only from Ferry itself: the wasm (compiled under
/// `wasm-unsafe-eval`), the bundled graph renderer and Monaco, and Leptos's inline hydration
/// bootstrap; Monaco injects styles and runs its language workers from `/pkg`. Nothing may
/// frame Ferry, and forms post only to it.
pub const CSP: &str = "default-src 'self'; script-src 'self' 'unsafe-inline' 'wasm-unsafe-eval'; style-src 'self' 'unsafe-inline'; \
     img-src 'self' data: blob:; font-src 'self' data:; worker-src 'self' blob:; connect-src 'self'; object-src 'none'; \
     base-uri 'self'; form-action 'self'; frame-ancestors 'none'";

type Headers = Stack<
    SetResponseHeaderLayer<HeaderValue>,
    Stack<
        SetResponseHeaderLayer<HeaderValue>,
        Stack<
            SetResponseHeaderLayer<HeaderValue>,
            Stack<SetResponseHeaderLayer<HeaderValue>, tower::layer::util::Identity>,
        >,
    >,
>;

/// The security headers, on every response that has not set its own.
pub fn headers() -> Headers {
    let set = |name: HeaderName, value: &'static str| {
        SetResponseHeaderLayer::if_not_present(name, HeaderValue::from_static(value))
    };
    tower::ServiceBuilder::new()
        .layer(set(header::CONTENT_SECURITY_POLICY, CSP))
        .layer(set(header::X_CONTENT_TYPE_OPTIONS, "nosniff"))
        // Share links carry their token in the path: never send it on to another site.
        .layer(set(header::REFERRER_POLICY, "no-referrer"))
        .layer(set(header::X_FRAME_OPTIONS, "DENY"))
        .into_inner()
}

/// A request path as logs may show it: every segment that could be a capability or an
/// identifier (32 hex digits: plan, preview, job and discovery IDs, share tokens, sign-in
/// links) is masked, and the segment after `shared`, `link` or `invitations` always is.
pub fn redact_path(path: &str) -> String {
    let mut out = Vec::new();
    let mut mask_next = false;
    for segment in path.split('/') {
        let secret =
            mask_next || (segment.len() >= 16 && segment.chars().all(|c| c.is_ascii_hexdigit()));
        out.push(if secret && !segment.is_empty() { "…" } else { segment });
        mask_next = matches!(segment, "shared" | "link" | "invitations");
    }
    out.join("/")
}

#[cfg(test)]
mod tests {
    use super::redact_path;

    #[test]
    fn capabilities_never_reach_the_log() {
        assert_eq!(
            redact_path("/api/v1/shared/0123456789abcdef0123456789abcdef/previews/0"),
            "/api/v1/shared/…/previews/0"
        );
        assert_eq!(redact_path("/plans/0123456789abcdef0123456789abcdef/r/2"), "/plans/…/r/2");
        assert_eq!(redact_path("/auth/link/not-hex-but-secret"), "/auth/link/…");
        assert_eq!(
            redact_path("/auth/invitations/ferry_invite_0123/accept"),
            "/auth/invitations/…/accept"
        );
        assert_eq!(redact_path("/api/v1/stacks"), "/api/v1/stacks");
    }
}

//! OpenID Connect sign-in: the authorization code flow with PKCE, a nonce and a state, against
//! the provider `--oidc-issuer` names (discovered at start). `GET /auth/oidc/login` sends the
//! browser to the provider; `<public URL>/auth/oidc/callback` takes the code back, checks the ID
//! token (signature, issuer, audience, expiry, nonce) and signs the user in by `sub`.

use std::time::Duration;

use axum::extract::State;
use axum::response::{IntoResponse, Redirect, Response};
use base64::Engine as _;
use ferry_service::accounts::{OidcIdentity, PendingOidcLogin};
use openidconnect::core::{CoreAuthenticationFlow, CoreClient, CoreProviderMetadata};
use openidconnect::{
    AuthorizationCode, ClientId, ClientSecret, CsrfToken, EndpointMaybeSet, EndpointNotSet,
    EndpointSet, IssuerUrl, Nonce, PkceCodeChallenge, PkceCodeVerifier, RedirectUrl, Scope,
    TokenResponse,
};
use serde::Deserialize;

use crate::access::Peer;
use crate::error::ApiError;
use crate::extract::ApiQuery;
use crate::AppState;
use ferry_service::ServiceError;

/// How OIDC sign-in is configured.
#[derive(Debug, Clone)]
pub struct OidcSettings {
    pub issuer: String,
    pub client_id: String,
    pub client_secret: String,
    /// The ID token claim that lists groups (`<org>:<role>`), if any.
    pub groups_claim: Option<String>,
    /// Whether groups `*:<role>` make roles in every organisation (`--oidc-allow-server-roles`);
    /// off, they are ignored.
    pub allow_server_roles: bool,
}

type Client = CoreClient<
    EndpointSet,
    EndpointNotSet,
    EndpointNotSet,
    EndpointNotSet,
    EndpointMaybeSet,
    EndpointMaybeSet,
>;

/// How long a browser may take at the provider.
const PENDING_FOR: Duration = Duration::from_secs(600);

pub struct Oidc {
    client: Client,
    http: reqwest::Client,
    groups_claim: Option<String>,
    allow_server_roles: bool,
}

impl Oidc {
    /// Discovers the provider and makes the client; errors name the issuer.
    pub async fn discover(settings: &OidcSettings, public_url: &str) -> Result<Oidc, String> {
        let http = reqwest::ClientBuilder::new()
            // The provider's answers are followed by the browser, never by this client.
            .redirect(reqwest::redirect::Policy::none())
            .timeout(Duration::from_secs(15))
            .build()
            .map_err(|e| e.to_string())?;
        let issuer = IssuerUrl::new(settings.issuer.clone())
            .map_err(|e| format!("--oidc-issuer `{}`: {e}", settings.issuer))?;
        let metadata = CoreProviderMetadata::discover_async(issuer, &http).await.map_err(|e| {
            format!("OpenID Connect discovery at `{}` failed: {e}", settings.issuer)
        })?;
        let redirect =
            RedirectUrl::new(format!("{}/auth/oidc/callback", public_url.trim_end_matches('/')))
                .map_err(|e| format!("--public-url `{public_url}`: {e}"))?;
        let client = CoreClient::from_provider_metadata(
            metadata,
            ClientId::new(settings.client_id.clone()),
            Some(ClientSecret::new(settings.client_secret.clone())),
        )
        .set_redirect_uri(redirect);
        Ok(Oidc {
            client,
            http,
            groups_claim: settings.groups_claim.clone(),
            allow_server_roles: settings.allow_server_roles,
        })
    }
}

#[derive(Deserialize)]
pub struct LoginQuery {
    next: Option<String>,
}

/// `GET /auth/oidc/login[?next=/path]`: off to the provider.
pub async fn login(
    State(state): State<AppState>,
    Peer(_, https): Peer,
    ApiQuery(q): ApiQuery<LoginQuery>,
) -> Result<Response, ApiError> {
    let oidc = configured(&state)?;
    let (challenge, verifier) = PkceCodeChallenge::new_random_sha256();
    let (url, csrf, nonce) = oidc
        .client
        .authorize_url(
            CoreAuthenticationFlow::AuthorizationCode,
            CsrfToken::new_random,
            Nonce::new_random,
        )
        .add_scope(Scope::new("email".into()))
        .add_scope(Scope::new("profile".into()))
        .set_pkce_challenge(challenge)
        .url();
    // Kept in the store, so the provider's callback may reach any instance; bound to this
    // browser by a cookie only it holds, so a `state` started elsewhere signs nobody in here.
    let login = PendingOidcLogin {
        verifier: verifier.secret().clone(),
        nonce: nonce.secret().clone(),
        next: crate::session::local_path(q.next.as_deref()),
    };
    let browser = state
        .ferry
        .accounts()
        .begin_oidc_login(csrf.secret(), login, PENDING_FOR.as_secs() as i64)
        .await?;
    let mut response = Redirect::to(url.as_str()).into_response();
    set_binding(&mut response, state.auth.secure(https), Some(browser));
    Ok(response)
}

#[derive(Deserialize)]
pub struct CallbackQuery {
    code: Option<String>,
    state: Option<String>,
    error: Option<String>,
    error_description: Option<String>,
}

/// `GET /auth/oidc/callback`: the code back from the provider. A callback that fails is audited
/// (a server-wide record: no user is known), as a failed password is.
pub async fn callback(
    State(state): State<AppState>,
    Peer(peer, https): Peer,
    headers: axum::http::HeaderMap,
    ApiQuery(q): ApiQuery<CallbackQuery>,
) -> Result<Response, ApiError> {
    let result = finish_callback(&state, peer, https, &headers, q).await;
    if let Err(e) = &result {
        let outcome = format!("failed: {}", e.message);
        let record = ferry_service::accounts::AuditEvent {
            actor: "anonymous",
            org: None,
            action: "sign-in",
            object: "OpenID Connect",
            address: &ferry_service::accounts::address_text(peer),
            outcome: &outcome,
            plan_id: None,
            subject: None,
        };
        if let Err(e) = state.ferry.accounts().audit(record).await {
            tracing::error!(error = %e, "could not append to the audit log");
        }
    }
    result
}

async fn finish_callback(
    state: &AppState,
    peer: Option<std::net::IpAddr>,
    https: bool,
    headers: &axum::http::HeaderMap,
    q: CallbackQuery,
) -> Result<Response, ApiError> {
    let oidc = configured(state)?;
    let refuse = |message: String| ApiError::from(ServiceError::BadCredentials(message));
    if let Some(error) = q.error {
        return Err(refuse(format!(
            "the OpenID Provider refused the sign-in: {error}{}",
            q.error_description.map(|d| format!(" ({d})")).unwrap_or_default()
        )));
    }
    let (Some(code), Some(csrf)) = (q.code, q.state) else {
        return Err(refuse("the OpenID Provider sent no `code` and `state`".into()));
    };
    let browser = binding(headers).ok_or_else(|| {
        refuse("this browser did not start this sign-in (no sign-in cookie); start again".into())
    })?;
    let pending = state.ferry.accounts().finish_oidc_login(&csrf, &browser).await?;
    let pending = pending.ok_or_else(|| {
        refuse(
            "this sign-in is unknown, took too long or was started in another browser; start again"
                .into(),
        )
    })?;
    let exchange = oidc
        .client
        .exchange_code(AuthorizationCode::new(code))
        .map_err(|e| refuse(format!("the provider has no token endpoint: {e}")))?;
    let tokens = exchange
        .set_pkce_verifier(PkceCodeVerifier::new(pending.verifier))
        .request_async(&oidc.http)
        .await
        .map_err(|e| refuse(format!("the code exchange failed: {e}")))?;
    let id_token =
        tokens.id_token().ok_or_else(|| refuse("the provider sent no ID token".into()))?;
    let claims = id_token
        .claims(&oidc.client.id_token_verifier(), &Nonce::new(pending.nonce))
        .map_err(|e| refuse(format!("the ID token does not verify: {e}")))?;
    let email = claims.email().map(|e| e.as_str().to_string());
    let name = claims
        .preferred_username()
        .map(|u| u.as_str().to_string())
        .or_else(|| email.as_ref().map(|e| e.split('@').next().unwrap_or(e).to_string()))
        .unwrap_or_else(|| claims.subject().as_str().to_string());
    // The token verified above; its payload is read once more for the groups claim, which
    // the standard claims do not carry.
    let groups = oidc.groups_claim.as_ref().and_then(|claim| {
        let payload = id_token
            .to_string()
            .split('.')
            .nth(1)
            .and_then(|p| base64::engine::general_purpose::URL_SAFE_NO_PAD.decode(p).ok())?;
        let json: serde_json::Value = serde_json::from_slice(&payload).ok()?;
        json.get(claim)
            .and_then(|g| g.as_array())
            .map(|a| a.iter().filter_map(|g| g.as_str().map(str::to_string)).collect())
    });
    let identity = OidcIdentity {
        issuer: claims.issuer().as_str().to_string(),
        subject: claims.subject().as_str().to_string(),
        email,
        name,
        groups,
    };
    let signed_in =
        state.ferry.accounts().sign_in_oidc(identity, peer, oidc.allow_server_roles).await?;
    let mut response = Redirect::to(&pending.next).into_response();
    crate::session::set_session(&mut response, state.auth.secure(https), Some(signed_in.session.0));
    set_binding(&mut response, state.auth.secure(https), None);
    Ok(response)
}

/// The cookie that binds a sign-in at the provider to the browser that started it.
const BINDING_COOKIE: &str = "ferry_oidc";

/// Sets the binding cookie (for as long as a sign-in may take), or with `None` clears it.
fn set_binding(response: &mut Response, secure: bool, secret: Option<String>) {
    crate::session::set_cookie(
        response,
        BINDING_COOKIE,
        secret,
        PENDING_FOR.as_secs() as i64,
        "/auth/oidc",
        secure,
    );
}

fn binding(headers: &axum::http::HeaderMap) -> Option<String> {
    crate::session::cookie_value(headers, BINDING_COOKIE).filter(|v| !v.is_empty())
}

fn configured(state: &AppState) -> Result<&Oidc, ApiError> {
    state.auth.oidc.as_deref().ok_or_else(|| {
        ApiError::from(ServiceError::NotFound(
            "OpenID Connect sign-in is not configured on this server (`--oidc-issuer`)".into(),
        ))
    })
}

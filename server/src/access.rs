//! Every route's access decision, next to the route: the router is built through [`Routes`],
//! which takes a [`Gate`] with each handler, and the [`authorize`] layer enforces the gate the
//! route was built with. A route that reached the router some other way has no decision and is
//! refused (`authorize` fails closed), so no route is open by accident.
//!
//! Architecture Invariant: the page hides what a user may not do, but this layer (and the
//! service's checks behind it) is the guard.

use std::collections::HashMap;
use std::net::SocketAddr;

use axum::extract::{ConnectInfo, MatchedPath, RawPathParams, Request, State};
use axum::handler::Handler;
use axum::http::{Method, StatusCode};
use axum::middleware::Next;
use axum::response::{IntoResponse, Redirect, Response};
use axum::routing::{on, MethodFilter};
use axum::Router;
use ferry_service::access::{Caller, ClientAddress, Object, Role};
use ferry_service::accounts::AuditEvent;

use crate::error::ApiError;
use crate::AppState;
use ferry_service::ServiceError;

/// Who may call a route.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Gate {
    /// Anyone (sign-in itself, health).
    Public,
    /// Any signed-in user; what they see is narrowed to their organisations by the handler
    /// (lists, their own account).
    SignedIn,
    /// A signed-in user's browser session, never an API token: managing credentials (a
    /// password, a new token), so that a leaked token cannot become the whole account.
    Session,
    /// A page: signed-in users; anonymous browsers are sent to the sign-in page.
    Page,
    /// A read-only share link: the `{token}` in the path is the capability; it never writes.
    Share,
    /// `role` on the object whose ID is the path's `{id}`.
    On(Object, Role),
    /// Taking part in the review of the object named by `{id}`: planner, approver or
    /// committer (comments).
    Review(Object),
    /// `role` in the organisation named by the path's `{org}`.
    Org(Role),
    /// `role` in the organisation the request names in its query or body; the handler checks
    /// it through the service once it has read which (uploads).
    Named(Role),
    /// A server function: each checks its caller against the object its arguments name
    /// (`app/src/server_fns.rs`); the access-matrix test tries each one.
    ServerFn,
}

/// The organisation a [`Gate::Named`] handler acted in, or refused to, for the audit record.
#[derive(Debug, Clone)]
pub struct AuditOrg(pub String);

impl AuditOrg {
    /// `response`, told the organisation its request named (when it named one), so that the
    /// record of a call, and of a refusal, lands in that organisation's log.
    pub fn on(org: Option<String>, mut response: Response) -> Response {
        if let Some(org) = org {
            response.extensions_mut().insert(AuditOrg(org));
        }
        response
    }
}

/// The plan a handler created, for the audit record (and so the plan's timeline).
#[derive(Debug, Clone)]
pub struct AuditPlan(pub String);

/// One route's decision, as the access-matrix test enumerates them.
#[derive(Debug, Clone)]
pub struct Decision {
    pub method: Method,
    /// The full path template, e.g. `/api/v1/plans/{id}/revisions`.
    pub path: String,
    pub gate: Gate,
    /// What the audit log calls a call of a mutating route.
    pub action: &'static str,
}

/// The decisions of every route the router was built with.
#[derive(Debug, Default)]
pub struct AccessTable {
    by_route: HashMap<(Method, String), Decision>,
}

impl AccessTable {
    pub fn decisions(&self) -> impl Iterator<Item = &Decision> {
        self.by_route.values()
    }

    /// The decision of the route `method` `path` (its full template).
    pub fn decision(&self, method: &Method, path: &str) -> Option<&Decision> {
        self.get(method, path)
    }

    fn get(&self, method: &Method, path: &str) -> Option<&Decision> {
        let method = if method == Method::HEAD { Method::GET } else { method.clone() };
        self.by_route.get(&(method, path.to_string()))
    }
}

/// A router under construction whose every route has a gate.
pub struct Routes {
    prefix: &'static str,
    router: Router<AppState>,
    decisions: Vec<Decision>,
}

impl Routes {
    /// Routes that will be nested under `prefix` (`""` at the top).
    pub fn new(prefix: &'static str) -> Routes {
        Routes { prefix, router: Router::new(), decisions: Vec::new() }
    }

    pub fn get<H: Handler<T, AppState>, T: 'static>(
        self,
        path: &str,
        gate: Gate,
        action: &'static str,
        handler: H,
    ) -> Routes {
        self.add(Method::GET, MethodFilter::GET, path, gate, action, handler)
    }

    pub fn post<H: Handler<T, AppState>, T: 'static>(
        self,
        path: &str,
        gate: Gate,
        action: &'static str,
        handler: H,
    ) -> Routes {
        self.add(Method::POST, MethodFilter::POST, path, gate, action, handler)
    }

    pub fn put<H: Handler<T, AppState>, T: 'static>(
        self,
        path: &str,
        gate: Gate,
        action: &'static str,
        handler: H,
    ) -> Routes {
        self.add(Method::PUT, MethodFilter::PUT, path, gate, action, handler)
    }

    pub fn delete<H: Handler<T, AppState>, T: 'static>(
        self,
        path: &str,
        gate: Gate,
        action: &'static str,
        handler: H,
    ) -> Routes {
        self.add(Method::DELETE, MethodFilter::DELETE, path, gate, action, handler)
    }

    /// The route of one of the API's endpoints (`ferry_types::api`): its method and path are
    /// the endpoint's, so the table and the clients cannot disagree.
    pub fn endpoint<B, A, Q, H: Handler<T, AppState>, T: 'static>(
        self,
        endpoint: ferry_types::api::Endpoint<B, A, Q>,
        gate: Gate,
        action: &'static str,
        handler: H,
    ) -> Routes {
        use ferry_types::api::Method as Api;
        let (method, filter) = match endpoint.method {
            Api::Get => (Method::GET, MethodFilter::GET),
            Api::Post => (Method::POST, MethodFilter::POST),
            Api::Put => (Method::PUT, MethodFilter::PUT),
            Api::Delete => (Method::DELETE, MethodFilter::DELETE),
        };
        self.add(method, filter, endpoint.path, gate, action, handler)
    }

    fn add<H: Handler<T, AppState>, T: 'static>(
        mut self,
        method: Method,
        filter: MethodFilter,
        path: &str,
        gate: Gate,
        action: &'static str,
        handler: H,
    ) -> Routes {
        if gate == Gate::Share {
            assert_eq!(method, Method::GET, "a share link never writes: {method} {path}");
        }
        self.router = self.router.route(path, on(filter, handler));
        self.decisions.push(Decision {
            method,
            path: format!("{}{path}", self.prefix),
            gate,
            action,
        });
        self
    }

    /// Declares routes someone else added to `router` (the pages Leptos lists), with their gates.
    pub fn declare(
        mut self,
        method: Method,
        path: &str,
        gate: Gate,
        action: &'static str,
    ) -> Routes {
        self.decisions.push(Decision {
            method,
            path: format!("{}{path}", self.prefix),
            gate,
            action,
        });
        self
    }

    pub fn map_router(mut self, f: impl FnOnce(Router<AppState>) -> Router<AppState>) -> Routes {
        self.router = f(self.router);
        self
    }

    /// Nests `inner` (built with `Routes::new(prefix)`) at its prefix.
    pub fn nest(mut self, inner: Routes, fallback: Router<AppState>) -> Routes {
        self.router = self.router.nest(inner.prefix, inner.router.merge(fallback));
        self.decisions.extend(inner.decisions);
        self
    }

    pub fn finish(self) -> (Router<AppState>, AccessTable) {
        let mut table = AccessTable::default();
        for d in self.decisions {
            let key = (d.method.clone(), d.path.clone());
            assert!(table.by_route.insert(key, d).is_none(), "a route declared twice");
        }
        (self.router, table)
    }
}

/// The path parameter `name` of the matched route.
fn path_param<'a>(params: &'a Option<RawPathParams>, name: &str) -> Option<&'a str> {
    params.as_ref()?.iter().find(|(k, _)| *k == name).map(|(_, v)| v)
}

/// The client a request came from: as `client_address` found it (behind a trusted proxy,
/// what the proxy says), else the socket's peer; none for in-process calls.
pub fn client_of(extensions: &axum::http::Extensions) -> ClientAddress {
    extensions.get::<ClientAddress>().copied().unwrap_or_else(|| ClientAddress {
        address: extensions.get::<ConnectInfo<SocketAddr>>().map(|c| c.0.ip()),
        https: false,
    })
}

/// The client's address (see [`client_of`]).
pub fn peer_of(extensions: &axum::http::Extensions) -> Option<std::net::IpAddr> {
    client_of(extensions).address
}

/// The caller's address, and whether it came over TLS, as a handler's argument.
pub struct Peer(pub Option<std::net::IpAddr>, pub bool);

impl<S: Send + Sync> axum::extract::FromRequestParts<S> for Peer {
    type Rejection = std::convert::Infallible;

    async fn from_request_parts(
        parts: &mut axum::http::request::Parts,
        _: &S,
    ) -> Result<Self, Self::Rejection> {
        let client = client_of(&parts.extensions);
        Ok(Peer(client.address, client.https))
    }
}

/// Whether a request may change something (anything but a read).
pub fn writes(method: &Method) -> bool {
    !matches!(*method, Method::GET | Method::HEAD | Method::OPTIONS)
}

/// Enforces each route's gate, and appends an audit record for every call of a mutating route.
pub async fn authorize(State(state): State<AppState>, req: Request, next: Next) -> Response {
    let Some(matched) = req.extensions().get::<MatchedPath>().map(|m| m.as_str().to_string())
    else {
        // Fallbacks (unknown paths) answer 404 themselves.
        return next.run(req).await;
    };
    let Some(decision) = state.access.get(req.method(), &matched).cloned() else {
        tracing::error!(method = %req.method(), route = %matched, "route without an access decision refused");
        return ApiError::from(ServiceError::NoAccessDecision(format!(
            "{} {matched}",
            req.method()
        )))
        .into_response();
    };
    let caller = req.extensions().get::<Caller>().cloned().unwrap_or_default();
    // Calls of a route with an action are audited: every write, and the reads that hand out what
    // must be accounted for (a stack's export, code, which may carry decrypted secrets with a
    // passphrase, and a plan read through a share link).
    let audited = !decision.action.is_empty();
    let address = ferry_service::accounts::address_text(peer_of(req.extensions()));
    let (mut parts, body) = req.into_parts();
    let params =
        <RawPathParams as axum::extract::FromRequestParts<()>>::from_request_parts(&mut parts, &())
            .await
            .ok();
    let req = Request::from_parts(parts, body);

    // A share link's audited reads are recorded in its plan's organisation and timeline (the
    // link names both; one look-up).
    let shared = match (decision.gate, path_param(&params, "token")) {
        (Gate::Share, Some(token)) if audited => state.ferry.plans().share_owner(token).await.ok(),
        _ => None,
    };
    let checked: Result<Option<String>, ferry_service::ServiceError> = match decision.gate {
        Gate::Share if shared.is_some() => Ok(shared.as_ref().map(|(org, _)| org.clone())),
        Gate::Public | Gate::Share | Gate::ServerFn => Ok(None),
        Gate::SignedIn | Gate::Named(_) => caller.require_signed_in().map(|_| None),
        Gate::Session => caller.require_session().map(|_| None),
        Gate::Page => {
            if caller.user.is_none() {
                let next_path = req.uri().path_and_query().map(|p| p.as_str()).unwrap_or("/");
                return Redirect::to(&format!(
                    "/signin?next={}",
                    ferry_types::api::escape(next_path)
                ))
                .into_response();
            }
            Ok(None)
        }
        Gate::On(object, role) => match path_param(&params, "id") {
            Some(id) => state.ferry.accounts().authorize(&caller, object, id, role).await.map(Some),
            None => Err(ferry_service::ServiceError::Internal(format!(
                "route {matched} has no `{{id}}`"
            ))),
        },
        Gate::Review(object) => match path_param(&params, "id") {
            Some(id) => {
                match state.ferry.accounts().authorize(&caller, object, id, Role::Viewer).await {
                    Ok(org) if caller.may_review(&org) => Ok(Some(org)),
                    Ok(org) => Err(ferry_service::ServiceError::Forbidden(format!(
                        "`{}` takes no part in review in organisation `{org}`",
                        caller.actor()
                    ))),
                    Err(e) => Err(e),
                }
            }
            None => Err(ferry_service::ServiceError::Internal(format!(
                "route {matched} has no `{{id}}`"
            ))),
        },
        Gate::Org(role) => match path_param(&params, "org") {
            Some(org) => caller.require(org, role).map(|_| Some(org.to_string())),
            None => Err(ferry_service::ServiceError::Internal(format!(
                "route {matched} has no `{{org}}`"
            ))),
        },
    };
    let (response, org) = match checked {
        Ok(org) => {
            let response = next.run(req).await;
            // A handler that found the organisation in the request tells it this way, whether
            // it went on or refused.
            let org = org.or_else(|| response.extensions().get::<AuditOrg>().map(|o| o.0.clone()));
            (response, org)
        }
        Err(e) => {
            // A refusal is recorded in the log of the organisation it protected.
            let org = match (decision.gate, path_param(&params, "id")) {
                (Gate::On(object, _) | Gate::Review(object), Some(id))
                    if e.code() == "forbidden" =>
                {
                    state.ferry.accounts().org_of(object, id).await.ok()
                }
                (Gate::Org(_), _) => path_param(&params, "org").map(str::to_string),
                _ => None,
            };
            (ApiError::from(e).into_response(), org)
        }
    };
    if audited {
        // The plan a record is about makes the plan's timeline: the one a handler created, or
        // the one the route's object is or belongs to.
        let plan = match (
            response.extensions().get::<AuditPlan>(),
            decision.gate,
            path_param(&params, "id"),
        ) {
            (None, Gate::Share, _) => shared.map(|(_, plan)| plan),
            (Some(created), _, _) => Some(created.0.clone()),
            (None, Gate::On(Object::Plan, _) | Gate::Review(Object::Plan), Some(id)) => {
                Some(id.to_string())
            }
            (None, Gate::On(Object::Preview, _), Some(id)) => {
                state.ferry.plans().plan_of_preview(id).await.ok().flatten()
            }
            _ => None,
        };
        let status = response.status();
        let outcome = if status.is_success() || status.is_redirection() {
            "ok".to_string()
        } else if matches!(status, StatusCode::UNAUTHORIZED | StatusCode::FORBIDDEN) {
            format!("denied ({})", status.as_u16())
        } else {
            format!("failed ({})", status.as_u16())
        };
        let record = AuditEvent {
            actor: caller.actor(),
            org: org.as_deref(),
            action: decision.action,
            object: &object_of(&matched, &params),
            address: &address,
            outcome: &outcome,
            plan_id: plan.as_deref(),
            // A record of no organisation (the caller's own account) is about the caller.
            subject: caller.user.as_ref().map(|u| u.id.as_str()),
        };
        if let Err(e) = state.ferry.accounts().audit(record).await {
            // The action happened; losing its record is an operator's problem to see.
            tracing::error!(error = %e, "could not append to the audit log");
        }
    }
    response
}

/// The object a call acted on: the route with its parameters, share tokens left out.
fn object_of(matched: &str, params: &Option<RawPathParams>) -> String {
    let mut object = matched.to_string();
    if let Some(params) = params {
        for (name, value) in params.iter() {
            let shown = if name == "token" { "…" } else { value };
            object = object
                .replace(&format!("{{{name}}}"), shown)
                .replace(&format!("{{*{name}}}"), shown);
        }
    }
    object
}

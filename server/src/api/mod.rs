//! The HTTP API for scripts and CI: JSON in and out under `/api/v1`.

mod discovery;
mod identify;
mod plans;
mod previews;
mod results;
mod shared;
mod stacks;
mod webhooks;

use axum::Router;

use crate::access::{Gate, Routes};
use crate::auth;
use crate::error::ApiError;
use crate::review_api;
use crate::AppState;
use discovery::*;
use ferry_service::access::Role;
use ferry_service::ServiceError;
use identify::*;
use plans::*;
use previews::*;
use results::*;
pub use shared::PASSPHRASE_HEADER;
use stacks::*;
use webhooks::*;

/// The API's routes, each with who may call it (see `access.rs`). Actions name what the audit
/// log records for calls of mutating routes; an empty action is a read sent as a POST.
pub fn routes() -> Routes {
    use ferry_service::access::Object::{Discovery, Identification, Plan, Preview, Stack};
    use ferry_service::access::Role::{Committer, Planner, Viewer};
    use Gate::{Named, On, Session, Share, SignedIn};
    Routes::new("/api/v1")
        .get("/me", SignedIn, "", auth::me)
        .post("/me/password", Session, "user.password", auth::change_password)
        .post("/me/sessions/revoke", SignedIn, "session.revoke-all", auth::end_all_sessions)
        .get("/me/tokens", SignedIn, "", auth::list_tokens)
        .post("/me/tokens", Session, "token.create", auth::create_token)
        .delete("/me/tokens/{id}", SignedIn, "token.revoke", auth::revoke_token)
        .get("/orgs/{org}/members", Gate::Org(Role::Admin), "", auth::members)
        .put("/orgs/{org}/members/{name}", Gate::Org(Role::Admin), "member.set", auth::set_member)
        .get("/orgs/{org}/invitations", Gate::Org(Role::Admin), "", auth::invitations)
        .post("/orgs/{org}/invitations", Gate::Org(Role::Admin), "invitation.create", auth::invite)
        .delete(
            "/orgs/{org}/invitations/{id}",
            Gate::Org(Role::Admin),
            "invitation.revoke",
            auth::revoke_invitation,
        )
        .get("/invitations/{token}", Gate::Public, "", auth::invitation)
        .get("/orgs/{org}/audit", Gate::Org(Role::Admin), "", auth::audit)
        .get("/stacks", SignedIn, "", list_stacks)
        .post("/stacks", Named(Planner), "stack.upload", upload_stack)
        .get("/stacks/{id}", On(Stack, Viewer), "", stack_summary)
        .get("/stacks/{id}/versions", On(Stack, Viewer), "", stack_versions)
        .get("/stacks/{id}/locks", On(Stack, Viewer), "", stack_locks)
        .get("/stacks/{id}/config", On(Stack, Viewer), "", stack_config)
        .put("/stacks/{id}/config", On(Stack, Planner), "stack.config", set_stack_config)
        .get("/stacks/{id}/export", On(Stack, Viewer), "stack.export", stack_export)
        .get("/stacks/{id}/graph", On(Stack, Viewer), "", stack_graph)
        .get("/stacks/{id}/resources", On(Stack, Viewer), "", stack_resources)
        .get("/stacks/{id}/resource", On(Stack, Viewer), "", stack_resource)
        .post("/stacks/{id}/previews", On(Stack, Planner), "preview.create", create_preview)
        .post("/stacks/{id}/identifications", On(Stack, Planner), "", start_identification)
        .get("/identifications/{id}", On(Identification, Planner), "", get_identification)
        .get("/identifications/{id}/events", On(Identification, Planner), "", identification_events)
        .post(
            "/identifications/{id}/cancel",
            On(Identification, Planner),
            "",
            cancel_identification,
        )
        .get("/previews/{id}", On(Preview, Viewer), "", get_preview)
        .post("/previews/{id}/commit", On(Preview, Committer), "preview.commit", commit_preview)
        .get("/previews/{id}/code", On(Preview, Viewer), "code.read", preview_code)
        .post("/stacks/{id}/plans", On(Stack, Planner), "plan.create", create_plan)
        .get("/stacks/{id}/plans", On(Stack, Viewer), "", stack_plans)
        .get("/plans", SignedIn, "", list_plans)
        .get("/plans/{id}/status", On(Plan, Viewer), "", plan_status)
        .post("/plans/{id}/close", On(Plan, Planner), "plan.close", close_plan)
        .post("/plans/{id}/reopen", On(Plan, Planner), "plan.reopen", reopen_plan)
        .get("/plans/{id}", On(Plan, Viewer), "", get_plan)
        .post("/plans/{id}/revisions", On(Plan, Planner), "plan.revise", save_plan)
        .get("/plans/{id}/revisions/{revision}", On(Plan, Viewer), "", get_plan_revision)
        .post("/plans/{id}/previews", On(Plan, Planner), "plan.preview", start_plan_preview)
        .get("/plans/{id}/jobs", On(Plan, Viewer), "", list_jobs)
        .get("/plans/{id}/jobs/{job}", On(Plan, Viewer), "", get_job)
        .get("/plans/{id}/jobs/{job}/events", On(Plan, Viewer), "", job_events)
        .post("/plans/{id}/jobs/{job}/cancel", On(Plan, Planner), "plan.preview.cancel", cancel_job)
        .get("/plans/{id}/shares", On(Plan, Planner), "", list_shares)
        .post("/plans/{id}/shares", On(Plan, Planner), "share.create", create_share)
        .delete("/plans/{id}/shares/{link}", On(Plan, Planner), "share.revoke", revoke_share)
        .get("/shared/{token}", Share, "share.read", get_shared_plan)
        .get("/shared/{token}/previews/{index}", Share, "", get_shared_preview)
        .get("/stacks/{id}/code", On(Stack, Viewer), "code.read", stack_code)
        .post("/markers", SignedIn, "", text_markers)
        .get("/stacks/{id}/editor-help", On(Stack, Viewer), "", editor_help)
        .get("/previews/{id}/results", On(Preview, Viewer), "", owner_result_rows)
        .get("/previews/{id}/results/resource", On(Preview, Viewer), "", owner_result_detail)
        .get("/previews/{id}/graph", On(Preview, Viewer), "", owner_preview_graph)
        .get("/previews/{id}/viewed", On(Preview, Viewer), "", results::viewed)
        .put("/previews/{id}/viewed", On(Preview, Viewer), "", results::mark_viewed)
        .get(
            "/shared/{token}/revisions/{revision}/previews/{index}/results",
            Share,
            "",
            shared_result_rows,
        )
        .get(
            "/shared/{token}/revisions/{revision}/previews/{index}/results/resource",
            Share,
            "",
            shared_result_detail,
        )
        .get(
            "/shared/{token}/revisions/{revision}/previews/{index}/graph",
            Share,
            "",
            shared_preview_graph,
        )
        .get(
            "/shared/{token}/revisions/{revision}/previews/{index}/code",
            Share,
            "share.read",
            shared_preview_code,
        )
        .post("/plans/{id}/resolutions", On(Plan, Planner), "plan.resolve", resolve)
        .post(
            "/plans/{id}/identifications",
            On(Plan, Planner),
            "plan.identify",
            choose_identifications,
        )
        .post(
            "/plans/{id}/resolutions/zero-values",
            On(Plan, Planner),
            "plan.resolve",
            adopt_zero_values,
        )
        .get("/backends/stacks", Named(Planner), "", backend_stacks)
        .post("/stacks/{id}/discoveries", On(Stack, Planner), "discovery.start", start_discovery)
        .get("/stacks/{id}/discoveries/types", On(Stack, Viewer), "", listable_types)
        .post(
            "/stacks/{id}/discoveries/probe",
            On(Stack, Planner),
            "discovery.probe",
            probe_discovered,
        )
        .post(
            "/stacks/{id}/discoveries/plan",
            On(Stack, Planner),
            "discovery.plan",
            discovered_to_plan,
        )
        .post(
            "/stacks/{id}/migrations/terraform",
            On(Stack, Planner),
            "migration.terraform",
            migrate_terraform,
        )
        .post(
            "/stacks/{id}/migrations/terraform/remote",
            On(Stack, Planner),
            "migration.terraform",
            migrate_terraform_remote,
        )
        .get(
            "/stacks/{id}/migrations/terraform/workspaces",
            On(Stack, Planner),
            "",
            terraform_workspaces,
        )
        .get("/discoveries/{id}", On(Discovery, Viewer), "", get_discovery)
        .get("/discoveries/{id}/events", On(Discovery, Viewer), "", discovery_events)
        .post(
            "/discoveries/{id}/cancel",
            On(Discovery, Planner),
            "discovery.cancel",
            cancel_discovery,
        )
        .get("/plans/{id}/comments", On(Plan, Viewer), "", review_api::comments)
        .post("/plans/{id}/comments", Gate::Review(Plan), "comment.add", review_api::add_comment)
        .post(
            "/plans/{id}/comments/{comment}/resolve",
            Gate::Review(Plan),
            "comment.resolve",
            review_api::resolve_comment,
        )
        .get("/shared/{token}/comments", Share, "", review_api::shared_comments)
        .get("/plans/{id}/approvals", On(Plan, Viewer), "", review_api::approvals)
        .post(
            "/plans/{id}/approvals",
            On(Plan, Role::Approver),
            "plan.approve",
            review_api::approve,
        )
        .delete(
            "/plans/{id}/approvals",
            On(Plan, Role::Approver),
            "plan.approval.withdraw",
            review_api::withdraw,
        )
        .get("/plans/{id}/change-requests", On(Plan, Viewer), "", review_api::change_requests)
        .post(
            "/plans/{id}/change-requests",
            On(Plan, Role::Approver),
            "plan.request-changes",
            review_api::request_changes,
        )
        .delete(
            "/plans/{id}/change-requests/{reviewer}",
            On(Plan, Role::Approver),
            "plan.change-request.withdraw",
            review_api::withdraw_change_request,
        )
        .get("/plans/{id}/activity", On(Plan, Viewer), "", review_api::activity)
        .get("/stacks/{id}/settings", On(Stack, Viewer), "", review_api::stack_settings)
        .put(
            "/stacks/{id}/settings",
            On(Stack, Role::Admin),
            "stack.settings",
            review_api::set_stack_settings,
        )
        .get("/orgs/{org}/settings", Gate::Org(Role::Admin), "", review_api::org_settings)
        .put(
            "/orgs/{org}/settings",
            Gate::Org(Role::Admin),
            "org.settings",
            review_api::set_org_settings,
        )
        .get("/orgs/{org}/webhooks", Gate::Org(Role::Admin), "", list_webhooks)
        .post("/orgs/{org}/webhooks", Gate::Org(Role::Admin), "webhook.create", create_webhook)
        .delete(
            "/orgs/{org}/webhooks/{id}",
            Gate::Org(Role::Admin),
            "webhook.remove",
            remove_webhook,
        )
        .get("/orgs/{org}/webhooks/{id}/deliveries", Gate::Org(Role::Admin), "", webhook_deliveries)
}

/// What `/api/v1` answers for a path it does not have.
pub fn fallback() -> Router<AppState> {
    Router::new().fallback(|| async {
        ApiError::from(ServiceError::NotFound("no such API endpoint".into()))
    })
}

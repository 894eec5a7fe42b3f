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
use ferry_types::api;

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
    Routes::new(api::PREFIX)
        .endpoint(api::OPENAPI, Gate::Public, "", crate::openapi::serve)
        .endpoint(api::ME, SignedIn, "", auth::me)
        .endpoint(api::CHANGE_PASSWORD, Session, "user.password", auth::change_password)
        .endpoint(api::END_ALL_SESSIONS, SignedIn, "session.revoke-all", auth::end_all_sessions)
        .endpoint(api::TOKENS, SignedIn, "", auth::list_tokens)
        .endpoint(api::CREATE_TOKEN, Session, "token.create", auth::create_token)
        .endpoint(api::REVOKE_TOKEN, SignedIn, "token.revoke", auth::revoke_token)
        .endpoint(api::MEMBERS, Gate::Org(Role::Admin), "", auth::members)
        .endpoint(api::SET_MEMBER, Gate::Org(Role::Admin), "member.set", auth::set_member)
        .endpoint(api::INVITATIONS, Gate::Org(Role::Admin), "", auth::invitations)
        .endpoint(api::INVITE, Gate::Org(Role::Admin), "invitation.create", auth::invite)
        .endpoint(
            api::REVOKE_INVITATION,
            Gate::Org(Role::Admin),
            "invitation.revoke",
            auth::revoke_invitation,
        )
        .endpoint(api::INVITATION, Gate::Public, "", auth::invitation)
        .endpoint(api::AUDIT, Gate::Org(Role::Admin), "", auth::audit)
        .endpoint(api::STACKS, SignedIn, "", list_stacks)
        .endpoint(api::UPLOAD_STACK, Named(Planner), "stack.upload", upload_stack)
        .endpoint(api::STACK, On(Stack, Viewer), "", stack_summary)
        .endpoint(api::STACK_VERSIONS, On(Stack, Viewer), "", stack_versions)
        .endpoint(api::STACK_LOCKS, On(Stack, Viewer), "", stack_locks)
        .endpoint(api::STACK_CONFIG, On(Stack, Viewer), "", stack_config)
        .endpoint(api::SET_STACK_CONFIG, On(Stack, Planner), "stack.config", set_stack_config)
        .endpoint(api::STACK_EXPORT, On(Stack, Viewer), "stack.export", stack_export)
        .endpoint(api::STACK_GRAPH, On(Stack, Viewer), "", stack_graph)
        .endpoint(api::STACK_RESOURCES, On(Stack, Viewer), "", stack_resources)
        .endpoint(api::STACK_RESOURCE, On(Stack, Viewer), "", stack_resource)
        .endpoint(api::CREATE_PREVIEW, On(Stack, Planner), "preview.create", create_preview)
        .endpoint(api::START_IDENTIFICATION, On(Stack, Planner), "", start_identification)
        .endpoint(api::IDENTIFICATION, On(Identification, Planner), "", get_identification)
        .endpoint(
            api::IDENTIFICATION_EVENTS,
            On(Identification, Planner),
            "",
            identification_events,
        )
        .endpoint(
            api::CANCEL_IDENTIFICATION,
            On(Identification, Planner),
            "",
            cancel_identification,
        )
        .endpoint(api::PREVIEW, On(Preview, Viewer), "", get_preview)
        .endpoint(api::COMMIT_PREVIEW, On(Preview, Committer), "preview.commit", commit_preview)
        .endpoint(api::PREVIEW_CODE, On(Preview, Viewer), "code.read", preview_code)
        .endpoint(api::CREATE_PLAN, On(Stack, Planner), "plan.create", create_plan)
        .endpoint(api::STACK_PLANS, On(Stack, Viewer), "", stack_plans)
        .endpoint(api::PLANS, SignedIn, "", list_plans)
        .endpoint(api::PLAN_STATUS, On(Plan, Viewer), "", plan_status)
        .endpoint(api::CLOSE_PLAN, On(Plan, Planner), "plan.close", close_plan)
        .endpoint(api::REOPEN_PLAN, On(Plan, Planner), "plan.reopen", reopen_plan)
        .endpoint(api::PLAN, On(Plan, Viewer), "", get_plan)
        .endpoint(api::SAVE_PLAN, On(Plan, Planner), "plan.revise", save_plan)
        .endpoint(api::PLAN_REVISION, On(Plan, Viewer), "", get_plan_revision)
        .endpoint(api::START_PLAN_PREVIEW, On(Plan, Planner), "plan.preview", start_plan_preview)
        .endpoint(api::PLAN_JOBS, On(Plan, Viewer), "", list_jobs)
        .endpoint(api::PLAN_JOB, On(Plan, Viewer), "", get_job)
        .endpoint(api::PLAN_JOB_EVENTS, On(Plan, Viewer), "", job_events)
        .endpoint(api::CANCEL_PLAN_JOB, On(Plan, Planner), "plan.preview.cancel", cancel_job)
        .endpoint(api::SHARES, On(Plan, Planner), "", list_shares)
        .endpoint(api::CREATE_SHARE, On(Plan, Planner), "share.create", create_share)
        .endpoint(api::REVOKE_SHARE, On(Plan, Planner), "share.revoke", revoke_share)
        .endpoint(api::SHARED_PLAN, Share, "share.read", get_shared_plan)
        .endpoint(api::SHARED_PREVIEW, Share, "", get_shared_preview)
        .endpoint(api::STACK_CODE, On(Stack, Viewer), "code.read", stack_code)
        .endpoint(api::MARKERS, SignedIn, "", text_markers)
        .endpoint(api::EDITOR_HELP, On(Stack, Viewer), "", editor_help)
        .endpoint(api::RESULTS, On(Preview, Viewer), "", owner_result_rows)
        .endpoint(api::RESULT, On(Preview, Viewer), "", owner_result_detail)
        .endpoint(api::PREVIEW_GRAPH, On(Preview, Viewer), "", owner_preview_graph)
        .endpoint(api::VIEWED, On(Preview, Viewer), "", results::viewed)
        .endpoint(api::MARK_VIEWED, On(Preview, Viewer), "", results::mark_viewed)
        .endpoint(api::SHARED_RESULTS, Share, "", shared_result_rows)
        .endpoint(api::SHARED_RESULT, Share, "", shared_result_detail)
        .endpoint(api::SHARED_PREVIEW_GRAPH, Share, "", shared_preview_graph)
        .endpoint(api::SHARED_PREVIEW_CODE, Share, "share.read", shared_preview_code)
        .endpoint(api::RESOLVE, On(Plan, Planner), "plan.resolve", resolve)
        .endpoint(
            api::CHOOSE_IDENTIFICATIONS,
            On(Plan, Planner),
            "plan.identify",
            choose_identifications,
        )
        .endpoint(api::ADOPT_ZERO_VALUES, On(Plan, Planner), "plan.resolve", adopt_zero_values)
        .endpoint(api::BACKEND_STACKS, Named(Planner), "", backend_stacks)
        .endpoint(api::START_DISCOVERY, On(Stack, Planner), "discovery.start", start_discovery)
        .endpoint(api::LISTABLE_TYPES, On(Stack, Viewer), "", listable_types)
        .endpoint(api::PROBE, On(Stack, Planner), "discovery.probe", probe_discovered)
        .endpoint(api::DISCOVERED_TO_PLAN, On(Stack, Planner), "discovery.plan", discovered_to_plan)
        .endpoint(
            api::MIGRATE_TERRAFORM,
            On(Stack, Planner),
            "migration.terraform",
            migrate_terraform,
        )
        .endpoint(
            api::MIGRATE_TERRAFORM_REMOTE,
            On(Stack, Planner),
            "migration.terraform",
            migrate_terraform_remote,
        )
        .endpoint(api::TERRAFORM_WORKSPACES, On(Stack, Planner), "", terraform_workspaces)
        .endpoint(api::DISCOVERY, On(Discovery, Viewer), "", get_discovery)
        .endpoint(api::DISCOVERY_EVENTS, On(Discovery, Viewer), "", discovery_events)
        .endpoint(
            api::CANCEL_DISCOVERY,
            On(Discovery, Planner),
            "discovery.cancel",
            cancel_discovery,
        )
        .endpoint(api::COMMENTS, On(Plan, Viewer), "", review_api::comments)
        .endpoint(api::ADD_COMMENT, Gate::Review(Plan), "comment.add", review_api::add_comment)
        .endpoint(
            api::RESOLVE_COMMENT,
            Gate::Review(Plan),
            "comment.resolve",
            review_api::resolve_comment,
        )
        .endpoint(api::SHARED_COMMENTS, Share, "", review_api::shared_comments)
        .endpoint(api::APPROVALS, On(Plan, Viewer), "", review_api::approvals)
        .endpoint(api::APPROVE, On(Plan, Role::Approver), "plan.approve", review_api::approve)
        .endpoint(
            api::WITHDRAW_APPROVAL,
            On(Plan, Role::Approver),
            "plan.approval.withdraw",
            review_api::withdraw,
        )
        .endpoint(api::CHANGE_REQUESTS, On(Plan, Viewer), "", review_api::change_requests)
        .endpoint(
            api::REQUEST_CHANGES,
            On(Plan, Role::Approver),
            "plan.request-changes",
            review_api::request_changes,
        )
        .endpoint(
            api::WITHDRAW_CHANGE_REQUEST,
            On(Plan, Role::Approver),
            "plan.change-request.withdraw",
            review_api::withdraw_change_request,
        )
        .endpoint(api::ACTIVITY, On(Plan, Viewer), "", review_api::activity)
        .endpoint(api::STACK_SETTINGS, On(Stack, Viewer), "", review_api::stack_settings)
        .endpoint(
            api::SET_STACK_SETTINGS,
            On(Stack, Role::Admin),
            "stack.settings",
            review_api::set_stack_settings,
        )
        .endpoint(api::ORG_SETTINGS, Gate::Org(Role::Admin), "", review_api::org_settings)
        .endpoint(
            api::SET_ORG_SETTINGS,
            Gate::Org(Role::Admin),
            "org.settings",
            review_api::set_org_settings,
        )
        .endpoint(api::WEBHOOKS, Gate::Org(Role::Admin), "", list_webhooks)
        .endpoint(api::CREATE_WEBHOOK, Gate::Org(Role::Admin), "webhook.create", create_webhook)
        .endpoint(api::REMOVE_WEBHOOK, Gate::Org(Role::Admin), "webhook.remove", remove_webhook)
        .endpoint(api::WEBHOOK_DELIVERIES, Gate::Org(Role::Admin), "", webhook_deliveries)
}

/// What `/api/v1` answers for a path it does not have.
pub fn fallback() -> Router<AppState> {
    Router::new().fallback(|| async {
        ApiError::from(ServiceError::NotFound("no such API endpoint".into()))
    })
}

//! The server's integration tests, in one test binary: each module is one area, driven through
//! the whole router (or the real `ferry` binary). One binary rather than one per file: every
//! file would otherwise link the whole server again, which costs minutes and gigabytes per run.

mod access_matrix;
mod architecture;
mod attacks;
mod auth;
mod backends;
mod code_verification;
mod common;
mod discovery;
mod hostile;
mod identification;
mod imports;
mod openapi;
mod org_isolation;
mod plan_lists;
mod plan_review;
mod plans;
mod plugin_allow_list;
mod plugin_failures;
mod postgres_estate;
mod programs;
mod project_zips;
mod proxies;
mod real_stack;
mod review_workflow;
mod router;
mod secrets_in_plans;
mod terraform;
mod terraform_configuration;
mod webhooks;

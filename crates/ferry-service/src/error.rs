//! The service's error: what went wrong, in terms a caller can turn into a response.

use ferry_state::StateError;
use ferry_store::StoreError;

#[derive(Debug, thiserror::Error)]
pub enum ServiceError {
    #[error(transparent)]
    State(#[from] StateError),
    #[error("the state file is {size} bytes, over the limit of {limit} bytes")]
    TooLarge { size: usize, limit: usize },
    #[error(
        "name the stack (`org/project/stack`){}",
        .recorded.as_ref().map(|s| format!("; the file records `{s}`, which is not a full name")).unwrap_or_default()
    )]
    NameRequired { recorded: Option<String> },
    #[error(
        "the state's resources are from {}, not `{name}`: upload it under {}, or with `force` to move its resources to `{name}` (every URN renamed)",
        .carried.iter().map(|c| format!("`{c}`")).collect::<Vec<_>>().join(", "),
        if .carried.len() == 1 { "that name" } else { "one of those names" }
    )]
    StackMismatch { name: String, carried: Vec<String> },
    #[error(transparent)]
    Spec(#[from] ferry_engine::import_spec::SpecErrors),
    #[error(transparent)]
    Program(#[from] ferry_engine::program::ProgramError),
    #[error("{0}")]
    Plan(String),
    #[error("no preview job `{0}` for this plan (jobs last as long as the server process)")]
    JobNotFound(String),
    #[error("no code: {0}")]
    Code(String),
    #[error("the commit was refused: {0}")]
    Commit(String),
    #[error("no resource `{urn}` in stack `{stack}`")]
    ResourceNotFound { stack: String, urn: String },
    #[error(transparent)]
    Store(StoreError),
    #[error(transparent)]
    Backend(#[from] ferry_backend::BackendError),
    #[error(
        "the backend `{url}` is not one this server may open{} (a server administrator allows backends with `ferry serve --allow-backend <org>=<url>`)",
        .org.as_ref().map(|o| format!(" for organisation `{o}`")).unwrap_or_default()
    )]
    BackendNotAllowed { url: String, org: Option<String> },
    #[error("the stack `{stack}` changed in its backend since this preview; preview again")]
    BackendChanged { stack: String },
    #[error("{0}")]
    Invalid(String),
    #[error("sign in first")]
    SignInRequired,
    #[error("{0}")]
    BadCredentials(String),
    #[error("{0}")]
    Forbidden(String),
    #[error("{0}")]
    RateLimited(String),
    #[error("{0}")]
    Conflict(String),
    #[error("the commit needs approval: {0}")]
    NeedsApproval(String),
    #[error("internal error: {0}")]
    Internal(String),
}

impl From<StoreError> for ServiceError {
    fn from(e: StoreError) -> Self {
        ServiceError::Store(e)
    }
}

impl From<ferry_store::InvalidStackNameError> for ServiceError {
    fn from(e: ferry_store::InvalidStackNameError) -> Self {
        ServiceError::Store(StoreError::InvalidName(e))
    }
}

impl ServiceError {
    /// A stable snake_case code for APIs.
    pub fn code(&self) -> &'static str {
        match self {
            ServiceError::State(e) => e.code.as_str(),
            ServiceError::TooLarge { .. } => "too_large",
            ServiceError::NameRequired { .. } => "name_required",
            ServiceError::StackMismatch { .. } => "stack_mismatch",
            ServiceError::ResourceNotFound { .. } => "not_found",
            ServiceError::Spec(_) => "invalid_spec",
            ServiceError::Program(_) => "invalid_program",
            ServiceError::Code(_) => "codegen_failed",
            ServiceError::Plan(_) => "invalid_plan",
            ServiceError::JobNotFound(_) => "not_found",
            ServiceError::Commit(_) => "commit_refused",
            ServiceError::Store(StoreError::StalePreview { .. }) => "stale_preview",
            ServiceError::Store(StoreError::AlreadyCommitted { .. }) => "already_committed",
            ServiceError::Store(
                StoreError::StackNotFound(_)
                | StoreError::VersionNotFound { .. }
                | StoreError::PreviewNotFound(_)
                | StoreError::PlanNotFound(_)
                | StoreError::PlanRevisionNotFound { .. }
                | StoreError::ShareNotFound,
            ) => "not_found",
            ServiceError::Store(StoreError::InvalidName(_)) => "invalid_name",
            ServiceError::Backend(ferry_backend::BackendError::Locked { .. }) => "stack_locked",
            ServiceError::Backend(ferry_backend::BackendError::NoStack(_)) => "not_found",
            ServiceError::Backend(ferry_backend::BackendError::Url { .. }) => "invalid_backend",
            ServiceError::Backend(ferry_backend::BackendError::Unreadable { .. }) => "invalid_state",
            ServiceError::Backend(ferry_backend::BackendError::Storage { .. }) => "backend_failed",
            ServiceError::BackendNotAllowed { .. } => "backend_not_allowed",
            ServiceError::BackendChanged { .. } => "stale_preview",
            ServiceError::Invalid(_) => "bad_request",
            ServiceError::SignInRequired => "sign_in_required",
            ServiceError::BadCredentials(_) => "bad_credentials",
            ServiceError::Forbidden(_) => "forbidden",
            ServiceError::RateLimited(_) => "rate_limited",
            ServiceError::Conflict(_) => "conflict",
            ServiceError::NeedsApproval(_) => "approval_required",
            ServiceError::Store(StoreError::CommentNotFound(_)) => "not_found",
            ServiceError::Store(StoreError::UserNotFound(_) | StoreError::TokenNotFound) => "not_found",
            ServiceError::Store(StoreError::UserExists(_) | StoreError::StackExists(_)) => "conflict",
            ServiceError::Store(_) | ServiceError::Internal(_) => "internal",
        }
    }

    /// The JSON path in the uploaded file the error is about, when there is one.
    pub fn path(&self) -> Option<&str> {
        match self {
            ServiceError::State(e) => e.path.as_deref(),
            _ => None,
        }
    }
}

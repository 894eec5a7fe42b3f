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
    #[error("no such job `{0}` here (finished jobs are kept for `--retain-jobs-days`, 30 days by default)")]
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
    // What the HTTP layer finds wrong with a request before the service sees it: in this table
    // too, so that every code a client meets has one place.
    /// A request whose body, query or header could not be read as asked; `status` is what the
    /// reader said (`400`, or `413`/`415`/`422` from axum's extractors).
    #[error("{message}")]
    Unreadable { status: u16, message: String },
    #[error("send {0} as the request body")]
    EmptyBody(String),
    #[error("{what} is {}over the limit of {limit} bytes", .size.map(|s| format!("{s} bytes, ")).unwrap_or_default())]
    BodyTooLarge { what: String, size: Option<usize>, limit: usize },
    #[error("{0}")]
    UnsupportedMediaType(String),
    /// A write that a session cookie carried from another site's page.
    #[error("{0}")]
    CrossSite(String),
    /// A program request (its envelope) that does not read.
    #[error("{0}")]
    ProgramRequest(String),
    /// A spec that is not text.
    #[error("{0}")]
    SpecText(String),
    #[error("{0}")]
    NotFound(String),
    /// A route the access table does not decide: refused, as a server fault.
    #[error("the route {0} has no access decision")]
    NoAccessDecision(String),
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
    /// The one table of what each error is to a caller: the HTTP status it stands for and a
    /// stable snake_case code from `ferry_types::errors`, by variant, with no wildcard (a new variant, here or in the
    /// store's or backend's errors, must be given both). The API and the UI's server functions
    /// both answer from it.
    fn status_and_code(&self) -> (u16, &'static str) {
        use ferry_backend::BackendError;
        use ferry_state::ErrorCode as StateCode;
        use ferry_types::errors::*;
        match self {
            ServiceError::State(e) => match e.code {
                StateCode::PassphraseRequired => PASSPHRASE_REQUIRED.into(),
                StateCode::WrongPassphrase => WRONG_PASSPHRASE.into(),
                StateCode::InvalidJson => INVALID_JSON.into(),
                StateCode::UnsupportedVersion => UNSUPPORTED_VERSION.into(),
                StateCode::UnknownFeature => UNKNOWN_FEATURE.into(),
                StateCode::InvalidState => INVALID_STATE.into(),
                StateCode::DanglingReference => DANGLING_REFERENCE.into(),
                StateCode::InvalidSecret => INVALID_SECRET.into(),
            },
            ServiceError::TooLarge { .. } => TOO_LARGE.into(),
            ServiceError::NameRequired { .. } => NAME_REQUIRED.into(),
            ServiceError::StackMismatch { .. } => STACK_MISMATCH.into(),
            ServiceError::Spec(_) => INVALID_SPEC.into(),
            ServiceError::Program(_) => INVALID_PROGRAM.into(),
            ServiceError::Plan(_) => INVALID_PLAN.into(),
            ServiceError::JobNotFound(_) => NOT_FOUND.into(),
            ServiceError::Code(_) => CODEGEN_FAILED.into(),
            ServiceError::Commit(_) => COMMIT_REFUSED.into(),
            ServiceError::ResourceNotFound { .. } => NOT_FOUND.into(),
            ServiceError::Store(store) => match store {
                StoreError::StackNotFound(_)
                | StoreError::VersionNotFound { .. }
                | StoreError::PreviewNotFound(_)
                | StoreError::PlanNotFound(_)
                | StoreError::PlanRevisionNotFound { .. }
                | StoreError::ShareNotFound
                | StoreError::InvitationNotFound
                | StoreError::UserNotFound(_)
                | StoreError::TokenNotFound
                | StoreError::CommentNotFound(_)
                | StoreError::JobNotFound(_)
                | StoreError::WebhookNotFound(_) => NOT_FOUND.into(),
                StoreError::UserExists(_) | StoreError::StackExists(_) => CONFLICT.into(),
                StoreError::StalePreview { .. } => STALE_PREVIEW.into(),
                StoreError::AlreadyCommitted { .. } => ALREADY_COMMITTED.into(),
                StoreError::InvalidName(_) => INVALID_NAME.into(),
                StoreError::Database(_)
                | StoreError::Migration(_)
                | StoreError::UnsupportedDatabase(_)
                | StoreError::DamagedExport { .. }
                | StoreError::DamagedPreview { .. }
                | StoreError::DamagedJob { .. } => INTERNAL.into(),
            },
            ServiceError::Backend(backend) => match backend {
                BackendError::Locked { .. } => STACK_LOCKED.into(),
                BackendError::NoStack(_) => NOT_FOUND.into(),
                BackendError::Url { .. } => INVALID_BACKEND.into(),
                BackendError::Unreadable { .. } => INVALID_STATE.into(),
                BackendError::Storage { .. } => BACKEND_FAILED.into(),
            },
            ServiceError::BackendNotAllowed { .. } => BACKEND_NOT_ALLOWED.into(),
            ServiceError::BackendChanged { .. } => STALE_PREVIEW.into(),
            ServiceError::Invalid(_) => BAD_REQUEST.into(),
            ServiceError::SignInRequired => SIGN_IN_REQUIRED.into(),
            ServiceError::BadCredentials(_) => BAD_CREDENTIALS.into(),
            ServiceError::Forbidden(_) => FORBIDDEN.into(),
            ServiceError::RateLimited(_) => RATE_LIMITED.into(),
            ServiceError::Conflict(_) => CONFLICT.into(),
            ServiceError::NeedsApproval(_) => APPROVAL_REQUIRED.into(),
            ServiceError::Internal(_) => INTERNAL.into(),
            ServiceError::Unreadable { status, .. } => (*status, BAD_REQUEST.code),
            ServiceError::EmptyBody(_) => EMPTY_BODY.into(),
            ServiceError::BodyTooLarge { .. } => TOO_LARGE.into(),
            ServiceError::UnsupportedMediaType(_) => UNSUPPORTED_MEDIA_TYPE.into(),
            ServiceError::CrossSite(_) => CROSS_SITE.into(),
            ServiceError::ProgramRequest(_) => INVALID_PROGRAM.into(),
            ServiceError::SpecText(_) => INVALID_SPEC.into(),
            ServiceError::NotFound(_) => NOT_FOUND.into(),
            ServiceError::NoAccessDecision(_) => NO_ACCESS_DECISION.into(),
        }
    }

    /// The HTTP status the error stands for (see [`Self::status_and_code`]).
    pub fn status(&self) -> u16 {
        self.status_and_code().0
    }

    /// A stable snake_case code for APIs (see [`Self::status_and_code`]).
    pub fn code(&self) -> &'static str {
        self.status_and_code().1
    }

    /// The JSON path in the uploaded file the error is about, when there is one.
    pub fn path(&self) -> Option<&str> {
        match self {
            ServiceError::State(e) => e.path.as_deref(),
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_error_answers_one_status_and_code_from_the_table() {
        // A missing job is not found, whichever layer found it missing (it was `internal`).
        for missing in [
            ServiceError::Store(StoreError::JobNotFound("j".into())),
            ServiceError::JobNotFound("j".into()),
        ] {
            assert_eq!((missing.status(), missing.code()), (404, "not_found"), "{missing}");
        }
        assert_eq!(
            (ServiceError::SignInRequired.status(), ServiceError::SignInRequired.code()),
            (401, "sign_in_required")
        );
        let stale = ServiceError::Store(StoreError::StalePreview { base: 1, latest: 2 });
        assert_eq!((stale.status(), stale.code()), (409, "stale_preview"));
        let damaged =
            ServiceError::Store(StoreError::DamagedPreview { id: "p".into(), why: "x".into() });
        assert_eq!((damaged.status(), damaged.code()), (500, "internal"));
    }
}

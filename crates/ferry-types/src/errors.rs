//! The API's error codes, each named once with the status it answers and what it means: the
//! service's error table returns these, and the OpenAPI document lists them.

/// One code of [`crate::ErrorDetail::code`]: stable, for scripts to match on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ErrorCode {
    pub code: &'static str,
    /// The status the code answers with (a body the server could not read answers the status
    /// its reader gave, with [`BAD_REQUEST`]).
    pub status: u16,
    pub meaning: &'static str,
}

macro_rules! error_codes {
    ($($name:ident = $status:literal $code:literal: $meaning:literal;)*) => {
        $(pub const $name: ErrorCode = ErrorCode { code: $code, status: $status, meaning: $meaning };)*

        /// Every code, in the order declared.
        pub const ALL: &[ErrorCode] = &[$($name,)*];
    };
}

error_codes! {
    BAD_REQUEST = 400 "bad_request": "The request's body, query or a header does not read as the endpoint takes it.";
    EMPTY_BODY = 400 "empty_body": "The endpoint needs a body and none was sent.";
    INVALID_JSON = 400 "invalid_json": "An uploaded state is not JSON.";
    UNSUPPORTED_VERSION = 400 "unsupported_version": "An uploaded state's version is not one Pulumi writes.";
    UNKNOWN_FEATURE = 400 "unknown_feature": "An uploaded state needs a feature Ferry does not know.";
    INVALID_STATE = 400 "invalid_state": "An uploaded or stored state does not read; `path` says where.";
    DANGLING_REFERENCE = 400 "dangling_reference": "A state's resource names a parent, provider or dependency it does not hold.";
    INVALID_SECRET = 400 "invalid_secret": "A state's secret does not decrypt or decode.";
    NAME_REQUIRED = 400 "name_required": "The stack must be named `org/project/stack`.";
    STACK_MISMATCH = 400 "stack_mismatch": "A state's resources are another stack's; `names` lists whose.";
    INVALID_SPEC = 400 "invalid_spec": "An import spec has problems; `errors` and `warnings` place each.";
    INVALID_PROGRAM = 400 "invalid_program": "A program has problems; `diagnostics` place each.";
    INVALID_PLAN = 400 "invalid_plan": "A plan, or what was asked of it, does not fit.";
    INVALID_NAME = 400 "invalid_name": "A stack, project or organisation name is not one Pulumi accepts.";
    INVALID_BACKEND = 400 "invalid_backend": "A backend URL does not read.";
    SIGN_IN_REQUIRED = 401 "sign_in_required": "The request carries no session or token that is still valid.";
    BAD_CREDENTIALS = 401 "bad_credentials": "A name, password, token or link that does not sign in.";
    FORBIDDEN = 403 "forbidden": "The caller lacks the role the endpoint needs on what it names.";
    CROSS_SITE = 403 "cross_site": "A write carried a session cookie from another site's page.";
    BACKEND_NOT_ALLOWED = 403 "backend_not_allowed": "A backend URL outside those an administrator allowed the organisation.";
    NOT_FOUND = 404 "not_found": "No such object, or none the caller may see.";
    CONFLICT = 409 "conflict": "The object exists already, or changed since it was read.";
    STALE_PREVIEW = 409 "stale_preview": "The stack changed since the preview; preview again.";
    ALREADY_COMMITTED = 409 "already_committed": "The preview was committed already.";
    STACK_LOCKED = 409 "stack_locked": "A DIY backend's stack is locked by another update.";
    APPROVAL_REQUIRED = 409 "approval_required": "The commit needs an approval it does not have.";
    TOO_LARGE = 413 "too_large": "A body or file over the server's limit.";
    UNSUPPORTED_MEDIA_TYPE = 415 "unsupported_media_type": "A body of a type the endpoint does not take.";
    PASSPHRASE_REQUIRED = 422 "passphrase_required": "The state's secrets need the stack's passphrase (`X-Ferry-Passphrase`).";
    WRONG_PASSPHRASE = 422 "wrong_passphrase": "The passphrase does not open the state's secrets.";
    CODEGEN_FAILED = 422 "codegen_failed": "Code could not be generated for what was asked.";
    COMMIT_REFUSED = 422 "commit_refused": "The commit was refused; the message says why.";
    RATE_LIMITED = 429 "rate_limited": "Too many attempts; wait and try again.";
    INTERNAL = 500 "internal": "A fault of the server's, logged there.";
    NO_ACCESS_DECISION = 500 "no_access_decision": "A route without an access decision, refused as a server fault.";
    BACKEND_FAILED = 502 "backend_failed": "The backend's storage failed to answer.";
}

/// The code whose name is `code`, when the table has it.
pub fn named(code: &str) -> Option<&'static ErrorCode> {
    ALL.iter().find(|c| c.code == code)
}

impl From<ErrorCode> for (u16, &'static str) {
    fn from(code: ErrorCode) -> Self {
        (code.status, code.code)
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn each_code_is_named_once() {
        let mut seen = std::collections::HashSet::new();
        for c in super::ALL {
            assert!(seen.insert(c.code), "{} twice", c.code);
            assert!((400..600).contains(&c.status), "{}", c.code);
        }
    }
}

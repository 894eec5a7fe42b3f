//! One preview request for specs and programs alike, and its one entry point: the API, a
//! plan's background job and the CLI all preview through [`Previews::preview`].

use ferry_engine::deploy::PlanScope;
use ferry_engine::import::ImportStrategy;

use crate::programs::ProgramRequest;
use crate::{PreviewRecord, Previews, ServiceError};

/// What to preview against a stack's latest version: an import spec or a program, the scope,
/// and who to tell of each step. Every preview (the API's, a plan's job, the CLI's) is one.
pub struct PreviewRequest {
    pub source: PreviewSource,
    /// Which of a program's steps the plan holds (a spec's plan holds its imports only).
    pub scope: PlanScope,
    /// Told of each step as it is generated.
    pub progress: Option<ferry_engine::progress::Progress>,
}

/// What a preview runs.
pub enum PreviewSource {
    /// An import spec, read and checked (its text is what the preview keeps as its source),
    /// and how its imports may differ from what the providers read.
    Spec { text: String, spec: ferry_engine::import_spec::ImportSpec, strategy: ImportStrategy },
    /// A program, with its config and what it imports.
    Program(ProgramRequest),
}

impl Previews {
    /// Runs `request` against the stack's latest version and stores the plan it makes. Writes
    /// nothing to the stack and changes nothing anywhere.
    pub async fn preview(
        &self,
        stack_id: &str,
        request: PreviewRequest,
    ) -> Result<PreviewRecord, ServiceError> {
        let PreviewRequest { source, scope, progress } = request;
        match source {
            PreviewSource::Spec { text, spec, strategy } => {
                self.preview_spec(stack_id, &text, spec, progress, strategy).await
            }
            PreviewSource::Program(program) => {
                self.preview_program(stack_id, program, scope, progress).await
            }
        }
    }
}

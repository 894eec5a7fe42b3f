//! One preview request for specs and programs alike, and its one entry point: the API, a
//! plan's background job and the CLI all preview through [`Previews::preview`].

use ferry_engine::deploy::PlanScope;
use ferry_engine::import::ImportStrategy;
use ferry_engine::import_spec::{import_spec_from_value, read_spec_json};
use ferry_types::previews::ProgramEnvelope;

use crate::previews::programs::{ProgramRequest, ProgramSource};
use crate::{PreviewRecord, Previews, ServiceError};

/// What to preview against a stack's latest version: an import spec or a program, the scope,
/// and who to tell of each step. Every preview (the API's, a plan's job, the CLI's) is one.
pub struct PreviewRequest {
    pub source: PreviewSource,
    /// Which of a program's steps the plan holds (a spec's plan holds its imports only).
    pub scope: PlanScope,
    /// Told of each step as it is generated.
    pub progress: Option<ferry_engine::progress::Progress>,
    /// The turn it runs in: a job's preview goes in its job's; `None` waits for the next free
    /// one (see [`crate::Turn`]).
    pub turn: Option<crate::Turn>,
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
    /// Runs `request` against the stack's latest version and stores the plan it makes, in its
    /// turn (at most the service's `concurrent_runs` previews hold their results at once).
    /// Writes nothing to the stack and changes nothing anywhere.
    pub async fn preview(
        &self,
        stack_id: &str,
        request: PreviewRequest,
    ) -> Result<PreviewRecord, ServiceError> {
        let PreviewRequest { source, scope, progress, turn } = request;
        let _turn = match turn {
            Some(turn) => turn,
            None => self.jobs.turn().await,
        };
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

/// Whether a lower-cased `Content-Type` names YAML (a Pulumi YAML program).
fn is_yaml(content_type: &str) -> bool {
    ["application/yaml", "application/x-yaml", "text/yaml", "text/x-yaml"]
        .iter()
        .any(|t| content_type.starts_with(t))
}

impl PreviewRequest {
    /// The preview a request's body asks for, read once: a program (YAML, a project zip, or
    /// the JSON [`ProgramEnvelope`]) or an import spec; `scope` unless the envelope names its
    /// own. `content_type` is the body's as sent (empty when none was).
    pub fn from_body(
        bytes: &[u8],
        content_type: &str,
        scope: PlanScope,
    ) -> Result<PreviewRequest, ServiceError> {
        let content_type = content_type.to_ascii_lowercase();
        let program = |source| PreviewRequest {
            source: PreviewSource::Program(ProgramRequest::new(source)),
            scope,
            progress: None,
            turn: None,
        };
        if content_type.starts_with("application/zip") || bytes.starts_with(b"PK\x03\x04") {
            return Ok(program(ProgramSource::Zip(bytes.to_vec())));
        }
        let text = std::str::from_utf8(bytes)
            .map_err(|_| ServiceError::SpecText("the body is not UTF-8 text".into()))?;
        if is_yaml(&content_type) {
            return Ok(program(ProgramSource::Yaml(text.to_string())));
        }
        // One JSON read: a program's envelope is told from a spec by its keys, and a spec is
        // checked from the value already read.
        let json = read_spec_json(text)?;
        if json.get("program").is_some() || json.get("programZip").is_some() {
            let envelope: ProgramEnvelope = serde_json::from_value(json)
                .map_err(|e| ServiceError::ProgramRequest(format!("the program request: {e}")))?;
            let scope = envelope.scope.unwrap_or(scope);
            return Ok(PreviewRequest {
                source: PreviewSource::Program(ProgramRequest::from_envelope(envelope)?),
                scope,
                progress: None,
                turn: None,
            });
        }
        let spec = import_spec_from_value(json)?;
        Ok(PreviewRequest {
            source: PreviewSource::Spec {
                text: text.to_string(),
                spec,
                strategy: Default::default(),
            },
            scope,
            progress: None,
            turn: None,
        })
    }
}

impl ProgramRequest {
    /// A program alone: no config, mapping, passphrase or prior states.
    pub fn new(source: ProgramSource) -> ProgramRequest {
        ProgramRequest {
            source,
            config: Default::default(),
            mapping: None,
            passphrase: None,
            prior: None,
        }
    }

    /// The program an envelope holds: its text or its base64 project zip (exactly one), its
    /// config and its mapping.
    pub fn from_envelope(envelope: ProgramEnvelope) -> Result<ProgramRequest, ServiceError> {
        let invalid = |message: String| ServiceError::ProgramRequest(message);
        let source = match (envelope.program, envelope.program_zip) {
            (Some(text), None) => ProgramSource::Yaml(text),
            (None, Some(zip)) => {
                use base64::Engine as _;
                let bytes = base64::engine::general_purpose::STANDARD
                    .decode(zip.trim())
                    .map_err(|e| invalid(format!("`programZip` is not base64: {e}")))?;
                ProgramSource::Zip(bytes)
            }
            _ => return Err(invalid("give either `program` or `programZip`".into())),
        };
        let config = envelope.config.into_iter().map(|(k, v)| (k, v.into_value())).collect();
        Ok(ProgramRequest { config, mapping: envelope.mapping, ..ProgramRequest::new(source) })
    }
}

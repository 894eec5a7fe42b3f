//! Ferry's import engine. So far: Pulumi's property value model and its marshalling
//! ([`property`]), and import specs, the `pulumi import --file` format ([`import_spec`]).
//!
//! Architecture Invariant: the engine knows nothing of HTTP, Leptos or the store; it takes
//! values and returns values (the preview is a value).

pub mod import_spec;
pub mod property;

//! Ferry's import engine: Pulumi's property value model and its marshalling ([`property`]),
//! import specs in the `pulumi import --file` format ([`import_spec`]) and their preview
//! ([`import`]) and commit ([`commit`]), Pulumi YAML programs ([`program`]) and their
//! deployments ([`deploy`]), and the host that launches provider plugins and talks to them over
//! Pulumi's protocol ([`plugin`]).
//!
//! Architecture Invariant: the engine knows nothing of HTTP, Leptos or the store; it takes
//! values and returns values (the preview is a value).

pub mod commit;
pub mod deploy;
pub mod import;
pub mod import_spec;
pub mod plugin;
pub mod program;
pub mod progress;
pub mod property;
pub mod provider;
pub mod source_map;

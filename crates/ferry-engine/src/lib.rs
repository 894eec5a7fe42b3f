//! Ferry's import engine: import specs in the `pulumi import --file` format ([`import_spec`])
//! run as import deployments ([`import`]), Pulumi YAML programs ([`program`]), the one deployment engine both
//! go through ([`deploy`]: step generation and execution, the stack's next state), and the host
//! that launches provider plugins and talks to them over Pulumi's protocol ([`plugin`]).
//! Property values, the engine's currency, are the `ferry-property` crate's.
//!
//! Architecture Invariant: the engine knows nothing of HTTP, Leptos or the store; it takes
//! values and returns values (the preview is a value).

pub mod deploy;
pub mod import;
pub mod import_spec;
pub mod inquiry;
pub mod plugin;
pub mod priority;
pub mod program;
pub mod progress;
pub mod provider;
pub mod recipes;
pub mod source_map;

//! Provider plugins: finding a `pulumi-resource-<package>` binary the way Pulumi does
//! ([`search`]), launching it and talking to it over `pulumirpc.ResourceProvider` with a
//! deadline on every call ([`host`]), restarting it after a crash or a hang and retrying what was
//! in flight ([`supervisor`]), and the `Engine` service plugins log to ([`engine`]).
//!
//! Architecture Invariant: a plugin is only ever a binary found on this machine by package
//! name (`[a-z0-9-]+`); nothing a user sends makes Ferry download or run anything else.

pub mod engine;
pub mod environment;
mod error;
pub mod host;
pub mod registry;
pub mod search;
pub mod supervisor;

pub use engine::{EngineService, LogEvent};
pub use environment::{PluginEnvGrants, PluginEnvPolicy, PluginEnvironment};
pub use error::{LoggedOutput, PluginError};
pub use host::{LaunchOptions, ProviderPlugin};
pub use registry::{Parameterized, PluginProviders};
pub use search::{valid_package, PluginSearch, ProviderBinary};
pub use supervisor::SupervisedPlugin;

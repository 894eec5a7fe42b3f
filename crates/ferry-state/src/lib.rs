//! Pulumi stack state as Ferry reads and writes it.
//!
//! Reads every layout Pulumi has written (checkpoints v0–v4, `pulumi stack export` files),
//! migrates old ones to the v3 deployment, checks that the state hangs together, verifies
//! secrets with the user's passphrase, and writes `stack export` v3 again without losing a
//! field. Nothing here does IO beyond the bytes it is handed.

pub mod deployment;
pub mod error;
pub mod export_parts;
pub mod graph;
pub mod graph_summary;
pub mod load;
pub mod properties;
pub mod rename;
pub mod secrets;
pub mod sig;
pub mod urn;
pub mod validate;
pub mod warning;

pub use deployment::{Deployment, Resource, SecretsProviders};
pub use error::{ErrorCode, StateError};
pub use graph::{EdgeKind, GraphEdge, GraphNode, NodeKind, NodeMark, StackGraph};
pub use load::{load_state, LoadOptions, LoadedState, SourceFormat};
pub use properties::Properties;
pub use urn::Urn;
pub use warning::StateWarning;

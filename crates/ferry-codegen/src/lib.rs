//! Code for imported resources: from the resources' values (a preview's, or a stack's) and the
//! providers' package schemas to an intermediate form ([`ir`], built by [`lower`]), printed as
//! TypeScript, Python, Go, C# or Pulumi YAML ([`lang`]), alone or as a runnable project
//! ([`project`]). Instances of one `count`/`for_each` declaration are one loop where a language
//! has loops ([`ir::Loop`]).
//!
//! Architecture Invariant: no IO. Schemas and values come in, text goes out; the same input
//! always gives the same bytes.
//!
//! Architecture Invariant: a secret value is never written into code. It is read from stack
//! config, and the report lists the `pulumi config set --secret` commands to run. A variable
//! of the source's configuration is read from stack config too, its value the default.

mod connections;
pub mod ir;
pub mod lang;
mod loops;
pub mod lower;
pub mod names;
pub mod project;
pub mod schema;

pub use ferry_types::plans::CodeStyle;
pub use lang::{emit, Language};
pub use loops::{Origin, OriginPart, OriginReference, OriginTemplate, OriginVariable};
pub use lower::{elidable_inputs, lower, packages_needed, LowerError, Options, SourceResource};
pub use schema::{PackageSchema, SchemaError};

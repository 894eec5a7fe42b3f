//! Pulumi's provider protocol, `pulumirpc`, as tonic clients and servers: the
//! `ResourceProvider` service plugins implement and the `Engine` service they log to.
//!
//! Architecture Invariant: the messages are generated from `proto/`, whose field numbers match
//! Pulumi's (checked by `tests/wire.rs`), so real `pulumi-resource-*` plugins interoperate.

#[allow(clippy::all, missing_docs)]
pub mod pulumirpc {
    tonic::include_proto!("pulumirpc");
}

pub use prost_types;

/// The encoded `FileDescriptorSet` of the compiled protocol.
pub const FILE_DESCRIPTOR_SET: &[u8] = include_bytes!(concat!(env!("OUT_DIR"), "/pulumirpc.bin"));

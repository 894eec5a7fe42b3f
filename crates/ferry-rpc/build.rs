//! Compiles proto/ (Pulumi's pulumirpc protocol) into tonic code, with no `protoc`: protox
//! parses the files in Rust. Also writes the descriptor set the wire-compatibility test reads.

use std::path::PathBuf;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let proto = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../proto");
    println!("cargo:rerun-if-changed={}", proto.display());
    let fds = protox::compile(["pulumi/provider.proto", "pulumi/engine.proto"], [&proto])?;
    let out = PathBuf::from(std::env::var("OUT_DIR")?);
    std::fs::write(out.join("pulumirpc.bin"), prost::Message::encode_to_vec(&fds))?;
    tonic_prost_build::configure()
        .build_client(true)
        .build_server(true)
        // Unimplemented methods answer `Unimplemented`, as an older real plugin does.
        .generate_default_stubs(true)
        .compile_fds(fds)?;
    Ok(())
}

# Ferry's container image: built as scripts/build.sh builds Ferry (Debian's rustc-web toolchain,
# which carries the wasm target's sources; the front end, the graph bundle, the server), then
# run as a non-root user with the provider plugins Ferry ships beside the binary, where `ferry`
# looks for plugins first.
#
#   docker build -t ferry .
#   docker run -p 3000:3000 -v ferry-data:/var/lib/ferry ferry
#
# deploy/compose.yaml runs two instances on PostgreSQL behind TLS, with an S3-compatible server.

FROM debian:bookworm AS build
ARG WASM_BINDGEN_VERSION=0.2.130
RUN apt-get update \
 && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends \
      rustc-web cargo-web rust-web-src rust-web-llvm lld-22 gcc libc6-dev ca-certificates curl git nodejs npm \
 && rm -rf /var/lib/apt/lists/*
# scripts/lib.sh puts the npm tools and cargo's installs on PATH itself, relative to the checkout.
ENV CARGO_TERM_COLOR=never
# wasm-bindgen's CLI, the version of the crate in Cargo.lock (not --locked: see scripts/lib.sh).
RUN cargo install wasm-bindgen-cli --version "$WASM_BINDGEN_VERSION"
WORKDIR /src
# npm packages first, so that a source change does not fetch them again: esbuild for the graph
# bundle, binaryen's wasm-opt (Debian's breaks the wasm; see TOOLCHAIN notes in scripts/lib.sh).
COPY end2end/package.json end2end/package-lock.json end2end/
COPY app/js/package.json app/js/package-lock.json app/js/
RUN cd end2end && npm ci --ignore-scripts --no-audit --no-fund \
 && cd ../app/js && npm ci --no-audit --no-fund
COPY . .
RUN ./scripts/build.sh --release \
 && mkdir -p /out/bin \
 && cp target/server-release/ferry target/server-release/pulumi-resource-random target/server-release/pulumi-resource-postgresql /out/bin/ \
 && cp -r target/site /out/site

FROM debian:bookworm-slim
RUN apt-get update \
 && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends ca-certificates tini \
 && rm -rf /var/lib/apt/lists/* \
 && useradd --system --uid 10001 --home-dir /var/lib/ferry --create-home ferry
COPY --from=build /out/bin/ /opt/ferry/bin/
# The server serves the front end from target/site under its working directory.
COPY --from=build /out/site/ /opt/ferry/target/site/
WORKDIR /opt/ferry
USER ferry
ENV PATH=/opt/ferry/bin:$PATH \
    FERRY_ADDR=0.0.0.0:3000 \
    FERRY_DATA_DIR=/var/lib/ferry
VOLUME /var/lib/ferry
EXPOSE 3000
HEALTHCHECK --interval=10s --timeout=3s CMD ["/bin/bash", "-c", "exec 3<>/dev/tcp/127.0.0.1/3000 && printf 'GET /healthz HTTP/1.0\\r\\n\\r\\n' >&3 && grep -q ok <&3"]
ENTRYPOINT ["/usr/bin/tini", "--", "ferry"]
CMD ["serve"]

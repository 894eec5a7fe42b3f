#!/usr/bin/env bash
# test.sh: installs what is missing, then runs every test: unit and integration (cargo test),
# then end to end in Debian's Chromium against a freshly built server.
source "$(dirname "$0")/lib.sh"
ensure_tools --browser

log "style: rustfmt"
# The formatter is Debian's rustfmt-web (installed above); if it is missing, this fails.
cargo fmt --all --check

log "style: clippy"
# Debian's rust-web-clippy (installed above), warnings denied: every crate as the server builds
# it, and the UI as the browser runs it (wasm, `hydrate`).
cargo clippy --workspace --all-targets -- -D warnings
cargo clippy -p app --lib --target wasm32-unknown-unknown --no-default-features --features hydrate \
  -Zbuild-std=std,panic_abort --target-dir target/front -- -D warnings

log "unit and integration tests"
# Generated code is checked against the real SDKs (tsc, pyright, gofmt), installed above; the
# tests fail when one is missing.
cargo test --workspace --no-fail-fast

log "benchmark smoke"
# Not a timed test: 1,000 imports against their floor, paired; fails only past a loose bound
# (2x) that a real regression crosses and machine noise does not. The README gives the full
# benchmark's figures.
cargo bench -p pulumi-resource-random --bench import_preview -- --smoke

"$ROOT/scripts/build.sh"

log "end-to-end tests (Chromium)"
DATA="$(mktemp -d)"
PORT="${FERRY_TEST_PORT:-$((20000 + RANDOM % 20000))}"
export FERRY_URL="http://127.0.0.1:$PORT"
# Beside Ferry's own plugins: the scripted test plugin (built by `cargo test` above) in its
# `naive` mode as `pulumi-resource-test`, a provider whose Diff reports the zero values and
# defaults a program leaves out, down to nested leaves (what the leaf-review test resolves).
mkdir -p "$DATA/plugins"
printf '#!/bin/sh\nFERRY_TEST_PROVIDER_MODE=naive exec "%s" "$@"\n' "$ROOT/target/debug/ferry-test-provider" > "$DATA/plugins/pulumi-resource-test"
chmod +x "$DATA/plugins/pulumi-resource-test"
# The discovery test lists the machine's PostgreSQL server through Ferry's postgresql plugin,
# which reads libpq's variables as the real provider does; the backend test connects a stack of
# a DIY backend folder the server is told to allow.
export FERRY_E2E_BACKEND="$DATA/backend"
mkdir -p "$FERRY_E2E_BACKEND"
PGHOST=127.0.0.1 PGUSER=postgres PGSSLMODE=disable FERRY_ALLOW_BACKENDS="file://$FERRY_E2E_BACKEND" \
  "$ROOT/target/debug/ferry" serve --addr "127.0.0.1:$PORT" --data-dir "$DATA" --plugin-dir "$DATA/plugins" > "$DATA/server.log" 2>&1 &
SERVER_PID=$!
cleanup() { kill "$SERVER_PID" 2>/dev/null || true; wait "$SERVER_PID" 2>/dev/null || true; rm -rf "$DATA"; }
trap cleanup EXIT
for _ in $(seq 1 100); do
  curl -fsS "$FERRY_URL/healthz" >/dev/null 2>&1 && break
  kill -0 "$SERVER_PID" 2>/dev/null || { cat "$DATA/server.log"; exit 1; }
  sleep 0.2
done
status=0
(cd end2end && node --test --test-concurrency=1 --test-reporter=spec tests/) || status=$?
if [ $status -ne 0 ]; then
  log "server log"; tail -50 "$DATA/server.log"
fi
exit $status

#!/usr/bin/env bash
# test.sh: installs what is missing, then runs every test: unit and integration (cargo test),
# then end to end in Debian's Chromium against a freshly built server.
source "$(dirname "$0")/lib.sh"
ensure_tools --browser

log "style: rustfmt"
# The formatter is Debian's rustfmt-web (installed above); if it is missing, this fails.
cargo fmt --all --check

# Clippy lints while the test build compiles: Debian's clippy-driver (rust-web-clippy, installed
# above) as the workspace's compiler wrapper, which is what `cargo clippy` runs, but with code
# generation, so the lints and the tests share one build of every crate instead of a check pass
# of the whole workspace beside it. Warnings are denied (what `cargo clippy -- -D warnings`
# passes it). The front end's build and every `cargo test` below run through it, so none
# rebuilds for a changed wrapper: every crate with all its targets (`--all-targets`, as `cargo
# clippy` was run) and the UI as the browser runs it (the wasm build, `hydrate`).
CLIPPY_DRIVER="$(command -v clippy-driver)" || { echo "clippy-driver is missing (Debian's rust-web-clippy)" >&2; exit 1; }
LINTED=(env RUSTC_WORKSPACE_WRAPPER="$CLIPPY_DRIVER" CLIPPY_ARGS="-D__CLIPPY_HACKERY__warnings__CLIPPY_HACKERY__")

log "style (clippy) and the front end's build (wasm, hydrate)"
"${LINTED[@]}" "$ROOT/scripts/build.sh" --front

log "unit and integration tests"
# Generated code is checked against the real SDKs (tsc, pyright, gofmt), installed above; the
# tests fail when one is missing.
# The PostgreSQL tests reach the machine's server through libpq's variables, as users' do.
export PGHOST=127.0.0.1 PGUSER=postgres PGSSLMODE=disable
# The store's tests run on SQLite and on PostgreSQL, in a database of this run's own; every test
# makes a schema of its own in it.
psql -d postgres -qc 'DROP DATABASE IF EXISTS ferry_test WITH (FORCE)' -c 'CREATE DATABASE ferry_test'
export FERRY_TEST_POSTGRES_URL='postgres://postgres@127.0.0.1:5432/ferry_test?sslmode=disable'
# `--all-targets` also builds the benchmarks in the test profile and runs each once in its smoke
# mode (not a timed test: each fails only past a loose bound a real regression crosses; the
# benches say what they run when `cargo bench` does not start them).
"${LINTED[@]}" cargo test --workspace --all-targets --no-fail-fast

log "API and service tests again, with Ferry's data in PostgreSQL"
# The same test binaries the run above built, each from its package's folder with the variables
# cargo gives the tests it runs: building them again for two packages alone would unify
# features differently and rebuild much of the workspace.
BINARIES="$("${LINTED[@]}" cargo test --workspace --all-targets --no-run --message-format=json | node -e '
  let s = ""; process.stdin.on("data", (d) => (s += d)).on("end", () => {
    const found = [];
    for (const line of s.split("\n")) {
      if (!line.startsWith("{")) continue;
      const m = JSON.parse(line);
      if (m.reason !== "compiler-artifact" || !m.executable || !m.profile.test) continue;
      if (/\/(server|crates\/ferry-service)\/Cargo\.toml$/.test(m.manifest_path)) found.push(`${require("path").dirname(m.manifest_path)}\t${m.executable}`);
    }
    if (found.length < 2) { console.error(`the server'"'"'s and the service'"'"'s test binaries were not found (${found.length})`); process.exit(1); }
    console.log(found.join("\n"));
  });')"
# `.cargo/config.toml`'s [env] is what cargo adds for every run; run directly, the binaries get
# its one runtime variable here (test threads render pages as deep as the server's threads do).
RUST_MIN_STACK_FROM_CONFIG="$(sed -n 's/^RUST_MIN_STACK = "\([0-9]*\)"$/\1/p' "$ROOT/.cargo/config.toml")"
[ -n "$RUST_MIN_STACK_FROM_CONFIG" ] || { echo ".cargo/config.toml sets no RUST_MIN_STACK" >&2; exit 1; }
status=0
while IFS=$'\t' read -r dir exe; do
  (cd "$dir" && CARGO_MANIFEST_DIR="$dir" CARGO_PKG_NAME="$(basename "$dir")" RUST_MIN_STACK="$RUST_MIN_STACK_FROM_CONFIG" \
    FERRY_TEST_DATABASE_URL="$FERRY_TEST_POSTGRES_URL" "$exe") || status=1
done <<< "$BINARIES"
[ $status -eq 0 ] || exit $status

# The server and Ferry's plugins are the debug binaries `cargo test` built above (building them
# again alone would unify features differently and rebuild them).
for bin in ferry pulumi-resource-random pulumi-resource-postgresql; do
  [ -x "$ROOT/target/debug/$bin" ] || { echo "target/debug/$bin is missing: cargo test --workspace builds it" >&2; exit 1; }
done

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
# A local Terraform backend's folder the `e2e` organisation may read states from.
export FERRY_E2E_TERRAFORM="$DATA/terraform"
mkdir -p "$FERRY_E2E_TERRAFORM"
# Sign-in is never off: the tests set up through an administrator's API token, and one of the
# team signs in through a real OpenID Provider (panva's oidc-provider from npm).
export FERRY_E2E_TOKEN="$("$ROOT/target/debug/ferry" token create --data-dir "$DATA" --user e2e-admin --role admin --days 1)"
# Passwords are set from a browser session only: the tests' first process opens this one-time
# link as the administrator and chooses a password (end2end/lib/browser.mjs).
export FERRY_E2E_ADMIN_LINK="$("$ROOT/target/debug/ferry" sign-in-link --data-dir "$DATA" --user e2e-admin --public-url "$FERRY_URL")"
OIDC_PORT="$((PORT + 1))"
export FERRY_E2E_OIDC="http://127.0.0.1:$OIDC_PORT"
OIDC_PORT="$OIDC_PORT" node "$ROOT/end2end/oidc/provider.mjs" > "$DATA/oidc.log" 2>&1 &
OIDC_PID=$!
cleanup() {
  kill "${SERVER_PID:-}" "$OIDC_PID" 2>/dev/null || true
  wait "${SERVER_PID:-}" "$OIDC_PID" 2>/dev/null || true
  rm -rf "$DATA"
}
trap cleanup EXIT
for _ in $(seq 1 100); do
  curl -fsS "$FERRY_E2E_OIDC/.well-known/openid-configuration" >/dev/null 2>&1 && break
  kill -0 "$OIDC_PID" 2>/dev/null || { cat "$DATA/oidc.log"; exit 1; }
  sleep 0.2
done
# Plugins see only a minimal environment: the postgresql plugin is given libpq's variables by
# name, as an administrator would.
PGHOST=127.0.0.1 PGUSER=postgres PGSSLMODE=disable FERRY_PLUGIN_ENV=*:postgresql=PGHOST,*:postgresql=PGUSER,*:postgresql=PGSSLMODE \
  FERRY_ALLOW_BACKENDS="diy=file://$FERRY_E2E_BACKEND,e2e=file://$FERRY_E2E_TERRAFORM" FERRY_ALLOW_PRIVATE_WEBHOOKS=true \
  FERRY_OIDC_ISSUER="$FERRY_E2E_OIDC" FERRY_OIDC_CLIENT_ID=ferry FERRY_OIDC_CLIENT_SECRET=e2e-client-secret FERRY_OIDC_GROUPS_CLAIM=groups \
  "$ROOT/target/debug/ferry" serve --addr "127.0.0.1:$PORT" --public-url "$FERRY_URL" --data-dir "$DATA" --plugin-dir "$DATA/plugins" > "$DATA/server.log" 2>&1 &
SERVER_PID=$!
for _ in $(seq 1 100); do
  curl -fsS "$FERRY_URL/healthz" >/dev/null 2>&1 && break
  kill -0 "$SERVER_PID" 2>/dev/null || { cat "$DATA/server.log"; exit 1; }
  sleep 0.2
done
# The scripted test plugin runs as package `test`, and the discovery test lists PostgreSQL
# through Ferry's `postgresql` plugin: both allowed here for every organisation, as an
# administrator would (only Ferry's `random` is allowed without an administrator's word).
curl -fsS -X PUT -H "authorization: Bearer $FERRY_E2E_TOKEN" -H 'content-type: application/json' \
  -d '{"share_links": true, "share_link_days": 30, "allowed_packages": ["test", "postgresql"]}' "$FERRY_URL/api/v1/orgs/%2A/settings" >/dev/null
status=0
# A test that hangs fails after its five minutes, and a file whose test left a handle open (a
# listening socket, a browser) exits once its tests are done, rather than holding the suite.
(cd end2end && node --test --test-concurrency=1 --test-timeout=300000 --test-force-exit --test-reporter=spec tests/) || status=$?
if [ $status -eq 0 ]; then
  # Not a timed test: the end-to-end benchmark (bench.sh) at 20,000 resources against this
  # debug server, failing only past loose bounds a real regression crosses (a page carrying
  # every row again, a graph sent whole, a commit redoing the stack many times over).
  log "scale smoke (end to end, loose bounds)"
  FERRY_SERVER_PID=$SERVER_PID node "$ROOT/end2end/bench/scale.mjs" --smoke || status=$?
fi
if [ $status -eq 0 ]; then
  # Readers of a stack while previews run into it: every request answered (no latency bound).
  log "viewers smoke (20 viewers during 2 previews; none may fail)"
  node "$ROOT/end2end/bench/viewers.mjs" --smoke || status=$?
fi
if [ $status -ne 0 ]; then
  log "server log"; tail -50 "$DATA/server.log"
  exit $status
fi

log "crash smoke (kill -9 in 10 commits per store)"
"$ROOT/scripts/crash.sh" --smoke

log "fuzz smoke (every target over its committed seeds)"
"$ROOT/scripts/fuzz.sh" --smoke

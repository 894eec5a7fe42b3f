#!/usr/bin/env bash
# bench.sh: prints the benchmark figures (docs/benchmarks.md). Builds first; starts its own server.
# The engine's import preview bench runs first; scale.mjs then runs the bench's engine side
# again beside each round of its API previews.
source "$(dirname "$0")/lib.sh"
ensure_tools --browser
"$ROOT/scripts/build.sh" --release

log "engine: import preview bench"
cargo bench -p pulumi-resource-random --bench import_preview
log "engine: Terraform migration preview bench"
cargo bench -p pulumi-resource-random --bench terraform_preview
# The same bench's executable, for scale.mjs: it runs the bench's `--engine` mode beside each of
# its rounds of API previews, so each ratio compares runs made side by side.
ENGINE_BENCH="$(cargo bench -p pulumi-resource-random --bench import_preview --no-run --message-format=json \
  | sed -n 's/.*"executable":"\([^"]*import_preview[^"]*\)".*/\1/p' | tail -n 1)"
[ -x "$ENGINE_BENCH" ] || { log "could not find the engine bench's executable"; exit 1; }
export ENGINE_BENCH

DATA="$(mktemp -d)"
PORT="$((20000 + RANDOM % 20000))"
export FERRY_URL="http://127.0.0.1:$PORT"
# An administrator's token for the benchmarks' setup (sign-in is never off), and the one-time
# link by which the browser's first session chooses that administrator's password, as the test
# command makes them (end2end/lib/browser.mjs signs in as `e2e-admin`).
export FERRY_E2E_TOKEN="$("$ROOT/target/server-release/ferry" token create --data-dir "$DATA" --user e2e-admin --role admin --days 1)"
export FERRY_E2E_ADMIN_LINK="$("$ROOT/target/server-release/ferry" sign-in-link --data-dir "$DATA" --user e2e-admin --public-url "$FERRY_URL")"
"$ROOT/target/server-release/ferry" serve --addr "127.0.0.1:$PORT" --data-dir "$DATA" --no-demo > "$DATA/server.log" 2>&1 &
SERVER_PID=$!
export FERRY_SERVER_PID=$SERVER_PID
trap 'kill $SERVER_PID 2>/dev/null || true; rm -rf "$DATA"' EXIT
for _ in $(seq 1 100); do curl -fsS "$FERRY_URL/healthz" >/dev/null 2>&1 && break; sleep 0.2; done
log "end to end: big stacks through the API and the browser"
node end2end/bench/scale.mjs
log "end to end: 200 viewers of a stack during 5 previews into it"
node end2end/bench/viewers.mjs
log "browser: graph and table"
node end2end/bench/graph.mjs "$@"
log "browser: a 10,000-resource plan"
node end2end/bench/plan.mjs
# The server's peak over the whole bench (scale.mjs prints its own part's): the figure held to
# 400 MB.
log "server peak memory over the whole bench: $(sed -n 's/^VmHWM:\s*//p' "/proc/$SERVER_PID/status")"

#!/usr/bin/env bash
# bench.sh: prints the benchmark figures (see README). Builds first; starts its own server.
# The engine's import preview bench runs first, so the API's figures are set beside the
# engine's of the same run.
source "$(dirname "$0")/lib.sh"
ensure_tools --browser
"$ROOT/scripts/build.sh" --release

log "engine: import preview bench"
ENGINE_LOG="$(mktemp)"
cargo bench -p pulumi-resource-random --bench import_preview | tee "$ENGINE_LOG"
# The 10,000-resource lines of its two parts: `preview <ms> ms` of the import preview, then the
# program preview's `<ms> ms`.
ENGINE_IMPORT_MS="$(awk '/^import preview:/ {p=1} /^program preview:/ {p=0} p && /^ *10000 resources:/ {print $4; exit}' "$ENGINE_LOG")"
ENGINE_PROGRAM_MS="$(awk '/^program preview:/ {p=1} p && /^ *10000 resources:/ {print $3; exit}' "$ENGINE_LOG")"
rm -f "$ENGINE_LOG"
[ -n "$ENGINE_IMPORT_MS" ] && [ -n "$ENGINE_PROGRAM_MS" ] || { log "could not read the engine bench's 10,000-resource figures"; exit 1; }
export ENGINE_IMPORT_MS ENGINE_PROGRAM_MS

DATA="$(mktemp -d)"
PORT="$((20000 + RANDOM % 20000))"
export FERRY_URL="http://127.0.0.1:$PORT"
# An administrator's token for the benchmarks' setup (sign-in is never off).
export FERRY_E2E_TOKEN="$("$ROOT/target/server-release/ferry" token create --data-dir "$DATA" --user bench-admin --role admin --days 1)"
"$ROOT/target/server-release/ferry" serve --addr "127.0.0.1:$PORT" --data-dir "$DATA" --no-demo > "$DATA/server.log" 2>&1 &
SERVER_PID=$!
export FERRY_SERVER_PID=$SERVER_PID
trap 'kill $SERVER_PID 2>/dev/null || true; rm -rf "$DATA"' EXIT
for _ in $(seq 1 100); do curl -fsS "$FERRY_URL/healthz" >/dev/null 2>&1 && break; sleep 0.2; done
log "end to end: big stacks through the API and the browser"
node end2end/bench/scale.mjs
log "browser: graph and table"
node end2end/bench/graph.mjs "$@"
log "browser: a 10,000-resource plan"
node end2end/bench/plan.mjs

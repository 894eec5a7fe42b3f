#!/usr/bin/env bash
# bench.sh: prints the benchmark figures (see README). Builds first; starts its own server.
source "$(dirname "$0")/lib.sh"
ensure_tools --browser
"$ROOT/scripts/build.sh" --release
DATA="$(mktemp -d)"
PORT="$((20000 + RANDOM % 20000))"
export FERRY_URL="http://127.0.0.1:$PORT"
# An administrator's token for the benchmarks' setup (sign-in is never off).
export FERRY_E2E_TOKEN="$("$ROOT/target/server-release/ferry" token create --data-dir "$DATA" --user bench-admin --role admin --days 1)"
"$ROOT/target/server-release/ferry" serve --addr "127.0.0.1:$PORT" --data-dir "$DATA" --no-demo > "$DATA/server.log" 2>&1 &
SERVER_PID=$!
trap 'kill $SERVER_PID 2>/dev/null || true; rm -rf "$DATA"' EXIT
for _ in $(seq 1 100); do curl -fsS "$FERRY_URL/healthz" >/dev/null 2>&1 && break; sleep 0.2; done
node end2end/bench/graph.mjs "$@"
node end2end/bench/plan.mjs

#!/usr/bin/env bash
# run.sh [ferry serve options]: installs what is missing, builds (release) and starts Ferry on
# its embedded defaults: SQLite in ./data, the demo stack, http://127.0.0.1:3000.
source "$(dirname "$0")/lib.sh"
ensure_tools
"$ROOT/scripts/build.sh" --release
log "starting Ferry (Ctrl-C stops it)"
exec "$ROOT/target/server-release/ferry" serve "$@"

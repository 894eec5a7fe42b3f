#!/usr/bin/env bash
# crash.sh [--smoke] [STORE...]: kill -9 at random moments of 10,000-import commits, 100 runs
# per store (sqlite, postgres, diy-folder, diy-s3), and check every time that the stack is at
# its old or its new version and that no lock Ferry took is left unreported (see
# scripts/crash.py). The full run takes most of an hour (docs/deployment.md gives its figures);
# `--smoke`, what the test command runs, is 10 kills per store of 1,000-import commits of the
# debug server build.sh made. CRASH_RUNS and CRASH_IMPORTS change the counts.
source "$(dirname "$0")/lib.sh"
ensure_tools
if [ "${1:-}" = "--smoke" ]; then
  shift
  export CRASH_RUNS="${CRASH_RUNS:-10}" CRASH_IMPORTS="${CRASH_IMPORTS:-1000}" FERRY_BIN="$ROOT/target/debug/ferry"
  [ -x "$FERRY_BIN" ] || { echo "crash.sh --smoke runs the debug server scripts/build.sh makes: $FERRY_BIN is missing" >&2; exit 1; }
else
  log "server (release)"
  build_release_server
fi
export PGHOST=127.0.0.1 PGUSER=postgres PGSSLMODE=disable
# moto's venv (made by ensure_tools) has its S3 server and boto3, which reads the bucket.
"$ROOT/target/s3-venv/bin/python" "$ROOT/scripts/crash.py" "$@"

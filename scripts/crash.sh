#!/usr/bin/env bash
# crash.sh [STORE...]: kill -9 at random moments of 10,000-import commits, 100 runs per store
# (sqlite, postgres, diy-folder, diy-s3), and check every time that the stack is at its old or
# its new version and that no lock Ferry took is left unreported (see scripts/crash.py). Not
# part of the test command: it takes most of an hour. CRASH_RUNS and CRASH_IMPORTS change the
# counts; the README gives the figures.
source "$(dirname "$0")/lib.sh"
ensure_tools
log "server (release)"
build_release_server
export PGHOST=127.0.0.1 PGUSER=postgres PGSSLMODE=disable
# moto's venv (made by ensure_tools) has its S3 server and boto3, which reads the bucket.
"$ROOT/target/s3-venv/bin/python" "$ROOT/scripts/crash.py" "$@"

#!/usr/bin/env bash
# Records the OpenAPI document's examples (server/src/openapi_examples.json): runs the API tests
# with FERRY_RECORD_API_EXAMPLES set, which keeps one real answer per endpoint (see
# server/tests/api/common/openapi.rs), then gathers them into the file the document embeds.
# Run it after an answer's shape changes; `the_examples_are_real_answers_the_document_describes`
# fails until it is.
set -euo pipefail
cd "$(dirname "$0")/.."
command -v jq >/dev/null || { echo "api-examples.sh needs jq (apt-get install jq)" >&2; exit 1; }
folder="$PWD/target/api-examples"
rm -rf "$folder" && mkdir -p "$folder"
# The tests that reach PostgreSQL do so as the test command has them (libpq's variables).
export PGHOST=127.0.0.1 PGUSER=postgres PGSSLMODE=disable
# Built as the test command builds (the same wrapper and the whole workspace's features), so the
# test command's build is reused.
CLIPPY_DRIVER="$(command -v clippy-driver)" || { echo "clippy-driver is missing (Debian's rust-web-clippy)" >&2; exit 1; }
FERRY_RECORD_API_EXAMPLES="$folder" RUSTC_WORKSPACE_WRAPPER="$CLIPPY_DRIVER" \
    CLIPPY_ARGS="-D__CLIPPY_HACKERY__warnings__CLIPPY_HACKERY__" cargo test --workspace --test api
jq -S -n 'reduce inputs as $e ({}; .[$e.endpoint] = {status: $e.status, answer: $e.answer})' \
    "$folder"/*.json > server/src/openapi_examples.json
echo "recorded $(jq length server/src/openapi_examples.json) endpoints' examples"

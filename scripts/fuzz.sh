#!/usr/bin/env bash
# fuzz.sh [--smoke | --runs N | --seconds S] [target...]: runs Ferry's coverage-guided fuzz
# targets (crates/ferry-fuzz, cargo-fuzz and libFuzzer on Debian's toolchain) over their
# corpora. A corpus (crates/ferry-fuzz/corpus/<target>, not kept in the repository) starts from
# the target's committed seeds (crates/ferry-fuzz/seeds/<target>: a few hundred inputs, the
# smallest set that reaches every edge the corpus of an earlier campaign reached) and the shared
# fixtures, and grows here.
#
#   --smoke      what CI runs: a short, fixed number of executions per target over the corpus
#   --runs N     N executions per target (docs/contributing.md: 10,000,000)
#   --seconds S  S seconds per target (for the slow targets: state files, provider answers)
#
# A crash, a timeout (1 s) or a memory blow-up (2 GB) fails the run, and libFuzzer leaves the
# input beside the corpus (crates/ferry-fuzz/artifacts/<target>/): it becomes a regression
# test before it is fixed. New inputs that add coverage stay in the corpus; `--merge-seeds`
# after a campaign makes the seeds again: libFuzzer's set-cover merge of the corpus by edges
# (hit counts ignored), a few hundred inputs that reach every edge the corpus reaches.
source "$(dirname "$0")/lib.sh"
ensure_fuzz_tools

FUZZ=crates/ferry-fuzz
TARGETS=(state_file import_spec yaml_program property_values backend_files provider_answers terraform_state terraform_configuration generated_code)
LIMIT=(-runs=200)
case "${1:-}" in
  --smoke) shift; LIMIT=(-runs=2000) ;;
  --runs) LIMIT=(-runs="$2"); shift 2 ;;
  --seconds) LIMIT=(-max_total_time="$2"); shift 2 ;;
  --merge-seeds) MERGE=1; shift ;;
esac
[ $# -gt 0 ] && TARGETS=("$@")

# An empty corpus starts from the target's committed seeds and the shared fixtures: what a
# target starts from.
FIXTURES="${FERRY_FIXTURES:-$ROOT/../shared/fixtures}"
seed() {
  local target="$1"; shift
  local dir="$FUZZ/corpus/$target"
  mkdir -p "$dir"
  [ -n "$(ls -A "$dir")" ] && return 0
  [ -d "$FUZZ/seeds/$target" ] && cp "$FUZZ/seeds/$target"/* "$dir"/ 2>/dev/null
  local f
  for f in "$@"; do
    [ -f "$f" ] && cp "$f" "$dir/seed-$(echo "${f#"$ROOT"/}" | tr '/' '_')"
  done
  return 0
}
# State files under the size limit below (the big exports are the same shapes, larger), and a
# gzipped checkpoint as a backend keeps it.
mapfile -t STATES < <(find "$FIXTURES/pulumi/state" -name '*.json' -size -64k)
seed state_file "${STATES[@]}"
if [ ! -e "$FUZZ/corpus/state_file/seed-gzipped-checkpoint" ]; then
  gzip -c "$FIXTURES/pulumi/state/real-diy-checkpoint/test-upsert.checkpoint.json" > "$FUZZ/corpus/state_file/seed-gzipped-checkpoint"
fi
seed import_spec "$FIXTURES"/pulumi/importfile/examples/*.json*
seed yaml_program "$ROOT"/crates/ferry-engine/tests/lifecycle/*/Pulumi.yaml
seed property_values "$FIXTURES/pulumi/state/secrets-test-vectors.json" "$FIXTURES/pulumi/state/json-schema/property-values.json"
seed backend_files "$FIXTURES/pulumi/state/real-diy-checkpoint/dev-empty.checkpoint.json"
seed provider_answers
seed terraform_state "$FIXTURES"/terraform/*
seed terraform_configuration "$FIXTURES"/terraform/*/*.tf
seed generated_code
for target in "${TARGETS[@]}"; do mkdir -p "$FUZZ/corpus/$target"; done

status=0
if [ "${MERGE:-0}" = 1 ]; then
  for target in "${TARGETS[@]}"; do
    log "$target's seeds: the smallest set of its corpus that reaches every edge it reaches"
    merged="$(mktemp -d)"
    cargo fuzz run --fuzz-dir "$FUZZ" --sanitizer none "$target" "$merged" "$FUZZ/corpus/$target" -- \
      -set_cover_merge=1 -use_counters=0 -timeout=1 -rss_limit_mb=2048 -max_len=65536 2>/dev/null || status=1
    rm -rf "${FUZZ:?}/seeds/$target"
    mkdir -p "$FUZZ/seeds/$target"
    cp "$merged"/* "$FUZZ/seeds/$target/"
    rm -rf "$merged"
  done
  exit $status
fi
for target in "${TARGETS[@]}"; do
  log "fuzzing $target (${LIMIT[*]})"
  mkdir -p "$FUZZ/artifacts/$target"
  # No sanitizer: the code is safe Rust, and the instrumentation for coverage is what guides;
  # ASan would only slow each execution. Release with debug assertions, as cargo-fuzz builds.
  if ! cargo fuzz run --fuzz-dir "$FUZZ" --sanitizer none "$target" "$FUZZ/corpus/$target" -- \
      "${LIMIT[@]}" -timeout=1 -rss_limit_mb=2048 -max_len=65536 -print_final_stats=1 \
      -artifact_prefix="$FUZZ/artifacts/$target/" 2> >(tee "$FUZZ/artifacts/$target/last-run.log" >&2); then
    status=1
  fi
done
exit $status

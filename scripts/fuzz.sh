#!/usr/bin/env bash
# fuzz.sh [--smoke | --runs N | --seconds S] [target...]: runs Ferry's coverage-guided fuzz
# targets (crates/ferry-fuzz, cargo-fuzz and libFuzzer on Debian's toolchain) over their
# committed corpora, seeded from the shared fixtures.
#
#   --smoke      what CI runs: a short, fixed number of executions per target over the corpus
#   --runs N     N executions per target (docs/contributing.md: 10,000,000)
#   --seconds S  S seconds per target (for the slow targets: state files, provider answers)
#
# A crash, a timeout (1 s) or a memory blow-up (2 GB) fails the run, and libFuzzer leaves the
# input beside the corpus (crates/ferry-fuzz/artifacts/<target>/): it becomes a regression
# test before it is fixed. New inputs that add coverage stay in the corpus.
source "$(dirname "$0")/lib.sh"
ensure_fuzz_tools

FUZZ=crates/ferry-fuzz
TARGETS=(state_file import_spec yaml_program property_values backend_files provider_answers terraform_state generated_code)
LIMIT=(-runs=200)
case "${1:-}" in
  --smoke) shift; LIMIT=(-runs=2000) ;;
  --runs) LIMIT=(-runs="$2"); shift 2 ;;
  --seconds) LIMIT=(-max_total_time="$2"); shift 2 ;;
esac
[ $# -gt 0 ] && TARGETS=("$@")

# Seeds from the shared fixtures, once, into an empty corpus (the committed corpora already
# hold them, minimised): what a target starts from.
FIXTURES="${FERRY_FIXTURES:-$ROOT/../shared/fixtures}"
seed() {
  local target="$1"; shift
  local dir="$FUZZ/corpus/$target"
  mkdir -p "$dir"
  [ -n "$(ls -A "$dir")" ] && return 0
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
seed generated_code "$ROOT"/crates/ferry-fuzz/seeds/generated_code/*
for target in "${TARGETS[@]}"; do mkdir -p "$FUZZ/corpus/$target"; done

status=0
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

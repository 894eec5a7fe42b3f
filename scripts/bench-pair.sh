#!/usr/bin/env bash
# bench-pair.sh OTHER_TREE [ROUNDS] [--callgrind]: this tree's release server against another
# checkout's (a worktree of an older commit, say), in rounds of one run each, so that the
# machine's drift falls on both: each round starts a fresh server with its own data and runs
# end2end/bench/commit.mjs (the upload of 100,000 resources, a preview of 10,000 imports, their
# commit). Both trees must be built (`scripts/build.sh --release`; the other tree needs only its
# server and plugins: `build_release_server` in its scripts/lib.sh), each in its own target
# folder. With --callgrind each server runs under valgrind and the upload's, the preview's and
# the commit's instructions are counted (repeatable where times are not; the rest of the round
# is then slow, not measured); the profiles are kept under target/bench-profiles/ for
# callgrind_annotate (<round>.<pid>.1 the upload, .2 the preview, .3 the commit).
source "$(dirname "$0")/lib.sh"
OTHER="$(cd "${1:?the other tree}" && pwd)"
ROUNDS="${2:-5}"
CALLGRIND=0
[ "${3:-}" = "--callgrind" ] && CALLGRIND=1
for tree in "$ROOT" "$OTHER"; do
  [ -x "$tree/target/server-release/ferry" ] || { log "$tree/target/server-release/ferry is missing: build that tree first"; exit 1; }
done
[ $CALLGRIND -eq 0 ] || command -v valgrind >/dev/null || { log "--callgrind needs valgrind"; exit 1; }
if [ $CALLGRIND -eq 1 ]; then
  OUT="$ROOT/target/bench-profiles/$(date -u +%Y%m%dT%H%M%S)"
  mkdir -p "$OUT"
else
  OUT="$(mktemp -d)"
fi

# round TREE LABEL: one fresh server of TREE, one run of commit.mjs against it.
round() {
  local tree="$1" label="$2" data port pid wrap=()
  data="$(mktemp -d)"
  port="$((20000 + RANDOM % 20000))"
  if [ $CALLGRIND -eq 1 ]; then
    wrap=(valgrind --tool=callgrind --instr-atstart=no "--callgrind-out-file=$OUT/$label.%p")
  fi
  local token
  token="$("$tree/target/server-release/ferry" token create --data-dir "$data" --user bench-admin --role admin --days 1 2>/dev/null)"
  "${wrap[@]}" "$tree/target/server-release/ferry" serve --addr "127.0.0.1:$port" --data-dir "$data" --no-demo >"$data/server.log" 2>&1 &
  pid=$!
  for _ in $(seq 1 600); do curl -fsS "http://127.0.0.1:$port/healthz" >/dev/null 2>&1 && break; sleep 0.2; done
  local figures callgrind_flag=""
  [ $CALLGRIND -eq 1 ] && callgrind_flag=1
  figures="$(FERRY_URL="http://127.0.0.1:$port" FERRY_E2E_TOKEN="$token" FERRY_SERVER_PID=$pid PAIR_CALLGRIND="$callgrind_flag" node end2end/bench/commit.mjs)" || { kill $pid; cat "$data/server.log" >&2; exit 1; }
  if [ $CALLGRIND -eq 1 ]; then
    local upload preview commit
    upload="$(sed -n 's/^totals: //p' "$OUT/$label.$pid.1")"
    preview="$(sed -n 's/^totals: //p' "$OUT/$label.$pid.2")"
    commit="$(sed -n 's/^totals: //p' "$OUT/$label.$pid.3")"
    figures="${figures%\}},\"uploadInstructions\":$upload,\"previewInstructions\":$preview,\"commitInstructions\":$commit}"
  fi
  kill $pid; wait $pid 2>/dev/null || true
  rm -rf "$data"
  echo "$label $(date -u +%H:%M:%S) $figures"
}

# Which tree goes first alternates (this, other; other, this; …): a server started right after
# another ran faster or slower would otherwise favour one tree in every round.
for i in $(seq 1 "$ROUNDS"); do
  if [ $((i % 2)) -eq 1 ]; then
    round "$ROOT" "this-$i"
    round "$OTHER" "other-$i"
  else
    round "$OTHER" "other-$i"
    round "$ROOT" "this-$i"
  fi
done
if [ $CALLGRIND -eq 1 ]; then log "callgrind's profiles: $OUT"; else rm -rf "$OUT"; fi

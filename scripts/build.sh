#!/usr/bin/env bash
# build.sh [--release | --front]: the wasm front end, the graph bundle, the stylesheet and the
# server, into target/site/ and target/{debug,server-release}/ferry. (What cargo-leptos does,
# without its 20-minute install.) `--front`: the debug front end and assets only (the test
# command runs the server its tests built).
source "$(dirname "$0")/lib.sh"

SERVER_TOO=1
if [ "${1:-}" = "--release" ]; then
  MODE=release; FRONT=(--release); SERVER=(--profile server-release)
else
  MODE=debug; FRONT=(); SERVER=()
  [ "${1:-}" = "--front" ] && SERVER_TOO=0
fi
SITE=target/site
PKG=$SITE/pkg
mkdir -p "$PKG"

log "front end (wasm, $MODE)"
cargo build --package=app --lib --target-dir=target/front --target=wasm32-unknown-unknown \
  --no-default-features --features=hydrate -Zbuild-std=std,panic_abort "${FRONT[@]}"
wasm-bindgen --target web --no-typescript --out-dir "$PKG" --out-name site \
  "target/front/wasm32-unknown-unknown/$MODE/app.wasm"
# Leptos asks for <output-name>.wasm
mv "$PKG/site_bg.wasm" "$PKG/site.wasm"
if [ $MODE = release ]; then
  wasm-opt -Oz --enable-bulk-memory --enable-nontrapping-float-to-int "$PKG/site.wasm" -o "$PKG/site.wasm"
fi

log "Monaco's language workers"
# Served as files beside the wasm rather than embedded in it (the shell's MonacoEnvironment
# points at them): the JSON worker validates specs, the editor worker diffs.
MONACO_DIR="$(cargo metadata --format-version 1 --locked --features app/hydrate | node -e '
  let s = ""; process.stdin.on("data", (d) => (s += d)).on("end", () => {
    const p = JSON.parse(s).packages.find((p) => p.name === "monaco");
    console.log(require("path").dirname(p.manifest_path));
  });')"
mkdir -p "$PKG/monaco"
cp "$MONACO_DIR/js/$MODE/editor.worker.js" "$MONACO_DIR/js/$MODE/json.worker.js" "$PKG/monaco/"

log "graph renderer and assets"
(cd app/js && OUT="$ROOT/$PKG/graph.js" npm run --silent build)
cp -r public/. "$SITE/"
# Pre-compressed copies: the server sends them to browsers that accept gzip.
for f in "$PKG"/site.wasm "$PKG"/site.js "$PKG"/graph.js "$PKG"/monaco/*.js "$PKG"/snippets/*/js/*/editor.js; do gzip -kf -6 "$f"; done

[ $SERVER_TOO -eq 1 ] || exit 0
log "server ($MODE)"
# Ferry's own provider plugins go next to `ferry`, where it looks for plugins first.
if [ $MODE = release ]; then
  build_release_server
else
  mapfile -t PLUGIN_ARGS < <(plugin_packages)
  cargo build --package=ferry-cli --bin=ferry "${PLUGIN_ARGS[@]}"
fi

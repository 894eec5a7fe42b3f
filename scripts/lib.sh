# Shared by Ferry's scripts: the toolchain environment and `ensure_tools`, which installs only
# what is missing (so it is quick when everything is there). See shared TOOLCHAIN.md for why
# each piece is what it is.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
WASM_BINDGEN_VERSION=0.2.130   # must equal the wasm-bindgen crate pinned in Cargo.toml
# Debian's rustc-web/cargo-web first (the wasm target is built from its sources), then npm tools.
export PATH="$ROOT/end2end/node_modules/.bin:/usr/bin:$HOME/.cargo/bin:$PATH"
export CARGO_TERM_COLOR="${CARGO_TERM_COLOR:-never}"

# Each step says how long the script has run (bash's SECONDS), so a slow run shows where its
# time went.
log() { printf '\033[1m==> [%d:%02d] %s\033[0m\n' $((SECONDS / 60)) $((SECONDS % 60)) "$*" >&2; }

as_root() {
  if [ "$(id -u)" -eq 0 ]; then "$@"; else sudo "$@"; fi
}

# ensure_tools [--browser]
ensure_tools() {
  local want_browser=0
  [ "${1:-}" = "--browser" ] && want_browser=1
  # lld-22 provides /usr/bin/rust-lld (the wasm linker); rust-web-llvm only links to it
  # golang-go: gofmt checks the Go that code generation writes
  # rustfmt-web, rust-web-clippy: the style checks, from the same toolchain as the builds
  # postgresql-client: psql makes the test command's own database on the machine's server
  local packages=(rustc-web cargo-web rust-web-src rust-web-llvm lld-22 rustfmt-web rust-web-clippy curl gcc golang-go postgresql-client)
  [ $want_browser -eq 1 ] && packages+=(chromium)
  local missing=()
  for p in "${packages[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
  done
  if [ ${#missing[@]} -gt 0 ]; then
    log "installing Debian packages: ${missing[*]}"
    as_root apt-get update -q
    DEBIAN_FRONTEND=noninteractive as_root apt-get install -y -q "${missing[@]}"
  fi
  # The interoperability test makes a Python venv with PyPI's `pulumi` stubs.
  if ! python3 -m venv --help >/dev/null 2>&1; then
    log "installing Python's venv"
    as_root apt-get update -q
    DEBIAN_FRONTEND=noninteractive as_root apt-get install -y -q python3-venv python3-pip
  fi
  if ! command -v node >/dev/null || ! command -v npm >/dev/null; then
    log "installing Node.js and npm"
    as_root apt-get update -q
    DEBIAN_FRONTEND=noninteractive as_root apt-get install -y -q nodejs npm
  fi
  if [ "$(wasm-bindgen --version 2>/dev/null || true)" != "wasm-bindgen $WASM_BINDGEN_VERSION" ]; then
    log "installing wasm-bindgen-cli $WASM_BINDGEN_VERSION (a few minutes, once)"
    # not --locked: its lockfile pins a webpki-roots release the registry no longer serves
    cargo install wasm-bindgen-cli --version "$WASM_BINDGEN_VERSION"
  fi
  npm_ci end2end
  npm_ci app/js
  # The real Pulumi SDKs generated code is type-checked against (tsc, pyright; PyPI in a venv).
  npm_ci crates/ferry-codegen/sdk-check
  ensure_venv target/codegen-venv crates/ferry-codegen/sdk-check/requirements.txt "the Pulumi Python SDKs"
  # A real S3-compatible server for the DIY backend tests (moto's, from PyPI).
  ensure_venv target/s3-venv crates/ferry-backend/s3-server/requirements.txt "moto's S3 server"
}

# ensure_venv DIR REQUIREMENTS WHAT: a Python venv in DIR with REQUIREMENTS installed, made again
# when the requirements change.
ensure_venv() {
  local venv="$1" req="$2" what="$3"
  if [ ! -x "$venv/bin/python" ] || [ "$req" -nt "$venv/.installed" ]; then
    log "installing $what into $venv"
    rm -rf "$venv"
    python3 -m venv "$venv"
    "$venv/bin/pip" install -q --disable-pip-version-check -r "$req"
    touch "$venv/.installed"
  fi
}

# npm_ci DIR: install DIR's locked npm packages unless they are already there.
npm_ci() {
  local dir="$1"
  if [ ! -d "$dir/node_modules" ] || [ "$dir/package-lock.json" -nt "$dir/node_modules/.package-lock.json" ]; then
    log "installing npm packages in $dir"
    (cd "$dir" && npm ci --no-audit --no-fund --loglevel=error)
  fi
}

# ensure_fuzz_tools: cargo-fuzz, built with Debian's toolchain (its libFuzzer is compiled by the
# libfuzzer-sys crate with the machine's C++ compiler).
CARGO_FUZZ_VERSION=0.13.2
ensure_fuzz_tools() {
  ensure_tools
  if [ "$(cargo fuzz --version 2>/dev/null || true)" != "cargo-fuzz $CARGO_FUZZ_VERSION" ]; then
    log "installing cargo-fuzz $CARGO_FUZZ_VERSION (a few minutes, once)"
    cargo install cargo-fuzz --version "$CARGO_FUZZ_VERSION" --locked
  fi
  dpkg-query -W -f='${Status}' g++ 2>/dev/null | grep -q "install ok installed" || {
    as_root apt-get update -q
    DEBIAN_FRONTEND=noninteractive as_root apt-get install -y -q g++
  }
}

# Ferry's own provider plugins, built beside `ferry` (where it looks for plugins first) by
# build.sh in both modes. One list: a plugin crate missing here would be missing from the image.
FERRY_PLUGINS=(pulumi-resource-random pulumi-resource-postgresql)

# plugin_packages: cargo's arguments that build every plugin in FERRY_PLUGINS.
plugin_packages() {
  local plugin
  for plugin in "${FERRY_PLUGINS[@]}"; do printf -- '--package=%s\n--bin=%s\n' "$plugin" "$plugin"; done
}

# build_release_server: target/server-release/ferry, and beside it Ferry's own provider plugins
# built with the plugin-release profile (panics abort; see Cargo.toml). They are copied in,
# not linked: cargo hard-links its outputs, and writing through a link would change its copy.
build_release_server() {
  cargo build --package=ferry-cli --bin=ferry --profile server-release
  local plugin args
  mapfile -t args < <(plugin_packages)
  cargo build "${args[@]}" --profile plugin-release
  for plugin in "${FERRY_PLUGINS[@]}"; do
    cp --remove-destination "$ROOT/target/plugin-release/$plugin" "$ROOT/target/server-release/$plugin"
  done
}

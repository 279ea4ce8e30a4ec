#!/usr/bin/env bash
# Installs whatever the build and the tests need and is not there yet. Each step is skipped when
# its tool is already present, so a warm run takes a second or two.
#   scripts/setup.sh          everything (build, browsers, drivers, npm tools)
#   scripts/setup.sh build    only what building and serving the page needs
set -euo pipefail
cd "$(dirname "$0")/.."

what=${1:-all}
WASM_PACK_VERSION=0.15.1
GECKODRIVER_VERSION=0.37.1
export PATH="$HOME/.cargo/bin:$PATH"

say() { printf 'setup: %s\n' "$*" >&2; }
sudo_if_needed() { if [[ $(id -u) == 0 ]]; then "$@"; else sudo "$@"; fi; }

# The wasm-bindgen version pinned in Cargo.lock; the CLI must match it exactly.
lock_wasm_bindgen_version() {
  awk '/^name = "wasm-bindgen"$/ { getline; gsub(/version = |"/, ""); print; exit }' Cargo.lock
}

if ! rustup target list --installed | grep -qx wasm32-unknown-unknown; then
  say "adding the wasm32-unknown-unknown target"
  rustup target add wasm32-unknown-unknown
fi
for component in rustfmt clippy; do
  if ! rustup component list --installed | grep -q "^$component"; then
    say "adding $component"
    rustup component add "$component"
  fi
done

if [[ $(wasm-pack --version 2>/dev/null) != "wasm-pack $WASM_PACK_VERSION" ]]; then
  say "installing wasm-pack $WASM_PACK_VERSION (a few minutes)"
  cargo install --locked wasm-pack --version "$WASM_PACK_VERSION"
fi

bindgen_version=$(lock_wasm_bindgen_version)
if [[ $(wasm-bindgen --version 2>/dev/null) != "wasm-bindgen $bindgen_version" ]]; then
  say "installing wasm-bindgen-cli $bindgen_version (a few minutes)"
  # --locked fails here: one of the CLI's locked dependencies is missing from the registry.
  cargo install --force wasm-bindgen-cli --version "$bindgen_version"
fi

# npm tools: binaryen 132 provides wasm-opt (Debian's wasm-opt 108 breaks release builds and must
# never be installed), playwright-core drives the system Chromium, esbuild minifies the package's
# scripts and bundles the package the way a course site would.
# Installed again whenever package-lock.json changed since the last install (its digest is kept
# beside the modules).
lock_digest=$(sha256sum package-lock.json | cut -d' ' -f1)
if [[ ! -x node_modules/.bin/wasm-opt || ! -d node_modules/playwright-core || ! -x node_modules/.bin/esbuild || ! -d node_modules/axe-core || ! -d node_modules/ws
      || "$(cat node_modules/.lock-digest 2>/dev/null)" != "$lock_digest" ]]; then
  say "installing npm tools (binaryen, playwright-core, esbuild, axe-core, ws, and the bundlers, frameworks and types the package's toolchain tests build with)"
  npm ci --no-audit --no-fund --loglevel=error
  echo "$lock_digest" > node_modules/.lock-digest
fi

[[ $what == build ]] && exit 0

apt_missing=()
command -v chromium >/dev/null || apt_missing+=(chromium)
command -v chromedriver >/dev/null || apt_missing+=(chromium-driver)
command -v firefox >/dev/null || command -v firefox-esr >/dev/null || apt_missing+=(firefox-esr)
if ((${#apt_missing[@]})); then
  say "installing ${apt_missing[*]} with apt-get"
  sudo_if_needed apt-get update -qq
  DEBIAN_FRONTEND=noninteractive sudo_if_needed apt-get install -y -qq "${apt_missing[@]}" >/dev/null
fi

if [[ $(geckodriver --version 2>/dev/null | head -n1) != "geckodriver $GECKODRIVER_VERSION"* ]]; then
  say "installing geckodriver $GECKODRIVER_VERSION (a few minutes)"
  cargo install --locked geckodriver --version "$GECKODRIVER_VERSION"
fi
say "all tools present"

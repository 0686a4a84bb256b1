#!/usr/bin/env bash
# What ships to the browser (wasm + js + css), gzipped at the level the server compresses with
# (tower-http's default, 6), against the budget of 150 KB. `make build` runs it after the frontend.
set -euo pipefail
cd "$(dirname "$0")/.."
BUDGET=${BUNDLE_BUDGET_BYTES:-150000}
total=0
for f in target/site/pkg/agora-hai.wasm target/site/pkg/agora-hai.js target/site/pkg/agora-hai.css; do
  raw=$(stat -c %s "$f")
  gz=$(gzip -6 -c "$f" | wc -c)
  total=$((total + gz))
  printf '%-34s %8d bytes  %7d gzip\n' "$f" "$raw" "$gz"
done
printf '%-34s %8s        %7d gzip (budget %d)\n' "browser bundle" "" "$total" "$BUDGET"
if [ "$total" -gt "$BUDGET" ]; then
  echo "bundle-size: over budget by $((total - BUDGET)) bytes" >&2
  exit 1
fi

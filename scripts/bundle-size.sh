#!/usr/bin/env bash
# What ships to the browser (wasm + js + css), gzipped, against the budget of 150 KB. The server
# sends the zopfli `.gz` that scripts/precompress.mjs writes beside each file, so that is measured
# when it is there and not older than its file (the server skips a stale one too); otherwise the
# file gzipped at the level the server's CompressionLayer uses (tower-http's default, 6).
# `make build` runs it after the frontend and precompress.mjs.
set -euo pipefail
cd "$(dirname "$0")/.."
BUDGET=${BUNDLE_BUDGET_BYTES:-150000}
total=0
for f in target/site/pkg/agora-hai.wasm target/site/pkg/agora-hai.js target/site/pkg/agora-hai.css; do
  raw=$(stat -c %s "$f")
  if [ -f "$f.gz" ] && ! [ "$f" -nt "$f.gz" ]; then
    gz=$(stat -c %s "$f.gz")
  else
    gz=$(gzip -6 -c "$f" | wc -c)
  fi
  total=$((total + gz))
  printf '%-34s %8d bytes  %7d gzip\n' "$f" "$raw" "$gz"
done
printf '%-34s %8s        %7d gzip (budget %d)\n' "browser bundle" "" "$total" "$BUDGET"
if [ "$total" -gt "$BUDGET" ]; then
  echo "bundle-size: over budget by $((total - BUDGET)) bytes" >&2
  exit 1
fi

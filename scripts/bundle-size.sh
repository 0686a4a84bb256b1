#!/usr/bin/env bash
# What ships to the browser (wasm + js + css) before the page is interactive, compressed. The
# server sends the Brotli `.br` to browsers that accept it (all current ones) and the zopfli `.gz`
# to the others (scripts/precompress.mjs writes both, the server skips a stale one); both are
# printed. Without a precompressed file, the file gzipped at the level the server's
# CompressionLayer uses (tower-http's default, 6) stands in. `make build` runs it after
# precompress.mjs.
#
# The budget (150 KB for the first load, 181 KB for everything: the original HAI's) is reported,
# not enforced: the UI is idiomatic Leptos and today needs more (README, "The browser bundle").
# What fails the build is a regression past CEILING, the measured size plus a little room, so a
# change that adds much is seen and argued for.
set -euo pipefail
cd "$(dirname "$0")/.."
BUDGET=150000
CEILING=${BUNDLE_CEILING_BYTES:-309500}
gz_total=0
br_total=0
fresh() { [ -f "$2" ] && ! [ "$1" -nt "$2" ]; }
for f in target/site/pkg/agora-hai.wasm target/site/pkg/agora-hai.js target/site/pkg/agora-hai.css; do
  raw=$(stat -c %s "$f")
  if fresh "$f" "$f.gz"; then gz=$(stat -c %s "$f.gz"); else gz=$(gzip -6 -c "$f" | wc -c); fi
  if fresh "$f" "$f.br"; then br=$(stat -c %s "$f.br"); else br=$gz; fi
  gz_total=$((gz_total + gz))
  br_total=$((br_total + br))
  printf '%-34s %8d bytes  %7d gzip  %7d brotli\n' "$f" "$raw" "$gz" "$br"
done
printf '%-34s %8s        %7d gzip  %7d brotli\n' "browser bundle" "" "$gz_total" "$br_total"
if [ "$br_total" -gt "$BUDGET" ]; then
  echo "bundle-size: $((br_total - BUDGET)) bytes over the 150 KB budget (Brotli)"
fi
if [ "$br_total" -gt "$CEILING" ]; then
  echo "bundle-size: past the regression ceiling of $CEILING bytes (Brotli) by $((br_total - CEILING))" >&2
  exit 1
fi

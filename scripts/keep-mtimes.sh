#!/usr/bin/env bash
# cargo-leptos writes every file of target/site again on each frontend build, even when nothing
# changed, and drops files it did not make (our .gz). The release server embeds the site, so new
# timestamps alone would rebuild it (about a minute) and redo the zopfli files. A copy of the
# last site in target/site-previous keeps the old timestamps and .gz files:
#   keep-mtimes.sh restore   after the frontend build: unchanged files get their old timestamp
#                            and their .gz back
#   keep-mtimes.sh save      after precompressing: keep the new .gz files
set -euo pipefail
cd "$(dirname "$0")/.."
site=target/site
previous=target/site-previous
case "${1:-}" in
restore)
  find "$site" -type f ! -name '*.gz' -printf '%P\n' | while read -r file; do
    if [ -f "$previous/$file" ] && cmp -s "$site/$file" "$previous/$file"; then
      touch -r "$previous/$file" "$site/$file"
      if [ -f "$previous/$file.gz" ] && [ ! -f "$site/$file.gz" ]; then
        cp -p "$previous/$file.gz" "$site/$file.gz"
      fi
    else
      mkdir -p "$(dirname "$previous/$file")"
      cp -p "$site/$file" "$previous/$file"
      rm -f "$previous/$file.gz"
    fi
  done
  ;;
save)
  find "$site" -type f -name '*.gz' -printf '%P\n' | while read -r file; do
    mkdir -p "$(dirname "$previous/$file")"
    cp -p "$site/$file" "$previous/$file"
  done
  ;;
*)
  echo "usage: $0 restore|save" >&2
  exit 2
  ;;
esac

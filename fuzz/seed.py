#!/usr/bin/env python3
"""Writes the seed corpus of the `client_message` target from the contract's examples.

    python3 fuzz/seed.py [EXAMPLES_DIR] [CORPUS_DIR]

Defaults: ../shared/agora-contract/examples (beside the repository) and
fuzz/corpus/client_message. Every `event` in an example becomes one seed (compact JSON, one
line: one /ws frame); every example's event list also becomes one seed of one event per line,
so the verifier sees whole streams. The files are named by content hash; the corpus directory
is gitignored, as the examples belong to shared/ and are not copied into the repository.
"""

import hashlib
import json
import pathlib
import sys

FUZZ = pathlib.Path(__file__).resolve().parent
examples = pathlib.Path(sys.argv[1]) if len(sys.argv) > 1 else FUZZ.parent.parent / "shared/agora-contract/examples"
corpus = pathlib.Path(sys.argv[2]) if len(sys.argv) > 2 else FUZZ / "corpus/client_message"


def streams(node):
    """Every list of {"event": ...} entries anywhere in an example."""
    if isinstance(node, dict):
        for value in node.values():
            yield from streams(value)
    elif isinstance(node, list):
        events = [e["event"] for e in node if isinstance(e, dict) and "event" in e]
        if events:
            yield events
        for value in node:
            yield from streams(value)


def write(text):
    data = text.encode()
    (corpus / hashlib.sha1(data).hexdigest()).write_bytes(data)


files = sorted(examples.glob("*.json"))
if not files:
    # Fuzzing still works from an empty corpus, only slower to reach the deep paths.
    print(f"seed.py: warning: no examples in {examples}; no seeds written")
    sys.exit(0)
corpus.mkdir(parents=True, exist_ok=True)
seeds = set()
for path in files:
    for events in streams(json.loads(path.read_text())):
        lines = [json.dumps(e, ensure_ascii=False, separators=(",", ":")) for e in events]
        seeds.update(lines)
        seeds.add("\n".join(lines))
for seed in seeds:
    write(seed)
print(f"seed.py: {len(seeds)} seeds from {len(files)} examples in {corpus}")

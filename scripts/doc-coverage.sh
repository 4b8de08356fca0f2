#!/usr/bin/env bash
# Doc-comment coverage of a library target's public API, from its symbol graph.
#
#   scripts/doc-coverage.sh GraphCore [--list]
#
# Counts the public and open declarations of the target's own sources and how many carry a
# `///` comment of their own (right above the declaration), and how many DocC shows with
# one (their own, or the one inherited from the protocol requirement or overridden method
# they implement). --list names every declaration without a comment of its own.
set -euo pipefail
cd "$(dirname "$0")/.."
target="${1:?usage: scripts/doc-coverage.sh TARGET [--list]}"
list="${2:-}"
if ! output=$(swift package dump-symbol-graph --minimum-access-level public 2>&1); then
    echo "$output" >&2
    exit 1
fi
graphs=(.build/*/symbolgraph/"$target".symbols.json .build/*/symbolgraph/"$target"@*.symbols.json)
python3 - "$target" "$list" "${graphs[@]}" <<'PYTHON'
import json, sys
target, listing, files = sys.argv[1], sys.argv[2] == "--list", sys.argv[3:]
marker = f"/Sources/{target}/"
total = own = shown = 0
missing, seen = [], set()
for name in files:
    try:
        symbols = json.load(open(name))["symbols"]
    except FileNotFoundError:
        continue
    for symbol in symbols:
        if symbol["accessLevel"] not in ("public", "open") or "location" not in symbol:
            continue
        uri = symbol["location"]["uri"]
        if marker not in uri or symbol["identifier"]["precise"] in seen:
            continue
        seen.add(symbol["identifier"]["precise"])
        total += 1
        line = symbol["location"]["position"]["line"]
        doc = symbol.get("docComment")
        shown += bool(doc)
        lines = (doc or {}).get("lines") or [{}]
        end = lines[-1].get("range", {}).get("end", {}).get("line")
        if doc and doc.get("uri") == uri and end is not None and 0 < line - end <= 4:
            own += 1
        else:
            where = uri.split(marker)[1]
            missing.append(f"{where}:{line + 1} {'.'.join(symbol['pathComponents'])}"
                           + (" (inherited comment)" if doc else ""))
if total == 0:
    sys.exit(f"no public symbol of {target} found in its symbol graph")
print(f"{target}: {total} public declarations; with a /// comment of their own: {own} "
      f"({100 * own / total:.1f} %); shown with one by DocC: {shown} ({100 * shown / total:.1f} %)")
if listing:
    print("\n".join(sorted(missing)))
PYTHON

#!/usr/bin/env bash
# Counts each library module's public declarations, from its symbol graph.
#
# A declaration counts when its symbol has access level `public` or `open`: types, cases,
# properties, methods, initialisers, subscripts, operators, typealiases, associated types, and
# members of extensions on other modules' types (`PipelineCore@Swift.symbols.json`). Members a
# type only inherits or gets synthesized (protocol default implementations seen from a conformer,
# `!=`) are left out (`--skip-synthesized-members`), so each declaration written counts once.
#
#   scripts/public-api.sh                 one line per module: "<count> <module>"
#   scripts/public-api.sh --list MODULE   that module's public declarations, one per line
set -euo pipefail
modules=(PipelineCore LoaderHTTP LoaderFile CodersPNG CodersJPEG CodersWebP CodersGIF ColorConverterLCMS PipelineConformance)
log=$(mktemp)
trap 'rm -f "$log"' EXIT
if ! swift package dump-symbol-graph --skip-synthesized-members --minimum-access-level public >"$log" 2>&1; then
  cat "$log" >&2
  exit 1
fi
dir=$(sed -nE 's/.*Files written to (.*)$/\1/p' "$log" | tail -1)
[ -d "$dir" ] || { echo "error: no symbol graph directory in the output:" >&2; cat "$log" >&2; exit 1; }

declarations() {  # module → "kind path" per public declaration, sorted, unique
  local files=("$dir/$1.symbols.json")
  for extra in "$dir/$1@"*.symbols.json; do [ -e "$extra" ] && files+=("$extra"); done
  jq -r '.symbols[] | select(.accessLevel == "public" or .accessLevel == "open")
         | "\(.identifier.precise)\t\(.kind.identifier | sub("^swift\\."; ""))\t\(.pathComponents | join("."))"' "${files[@]}" \
    | sort -u -t$'\t' -k1,1 | cut -f2- | sort
}

if [ "${1:-}" = "--list" ]; then
  declarations "${2:?module name}" | tr '\t' ' '
  exit 0
fi
for module in "${modules[@]}"; do
  printf '%5d %s\n' "$(declarations "$module" | wc -l)" "$module"
done

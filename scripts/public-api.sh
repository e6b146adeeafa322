#!/usr/bin/env bash
# The public API of every library product, from its symbol graph, against the baseline in API/.
#
# A declaration counts when its symbol has access level `public` or `open`: types, cases,
# properties, methods, initialisers, subscripts, operators, typealiases, associated types, and
# members of extensions on other modules' types (`PipelineCore@Swift.symbols.json`). Members a
# type only inherits or gets synthesized (protocol default implementations seen from a conformer,
# `!=`) are left out (`--skip-synthesized-members`), so each declaration written counts once.
#
#   scripts/public-api.sh                 one line per module: "<count> <module>"
#   scripts/public-api.sh --list MODULE   that module's public declarations, one per line
#   scripts/public-api.sh --check         fails when any module's API differs from API/<module>.txt
#   scripts/public-api.sh --update        rewrites API/<module>.txt from the code
#
# `make test` runs --check, so every change to the public surface shows in review as a change to
# API/: run --update and commit the baseline with the change.
set -euo pipefail
cd "$(dirname "$0")/.."
modules=(PipelineCore ImagePipe ImagePipeTargets CodersPNG CodersJPEG CodersWebP CodersGIF CodersAVIF CodersHEIF CodersTIFF CodersBMP CodersJXL CodersSVG
         LoaderFile LoaderHTTP ColorConverterLCMS CacheRedis PipelineConformance ImageServer)
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
    | sort -u -t$'\t' -k1,1 | cut -f2- | tr '\t' ' ' | LC_ALL=C sort
}

case "${1:-}" in
  --list)
    declarations "${2:?module name}"
    ;;
  --update)
    mkdir -p API
    for module in "${modules[@]}"; do declarations "$module" >"API/$module.txt"; done
    echo "API/: baselines of ${#modules[@]} modules written"
    ;;
  --check)
    changed=0
    for module in "${modules[@]}"; do
      if ! declarations "$module" | diff -u --label "API/$module.txt" --label "$module (code)" "API/$module.txt" - ; then
        changed=1
      fi
    done
    if [ "$changed" -ne 0 ]; then
      echo "error: the public API changed (diff above). If that is intended, run scripts/public-api.sh --update and commit API/." >&2
      exit 1
    fi
    echo "public API: ${#modules[@]} modules match API/"
    ;;
  "")
    for module in "${modules[@]}"; do
      printf '%5d %s\n' "$(declarations "$module" | wc -l)" "$module"
    done
    ;;
  *)
    echo "usage: scripts/public-api.sh [--list MODULE | --check | --update]" >&2
    exit 2
    ;;
esac

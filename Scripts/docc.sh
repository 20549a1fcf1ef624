#!/usr/bin/env bash
# Builds the DocC documentation of the library modules with the toolchain's
# docc, one archive per module from its catalog (Sources/<Module>/<Module>.docc),
# its guides in docs/ as articles, and its symbol graph, with warnings as
# errors: a broken ``Symbol`` link in a catalog, a guide or a documentation
# comment fails the script, and CI runs it.
#
#   Scripts/docc.sh              # archives in .build/docc/<Module>.doccarchive
#   Scripts/docc.sh OUTPUT_DIR   # archives in OUTPUT_DIR instead
#
# The archives can be served with any static file server (they are built for
# static hosting); `docc preview` is not needed to check them.
set -euo pipefail
cd "$(dirname "$0")/.."

modules=(PredicateDSL ObjectGraph ContextWatching WatchFormats)
output=${1:-.build/docc}

# The guides in docs/ stay the one source of truth: each is copied into its
# module's catalog at build time and becomes an article there.
guides() {
  case "$1" in
    PredicateDSL) echo docs/predicate-language.md docs/evaluation.md docs/error-messages.md ;;
    ObjectGraph) echo docs/object-graph.md ;;
    ContextWatching) echo docs/watching.md docs/monitors.md ;;
    WatchFormats) ;;
  esac
}

# docc ships in the toolchain next to swift (there is no xcrun on Linux).
docc=$(command -v docc || true)
if [[ -z "$docc" ]]; then
  docc="$(dirname "$(readlink -f "$(command -v swift)")")/docc"
fi
[[ -x "$docc" ]] || { echo "docc not found next to $(command -v swift)" >&2; exit 1; }

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# WatchFormats depends on the three others, so this builds all four.
swift build --target WatchFormats >"$work/build.log" 2>&1 || { cat "$work/build.log" >&2; exit 1; }
modules_dir="$(swift build --show-bin-path)/Modules"
triple=$(swift -print-target-info | python3 -c 'import json, sys; print(json.load(sys.stdin)["target"]["triple"])')

mkdir -p "$output"
status=0
for module in "${modules[@]}"; do
  graphs="$work/$module"
  mkdir "$graphs"
  swift symbolgraph-extract -module-name "$module" -I "$modules_dir" -target "$triple" \
    -minimum-access-level public -emit-extension-block-symbols -output-dir "$graphs"
  catalog="$work/$module.docc"
  cp -R "Sources/$module/$module.docc" "$catalog"
  guide_files=$(guides "$module")
  if [[ -n "$guide_files" ]]; then
    # shellcheck disable=SC2086 # the list is words without spaces
    cp $guide_files "$catalog/"
  fi
  echo "== docc convert $module"
  if ! "$docc" convert "$catalog" \
    --additional-symbol-graph-dir "$graphs" \
    --fallback-display-name "$module" --fallback-bundle-identifier "contextwatcher.$module" \
    --transform-for-static-hosting --hosting-base-path "$module" \
    --warnings-as-errors \
    --output-path "$output/$module.doccarchive" >"$work/$module.log" 2>&1
  then
    cat "$work/$module.log" >&2
    status=1
  fi
done

if [[ $status -ne 0 ]]; then
  echo "docc reported problems (warnings are errors)." >&2
  exit 1
fi
echo "DocC archives in $output"

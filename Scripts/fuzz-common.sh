# Shared by Scripts/fuzz-parser.sh and Scripts/fuzz-evaluation.sh (sourced,
# not run): the output folder, and building and running a libFuzzer binary
# made with swiftc from the PredicateDSL sources and a fuzzer's own, as one
# module. Sets `root` (the repository) and `out` (Fuzz/.out) and reads the
# run's SECONDS (default 60) from the script's first argument.
set -euo pipefail
seconds="${1:-60}"
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
out="$root/Fuzz/.out"
mkdir -p "$out/crashes"
export SWIFT_BACKTRACE=enable=no

# fuzz_build BINARY MODULE SOURCE...: builds BINARY (swiftc -sanitize=fuzzer,address,
# with the package's language settings) unless it is newer than every source.
fuzz_build() {
  local binary=$1 module=$2
  shift 2
  if [ -x "$binary" ] && [ -z "$(find "$@" -newer "$binary" 2> /dev/null | head -1)" ]; then
    return
  fi
  echo "building $binary"
  if ! swiftc -sanitize=fuzzer,address -parse-as-library -swift-version 6 -O -g -package-name main \
    -enable-upcoming-feature ExistentialAny -enable-upcoming-feature MemberImportVisibility \
    -enable-upcoming-feature InternalImportsByDefault \
    -module-name "$module" "$@" -o "$binary"; then
    echo "error: swiftc could not build the fuzzer (see the errors above; it also needs a toolchain with the libFuzzer runtime, -sanitize=fuzzer)" >&2
    exit 1
  fi
}

# fuzz_run BINARY SEEDS CORPUS MAX_LEN ARTIFACT_PREFIX [libFuzzer flags...]:
# copies the seed corpus SEEDS into the working corpus CORPUS (keeping what
# earlier runs found) and runs BINARY on it for the run's seconds, printing
# its statistics at the end; findings go to ARTIFACT_PREFIX*.
fuzz_run() {
  local binary=$1 seeds=$2 corpus=$3 max_len=$4 prefix=$5
  shift 5
  mkdir -p "$corpus"
  cp -n "$seeds"/* "$corpus/" 2> /dev/null || true
  cd "$out"
  "$binary" "$corpus" -dict="$root/Fuzz/parser.dict" -max_len="$max_len" -timeout=5 \
    -rss_limit_mb=4096 -max_total_time="$seconds" -print_final_stats=1 \
    -artifact_prefix="$prefix" "$@"
}

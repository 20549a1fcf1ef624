#!/usr/bin/env bash
# Measures how much of the caller's thread stack parsing and printing the
# deepest accepted predicates take (the figures in
# docs/predicate-language.md#nesting-limit).
#
#   Scripts/measure-parser-stack.sh            # release (-O) and debug (-Onone) builds
#   Scripts/measure-parser-stack.sh release    # one of them
#
# Builds PredicateDSL as its own module and a driver that parses (or prints)
# a predicate nested 255 levels deep in one of eight shapes (those of
# Tests/TestSupport/NestedPredicates.swift, which LimitsTests uses), on a thread
# whose stack size it is given. For each shape and mode the script finds, by
# bisection, the smallest stack in KiB on which the driver finishes (a
# smaller one crashes with a stack overflow). Output stays in
# .build-profile/stack/.
set -euo pipefail
cd "$(dirname "$0")/.."
out=.build-profile/stack
mkdir -p "$out"
export SWIFT_BACKTRACE=enable=no
configurations=${1:-"release debug"}

cat > "$out/main.swift" <<'SWIFT'
import Foundation
import PredicateDSL

// driver SHAPE KIB MODE: MODE "parse" parses on a thread with a KIB stack;
// "print" parses on the main thread and prints on the small one.
// driver --shapes: the shapes, one a line.
let arguments = CommandLine.arguments
if arguments[1] == "--shapes" {
  print(NestedPredicates.shapes.joined(separator: "\n"))
  exit(0)
}
let (shape, kib, mode) = (arguments[1], Int(arguments[2])!, arguments[3])
let text = NestedPredicates.text(shape, PredicateParser.defaultMaximumDepth - 1)
let parsed = mode == "print" ? try! PredicateParser.parse(text) : nil
let done = DispatchSemaphore(value: 0)
let thread = Thread {
  if let parsed {
    precondition(!parsed.description.isEmpty)
  } else {
    precondition((try? PredicateParser.parse(text)) != nil, "the deepest accepted input was refused")
  }
  done.signal()
}
thread.stackSize = kib << 10
thread.start()
done.wait()
print("ok")
SWIFT

sources=$(find Sources/PredicateDSL -name '*.swift' | sort)
for configuration in $configurations; do
  flags=$([ "$configuration" = release ] && echo "-O -wmo" || echo "-Onone -g")
  dir="$out/$configuration"
  mkdir -p "$dir"
  # shellcheck disable=SC2086
  swiftc $flags -parse-as-library -swift-version 6 -package-name main -module-name PredicateDSL \
    -enable-upcoming-feature ExistentialAny -enable-upcoming-feature InternalImportsByDefault \
    -enable-upcoming-feature MemberImportVisibility -enable-upcoming-feature NonisolatedNonsendingByDefault \
    -emit-library -emit-module -emit-module-path "$dir/PredicateDSL.swiftmodule" -o "$dir/libPredicateDSL.so" $sources
  # shellcheck disable=SC2086
  swiftc $flags -swift-version 6 -package-name main -I "$dir" -L "$dir" -lPredicateDSL -Xlinker -rpath -Xlinker "$PWD/$dir" \
    "$out/main.swift" Tests/TestSupport/NestedPredicates.swift -o "$dir/driver"
  echo "$configuration build: the smallest thread stack (KiB) that parses / prints each shape at depth 255"
  mapfile -t shapes < <("$dir/driver" --shapes)
  for shape in "${shapes[@]}"; do
    line="  $shape:"
    for mode in parse print; do
      low=16 high=16384
      while [ $((high - low)) -gt 4 ]; do
        middle=$(((low + high) / 2))
        # In a shell of its own, whose crash report goes to /dev/null too.
        if bash -c '"$@"; exit $?' driver "$dir/driver" "$shape" "$middle" "$mode" > /dev/null 2>&1; then
          high=$middle
        else
          low=$middle
        fi
      done
      line="$line $mode $high"
    done
    echo "$line"
  done
done

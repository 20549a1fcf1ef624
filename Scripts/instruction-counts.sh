#!/usr/bin/env bash
# Guards the speed of the hot paths: counts their instructions under
# callgrind (repeatable on a shared, noisy machine, unlike time) and fails
# when a count is more than 3% above its baseline in
# Scripts/instruction-baseline.txt.
#
#   Scripts/instruction-counts.sh            # count and compare (CI runs this)
#   Scripts/instruction-counts.sh --update   # count and write the baseline
#
# Updating the baseline is a deliberate commit, with the reason in its
# message. The paths: parsing `age > 30`, compiling a two-clause predicate,
# evaluating `age > 30` and a five-clause predicate (through
# Scripts/profile-predicates.sh); classifying one changed object against
# 1,000 and 100,000 watches and against 100,000 `score BETWEEN` and
# `name >= AND name <` watches, registering and removing a watch, and
# applying a save of 10 changes to a list monitor of 1,000 and 20,000 objects, a save
# of one change to 1,000 small windowed lists with closure observers (a live-query
# server's lists), a save
# of 10 people a list of 20,000 does not hold with and without that list, and
# releasing 10,000 and 40,000 list monitors of one context (through
# Benchmarks/Tools/WatcherProfile); the cost of releasing a monitor at 40,000 must
# also stay within 10% of its cost at 10,000, so that teardown stays linear. Needs valgrind, installed when missing
# and the script may use apt-get.
set -euo pipefail
cd "$(dirname "$0")/.."
baseline=Scripts/instruction-baseline.txt
update=false
[[ "${1:-}" == "--update" ]] && update=true

if ! command -v valgrind > /dev/null; then
  if [[ $(id -u) == 0 ]] && command -v apt-get > /dev/null; then
    apt-get install -y -qq valgrind > /dev/null
  else
    echo "instruction-counts: valgrind is missing (apt-get install valgrind)" >&2
    exit 1
  fi
fi

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
results="$work/results"
: > "$results"

# Predicates: the script prints "NAME: N instructions per UNIT".
Scripts/profile-predicates.sh parse-short > "$work/predicates"
for name in compile-two evaluate-short evaluate-five; do
  PROFILE_NO_BUILD=1 Scripts/profile-predicates.sh "$name" | grep "^$name:" >> "$work/predicates"
done
grep -E '^(parse-short|compile-two|evaluate-short|evaluate-five):' "$work/predicates" \
  | sed -E 's/^([a-z0-9-]+): ([0-9]+) instructions.*/\1 \2/' >> "$results"

# The watcher and the list monitor: instructions per unit of work.
(cd Benchmarks && swift build -c release --product WatcherProfile > /dev/null)
count() {
  local name=$1 units=$2
  shift 2
  SWIFT_BACKTRACE=enable=no valgrind --tool=callgrind --callgrind-out-file="$work/out" --collect-atstart=no \
    --toggle-collect='*measuredLoop*' Benchmarks/.build/release/WatcherProfile "$@" > /dev/null 2> "$work/log"
  local total
  total=$(grep -o 'refs: *[0-9,]*' "$work/log" | tr -dc 0-9)
  echo "$name $((total / units))" >> "$results"
}
count classify-1000 20000 process 1000 200        # 200 rounds of 100 changed people
count classify-100000 5000 process 100000 50
count classify-range-100000 5000 range-form between 100000 50   # 50 rounds of 100
count classify-text-100000 5000 range-form text 100000 50
count register 20000 register 20000
count remove 20000 remove 20000
count list-1000 500 list 1000 50                  # 50 rounds of 10 changed people
count list-20000 500 list 20000 50
count lists-one-1000 400 lists-one 1000 400       # 400 saves of one changed person, ~5 small lists told each
count list-outside-20000 1000 list-outside 20000 100      # 100 rounds of 10 people the list does not hold
count save-outside-20000 1000 list-outside 20000 100 plain # the same saves without that list
count release-lists-10000 10000 release-lists 10000
count release-lists-40000 40000 release-lists 40000

if $update; then
  {
    echo "# Instructions per unit of the hot paths (Scripts/instruction-counts.sh)."
    echo "# Change only with Scripts/instruction-counts.sh --update, in a commit that says why."
    cat "$results"
  } > "$baseline"
  cat "$results"
  echo "wrote $baseline"
  exit 0
fi

status=0
small=$(awk '$1 == "release-lists-10000" { print $2 }' "$results")
large=$(awk '$1 == "release-lists-40000" { print $2 }' "$results")
ratio=$(awk -v a="$large" -v b="$small" 'BEGIN { printf "%.3f", a / b }')
if ((large * 100 > small * 110)); then
  echo "release-lists: $ratio times the cost per monitor at 40,000 as at 10,000: over the 1.10 allowed (teardown grows faster than linearly)"
  status=1
else
  echo "release-lists: $ratio times the cost per monitor at 40,000 as at 10,000 (at most 1.10)"
fi
while read -r name value; do
  expected=$(awk -v n="$name" '$1 == n { print $2 }' "$baseline")
  if [[ -z "$expected" ]]; then
    echo "$name: $value instructions per unit, no baseline (run with --update)"
    status=1
    continue
  fi
  limit=$((expected * 103 / 100))
  change=$(awk -v a="$value" -v b="$expected" 'BEGIN { printf "%+.1f", (a - b) * 100 / b }')
  if ((value > limit)); then
    echo "$name: $value instructions per unit, $change% against the baseline $expected: over the 3% allowed"
    status=1
  else
    echo "$name: $value instructions per unit ($change% against $expected)"
  fi
done < "$results"
exit $status

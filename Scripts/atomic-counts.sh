#!/usr/bin/env bash
# Counts the atomic read-modify-write instructions (lock-prefixed; nearly
# all of them reference counting: a retain or release of an object that is
# not immortal) that a mode of Benchmarks/Tools/WatcherProfile executes per
# unit of work, under callgrind. Instruction counts weigh an atomic like any
# other instruction; on a shared virtual machine one takes some 10 ns, the
# time of dozens of plain ones, so this count says where reference counting
# costs time.
#
#   Scripts/atomic-counts.sh UNITS MODE [ARGUMENTS...]
#   Scripts/atomic-counts.sh 1000 list 20000 100     # per changed object
#   ATOMIC_TOGGLE='*ListStateV7prepare*' Scripts/atomic-counts.sh 1000 list 20000 100
#
# ATOMIC_TOGGLE (default '*measuredLoop*') is callgrind's --toggle-collect
# pattern: the count covers the calls of the functions it matches. Name a
# function that neither recurses nor is nested in another match, or the
# toggling turns collection off inside it. Needs valgrind and python3.
set -euo pipefail
cd "$(dirname "$0")/.."
if [[ $# -lt 2 ]]; then
  sed -n '10,12p' "$0" >&2
  exit 2
fi
units=$1
shift
toggle=${ATOMIC_TOGGLE:-*measuredLoop*}

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
(cd Benchmarks && swift build -c release --product WatcherProfile > /dev/null)
SWIFT_BACKTRACE=enable=no valgrind --tool=callgrind --dump-instr=yes --callgrind-out-file="$work/out" \
  --collect-atstart=no --toggle-collect="$toggle" Benchmarks/.build/release/WatcherProfile "$@" > /dev/null \
  2> "$work/log"

# Each cost line of the profile is an instruction's address (absolute, or
# relative to the line before) and its executions; "calls=" lines are
# followed by a call's inclusive cost, which is not an execution count.
python3 - "$work/out" "$units" <<'EOF'
import collections, re, subprocess, sys

profile, units = sys.argv[1], int(sys.argv[2])
objects = {}
executions = collections.defaultdict(collections.Counter)
current, address, after_call = None, 0, False
for line in open(profile):
    line = line.rstrip("\n")
    named = re.match(r"^c?ob=\((\d+)\)(?: (.*))?$", line)
    if named:
        if named.group(2):
            objects[named.group(1)] = named.group(2)
        if line.startswith("ob="):
            current = named.group(1)
        continue
    if line.startswith("calls="):
        after_call = True
        continue
    cost = re.match(r"^(0x[0-9a-f]+|[+-]\d+|\*)\s+\S+\s+(\d+)$", line)
    if not cost:
        continue
    step = cost.group(1)
    if step.startswith("0x"):
        address = int(step, 16)
    elif step != "*":
        address += int(step)
    if after_call:
        after_call = False
    else:
        executions[current][address] += int(cost.group(2))

total = 0
for number, counts in executions.items():
    path = objects.get(number, "")
    if not path.startswith("/"):
        continue
    listing = subprocess.run(["objdump", "-d", "--no-show-raw-insn", path], capture_output=True, text=True).stdout
    atomics = {int(m.group(1), 16) for m in re.finditer(r"(?m)^\s*([0-9a-f]+):\s+lock", listing)}
    count = sum(n for a, n in counts.items() if a in atomics)
    if count:
        print(f"{count / units:10.1f}  {path}")
    total += count
print(f"{total / units:10.1f}  atomic instructions per unit")
EOF

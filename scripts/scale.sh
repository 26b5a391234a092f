#!/bin/sh
# reach at scale (docs/scale.md): traces reach's protocols with reach-scale
# (REACH_TRACE) at 2 to 64 processes, every rank its own node and nodes of
# 4 and 16; calibrates this machine's network path; replays the traces,
# checks the replay against the measured time at 2 processes, fits and
# projects to 4096 nodes (tools/reach-project.py).
#
#   scripts/scale.sh [--short] [BUILD_DIR [OUT_DIR [DOC]]]
#
# BUILD_DIR holds reach-scale (default build); the traces go to OUT_DIR
# (default BUILD_DIR/scale), the report to DOC (default docs/scale.md, its
# plots in docs/scale/). --short: 3 iterations, runs at N = 2 and 64 (the
# CI's default pass), the report beside the traces unless DOC is given.
set -e
here=$(cd "$(dirname "$0")/.." && pwd)
short=0
[ "$1" = --short ] && { short=1; shift; }
build=${1:-build}
out=${2:-$build/scale}
if [ $short = 1 ]; then
    iters=3 runs="1:2 1:64 16:64" doc=${3:-$out/scale.md}
else
    iters=20 runs="1:2 1:4 1:8 1:16 1:32 1:64 4:8 4:16 4:32 4:64 16:32 16:64" doc=${3:-$here/docs/scale.md}
fi
mpiexec=${MPIEXEC:-mpiexec}
rm -rf "$out"
mkdir -p "$out"
# One process per core: the parameters of an unloaded path.
$mpiexec -n 2 "$build/reach-scale" --calibrate "$out/machine.json"
cat "$out/machine.json"
# The same workloads untraced at 2, for what tracing costs.
mkdir -p "$out/untraced"
REACH_NODE_SIZE=1 $mpiexec -n 2 "$build/reach-scale" --out "$out/untraced" --iters $iters --untraced
for run in $runs; do
    s=${run%:*} n=${run#*:}
    echo "scale: $n processes, $s per node"
    REACH_NODE_SIZE=$s $mpiexec -n "$n" "$build/reach-scale" --out "$out/n$n-s$s" --iters $iters
done
project="python3 $here/tools/reach-project.py"
# The honest-projection check: each workload's replay at N = 2 against the
# time it took (reported; the report says how far).
$project check "$out/n2-s1" --params "$out/machine.json" --iters $iters || true
$project report "$out" --params "$out/machine.json" --iters $iters --out "$doc"

#!/bin/sh
# reach at scale: traces reach's protocols with reach-scale (REACH_TRACE) at
# 2 to 64 processes, every rank its own node and nodes of 4 and 16;
# calibrates this machine's network path; replays the traces, checks the
# replay against the measured time at 2 processes, fits and projects to
# 4096 nodes (tools/reach-project.py).
#
#   scripts/scale.sh [--quick | --short | --docs | --machines] [BUILD_DIR [OUT_DIR [REPORT]]]
#
# BUILD_DIR holds reach-scale (default build); the traces go to OUT_DIR
# (default BUILD_DIR/scale), the report to REPORT (default
# reach-results/scale.md, its plots beside it in reach-results/scale/).
# Every process beyond the cores is slow to start (MPI's collectives poll):
# a run at 64 processes takes about a minute before its first workload. So
# by default (the main job, scripts/bench.sh) each workload runs 5
# iterations at up to 32 processes. --quick: 3 iterations at up to 16 (the
# main job's --quick). --short: 3 iterations, at N = 2 and 64 only (the
# matrix's tool.reach-scale), the report beside the traces unless REPORT is
# given. --docs: the reference run, 20 iterations at up to 64, its report
# docs/scale.md, the copy the documentation quotes: only on purpose.
# --machines (root): the model checked between emulated machines
# (scripts/two-machines.sh) with a latency L added to their link: reach-scale
# traced on 2, 4 and 8 machines (a rank each) at L = 20 and 100 us, each
# replayed with the path calibrated through the relay with the same L
# added; the report (default reach-results/scale-machines.md) has each
# workload's replayed time over its measured time. The runs on more
# machines than cores are replayed on this machine's cores, shared as there
# (reach-project.py: "cores", with reach's spins on them), with the
# software times of the run on 2 machines.
set -e
here=$(cd "$(dirname "$0")/.." && pwd)
mode=main
case $1 in
--quick) mode=quick; shift ;;
--short) mode=short; shift ;;
--docs) mode=docs; shift ;;
--machines) mode=machines; shift ;;
esac
build=${1:-build}
out=${2:-$build/scale}
case $mode in
quick) iters=3 runs="1:2 1:4 1:8 1:16 4:16" doc=${3:-$here/reach-results/scale.md} ;;
short) iters=3 runs="1:2 1:64 16:64" doc=${3:-$out/scale.md} ;;
docs) iters=20 runs="1:2 1:4 1:8 1:16 1:32 1:64 4:8 4:16 4:32 4:64 16:32 16:64" doc=${3:-$here/docs/scale.md} ;;
main) iters=5 runs="1:2 1:4 1:8 1:16 1:32 4:16 16:32" doc=${3:-$here/reach-results/scale.md} ;;
machines) iters=100 doc=${3:-$here/reach-results/scale-machines.md} ;;
esac
mkdir -p "$(dirname "$doc")"
mpiexec=${MPIEXEC:-mpiexec}
rm -rf "$out"
mkdir -p "$out"
# No bytecode cache beside the tools: the job writes only its results.
project="env PYTHONDONTWRITEBYTECODE=1 python3 $here/tools/reach-project.py"
if [ $mode = machines ]; then
    tm="$here/scripts/two-machines.sh"
    export TM_RELAY="${TM_RELAY:-$build/reach-relay}" TM_PRELOAD="${TM_PRELOAD:-$build/tests/libtm_no_disconnect.so}"
    {
        echo "# reach's scale model between emulated machines"
        echo
        echo "Made by \`scripts/scale.sh --machines\` ($(date -u +%Y-%m-%d), $(nproc) cores): reach-scale"
        echo "($iters iterations) on M emulated machines of one rank each (scripts/two-machines.sh: links of"
        echo "MTU 1500 through tools/reach-relay), with L added to each frame's way; each run replayed by"
        echo "\`tools/reach-project.py check\` with this machine's path calibrated through the relay with"
        echo "the same L added. \"ratio\" is replayed over measured; the last two columns replay with L"
        echo "and the round trip as the trace itself measured them, and on shared cores with a wait's spin"
        echo "as it took processor time there (its application threads' processor time beyond their"
        echo "events' software times, over their waits)."
    } >"$doc"
    for d in 20 100; do
        # The path as the workloads meet it: a wait as long as the link's
        # round trip with L added sleeps and wakes where a shorter one
        # polls, which L + a calibration with nothing added leaves out.
        "$tm" --delay $d -n 2 "$build/reach-scale" --calibrate "$out/machine-l$d-path.json"
        python3 - "$out/machine-l$d-path.json" "$d" "$(nproc)" >"$out/machine-l$d.json" <<'PY'
import json, os, sys
p = json.load(open(sys.argv[1]))
d = float(sys.argv[2])
p["name"] += f", {d:g} us added to each way"
# For a replay on this machine's cores: the relay polls the last 20 us
# before each frame's deadline (tools/reach-relay.c, SPIN_NS).
p["cores"], p["relay_spin"] = int(sys.argv[3]), min(d, 20.0)
# A get or atomic through UCX's TCP transport is done by the target's
# worker, in software: a task of its handler, which needs a core.
p["rma_at_target"] = True
# And reach's own spins, each poll as long as the calibration's empty
# one: a wait's in its contended state (src/base/wait.h,
# WAIT_SPIN_CONTENDED polls, or REACH_SPIN_COUNT if fewer), the server
# thread's after a request (REACH_SERVER_SPIN).
polls = min(20, int(os.environ.get("REACH_SPIN_COUNT", 2000)))
p["spin"], p["server_spin"] = polls * p["poll"], int(os.environ.get("REACH_SERVER_SPIN", 50)) * p["poll"]
json.dump(p, sys.stdout)
PY
        printf '\n%s\n' "The calibrated path with $d us added: \`$(tr -d '\n' <"$out/machine-l$d-path.json" |
            sed 's/.*"L"/"L"/; s/, "measured".*//')\`" >>"$doc"
        for m in 2 4 8; do
            echo "scale: $m machines, L + $d us"
            "$tm" --machines $m --delay $d -n $m "$build/reach-scale" --out "$out/l$d-m$m" --iters $iters
            { echo; echo "## $m machines, $d us added"; echo; echo '```'
              sw=""
              [ "$m" -le "$(nproc)" ] || sw="--software $out/l$d-m2"
              $project check "$out/l$d-m$m" --params "$out/machine-l$d.json" --iters $iters --within 1.5 $sw ||
                  true
              echo '```'
              [ "$m" -le "$(nproc)" ] || printf '\n%s\n' "Here $m ranks, their $m server threads and the \
relay share $(nproc) cores. The replay shares them too (its cores model), with the software times of the run \
on 2 machines. Each wait there spins on its core for the 20 polls of reach's contended state, and each server \
thread for 50 after a request, at the calibrated poll's cost. A get or atomic is served by its target's \
handler there, which needs a core, as UCX's TCP transport serves it in software. But on these cores reach's \
waits are not always in that state, and a wait took several times the processor time of 20 empty polls: the \
last columns take that time, and the latencies, from the trace itself. Beyond that the replay misses woken \
threads waiting for a core \
that another thread holds: it models no slices and no preemption. docs/benchmarks.md, \"The scale model on \
shared cores\" and \"The scale model: the path calibrated with the link's latency\", have the figures."; } >>"$doc"
        done
    done
    echo "scale: the report is $doc"
    exit 0
fi
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
# The honest-projection check: each workload's replay at N = 2 against the
# time it took (reported; the report says how far).
$project check "$out/n2-s1" --params "$out/machine.json" --iters $iters || true
$project report "$out" --params "$out/machine.json" --iters $iters --out "$doc"

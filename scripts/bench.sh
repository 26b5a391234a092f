#!/bin/sh
# The main job: builds reach (build/) and measures it beside its baselines,
# on local processes, into one results folder (reach-results/ unless --out
# says otherwise), whose results of an earlier run it replaces; it writes
# nowhere else but build/. Steps, each timed:
#   1. ga-bench: Global Arrays' own calls through Debian's prebuilt Global
#      Arrays, linked with reach's libarmci and then with Debian's ARMCI-MPI,
#      on one node and through the network path (--network), at 2 processes
#      (one per core of the reference machine: ARMCI-MPI busy-polls);
#   2. reach-bench: every experiment at 2 processes beside MPI-3 RMA and the
#      baselines the seeds name, then the scaling ones at 4; report.md with
#      its plots (tools/reach-report.py) covers steps 1 and 2;
#   3. reach at scale (scripts/scale.sh): message traces of every barrier
#      and lock algorithm, window epochs and the LU kernel at 2 to 32
#      processes, replayed under LogGP models and projected to 4096 nodes:
#      scale.md and its plots in scale/ (docs/scale.md: up to 64).
#
#   scripts/bench.sh [--quick] [--out DIR]
#
# --quick: fewer samples and sizes, fewer traced iterations and runs (a few
# minutes). docs/benchmarks.md and docs/scale.md hold reference runs; this
# job does not touch them.
set -e
cd "$(dirname "$0")/.."
quick="" out=reach-results
while [ $# -gt 0 ]; do
    case $1 in
    --quick) quick=--quick ;;
    --out) [ $# -ge 2 ] || { echo "scripts/bench.sh: --out needs a folder" >&2; exit 2; }
           out=$2; shift ;;
    *) echo "usage: scripts/bench.sh [--quick] [--out DIR]" >&2; exit 2 ;;
    esac
    shift
done
mpiexec=${MPIEXEC:-mpiexec}
begin=$(date +%s) t=$begin
step() {
    now=$(date +%s)
    echo "== bench: $1 took $(((now - t) / 60)) min $(((now - t) % 60)) s"
    t=$now
}

cmake -S . -B build -G Ninja >/dev/null
cmake --build build
step "the build"
# An earlier run's results go (a report would mix them in); nothing else
# in the folder is touched.
mkdir -p "$out"
rm -rf "$out"/*.json "$out"/*.png "$out"/report.md "$out"/scale.md "$out"/scale
if [ -x build/ga-bench ]; then
    for net in "" --network; do
        for ga in ga-bench ga-bench-armci-mpi; do
            [ -x build/$ga ] || continue
            echo "== bench: $ga $quick $net"
            $mpiexec -n 2 build/$ga $quick $net --out "$out"
        done
    done
    step "ga-bench"
else
    echo "== bench: no ga-bench (the build found no Global Arrays; scripts/install-deps.sh installs it)"
fi
$mpiexec -n 2 build/reach-bench $quick --out "$out"
$mpiexec -n 4 build/reach-bench $quick --out "$out" --only ga_sync,locks,win_receiver,lu
step "reach-bench"
scripts/scale.sh $quick build build/scale "$out/scale.md"
step "reach at scale"
now=$(date +%s)
echo "== bench: done in $(((now - begin) / 60)) min $(((now - begin) % 60)) s: $out/report.md, $out/scale.md"

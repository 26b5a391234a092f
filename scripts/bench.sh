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
#   3. the same between two machines (scripts/two-machines.sh: network
#      namespaces, one rank on each), over UCX and over libfabric's tcp
#      provider: ga-bench with reach and with ARMCI-MPI, and reach-bench's
#      networks, transfer, sync, ga_sync and locks experiments beside
#      MPI-3 RMA; first with the machines sharing this host's cores,
#      then with each on cores of its own (--own-cores); where the
#      host cannot make namespaces it says why;
#   4. ga-bench --quick beside another job's 4 processes
#      (build/busy-neighbour): busy-polling in MPI_Allreduce, then plain
#      CPU-bound loops; on one node, and between two machines over UCX
#      where step 3 could make them;
#      each of steps 3 and 4 writes a sub-folder (machines-ucx,
#      machines-ofi, machines-own-ucx, machines-own-ofi, busy-mpi,
#      busy-cpu, machines-busy-mpi, machines-busy-cpu) that report.md
#      covers too, and
#      report.md opens with one screen of every condition and path;
#   5. reach at scale (scripts/scale.sh): message traces of every barrier
#      and lock algorithm, window epochs and the LU kernel at 2 to 32
#      processes, replayed under LogGP models and projected to 4096 nodes:
#      scale.md and its plots in scale/ (docs/scale.md: up to 64).
#   6. NWChem: report.md ends with the table of the last run of
#      scripts/nwchem.sh (build-nwchem/results.md, or under $NWCHEM_WORK),
#      if there is one. That
#      script builds NWChem in about 12 minutes, more than this job's
#      budget, so this job does not run it.
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
rm -rf "$out"/*.json "$out"/*.png "$out"/report.md "$out"/scale.md "$out"/scale \
    "$out"/machines-* "$out"/busy-*
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

# A condition's runs go to a sub-folder that says what they ran under.
condition() {
    mkdir -p "$out/$1"
    echo "$2" >"$out/$1/condition"
}
ga_pair() { # ga_pair LAUNCH... -- ARGS: ga-bench with reach, then with ARMCI-MPI
    launch="" && while [ "$1" != -- ]; do launch="$launch $1" && shift; done && shift
    for ga in ga-bench ga-bench-armci-mpi; do
        [ -x build/$ga ] || continue
        echo "== bench: $ga $*"
        $launch build/$ga "$@"
    done
}
why=$(scripts/two-machines.sh -n 2 true 2>&1) && tm=0 || tm=$?
if [ $tm -eq 0 ]; then
    # The machines share this host's cores, then each has cores of its own
    # (--own-cores), as separate machines do.
    own=own
    why_own=$(scripts/two-machines.sh --own-cores -n 2 true 2>&1) || {
        own=""
        echo "== bench: no runs on machines with cores of their own: $why_own"
    }
    for cores in shared $own; do
        for net in ucx ofi; do
            case $net in
            ucx) name="UCX" env="-genv REACH_NETWORK ucx" ;;
            ofi) name="libfabric's tcp provider" env="-genv REACH_NETWORK ofi -genv REACH_OFI_PROVIDER tcp" ;;
            esac
            tm_run="scripts/two-machines.sh -n 2" sub=machines-$net where="sharing this host's cores"
            if [ $cores = own ]; then
                tm_run="$tm_run --own-cores" sub=machines-own-$net where="each on cores of its own"
            fi
            condition $sub "between two machines $where, over $name"
            ga_pair $tm_run $env -- $quick --network --out "$out/$sub"
            echo "== bench: reach-bench between two machines $where, over $name"
            $tm_run $env build/reach-bench $quick --out "$out/$sub" --only networks,transfer,sync,ga_sync,locks
        done
    done
    step "between two machines"
else
    echo "== bench: no runs between two machines: scripts/two-machines.sh cannot make them here (status $tm): $why"
fi
if [ -x build/ga-bench ]; then
    for kind in mpi cpu; do
        case $kind in
        mpi) what="4 processes looping on MPI_Allreduce (MPICH busy-polls)" ;;
        cpu) what="4 CPU-bound loops" ;;
        esac
        condition busy-$kind "one machine, beside another job: $what"
        $mpiexec -n 4 build/busy-neighbour $kind 300 >/dev/null 2>&1 &
        neighbour=$!
        trap 'kill $neighbour 2>/dev/null' EXIT # (also if a run fails)
        sleep 2 # (its processes started and busy)
        kill -0 $neighbour 2>/dev/null || { echo "== bench: build/busy-neighbour $kind did not start" >&2; exit 1; }
        ga_pair $mpiexec -n 2 -- --quick --out "$out/busy-$kind" # (always: the neighbours set the pace)
        if [ $tm -eq 0 ]; then
            condition machines-busy-$kind "between two machines sharing this host's cores, over UCX, beside another job: $what"
            ga_pair scripts/two-machines.sh -n 2 -genv REACH_NETWORK ucx -- --quick --network \
                --out "$out/machines-busy-$kind"
        fi
        # (its 300 s must outlast the runs, or they were not beside it)
        kill -0 $neighbour 2>/dev/null || { echo "== bench: build/busy-neighbour $kind ended before the runs" >&2; exit 1; }
        kill $neighbour 2>/dev/null || true
        wait $neighbour 2>/dev/null || true
        trap - EXIT
    done
    step "beside busy neighbours"
fi
/usr/bin/python3 tools/reach-report.py "$out"
{
    echo
    echo "## NWChem"
    echo
    nwchem=${NWCHEM_WORK:-build-nwchem}/results.md
    if [ -f "$nwchem" ]; then
        cat "$nwchem"
    else
        echo "No run of scripts/nwchem.sh here (it builds NWChem from Debian's source package in about"
        echo "12 minutes, then runs its QA tests on reach and on Debian's nwchem-mpich); docs/benchmarks.md"
        echo "(\"NWChem\") has a reference run."
    fi
} >>"$out/report.md"
scripts/scale.sh $quick build build/scale "$out/scale.md"
step "reach at scale"
now=$(date +%s)
echo "== bench: done in $(((now - begin) / 60)) min $(((now - begin) % 60)) s: $out/report.md, $out/scale.md"

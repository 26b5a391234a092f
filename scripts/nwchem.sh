#!/bin/bash
# nwchem.sh [OPTIONS]: NWChem, the application Global Arrays exists for,
# built from Debian's source package against an installed reach, and run
# through NWChem's own QA tests beside Debian's prebuilt nwchem-mpich.
#
#   --prefix DIR   the installed reach to build against (default: the
#                  build folder build/, installed into WORK/prefix)
#   --work DIR     where the source, the build and the runs go (default
#                  build-nwchem/, or $NWCHEM_WORK)
#   --np LIST      process counts (default "1 2 4"; the paths across
#                  nodes and machines run from 2)
#   --paths LIST   which runs (default all):
#                    armci-mpi      the same build linked with Debian's
#                                   ARMCI-MPI (libarmci-mpich.a), with
#                                   ARMCI_USE_WIN_ALLOCATE=0, at no more
#                                   ranks than cores: the baseline
#                    debian         Debian's prebuilt nwchem-mpich (its
#                                   own modules and flags), the same way
#                    node           reach, one node
#                    ucx, ofi       reach, every rank its own node
#                                   (REACH_NODE_SIZE=1), over UCX or
#                                   libfabric's tcp provider
#                    machines-ucx,  reach between two emulated machines
#                    machines-ofi   (scripts/two-machines.sh; needs root)
#   --tests LIST   tests (default: nine of NWChem's QA tests, and
#                  tests/nwchem/benzene_dft, a B3LYP/6-31G* energy whose
#                  reference is the lines nwparse.pl reads of Debian's
#                  nwchem-mpich output)
#   --oversubscribed-tests LIST
#                  the tests run where the ranks outnumber the cores
#                  (default all; CI: h2o prop_h2o testtab). There Debian's
#                  NWChem spends most of its time in ScaLAPACK's MPI calls
#                  (MPI_Comm_split, MPI_Bcast), where MPICH busy-polls: h2o
#                  took 8.7 s at 4 ranks on 2 cores, 0.5 s at 2
#   --build-only   build and check the binary, run nothing
#
# Steps, each skipped when its result is there (but the link, 3 s):
# 1. reach installed into WORK/prefix (cmake --install), unless --prefix.
# 2. NWChem's source: `apt-get source nwchem` (7.0.2 on Debian 12, with
#    Debian's patches), adding a deb-src entry for bookworm if apt has none.
# 3. NWChem built with Debian's settings (debian/rules, its MPICH flavour)
#    and the fewest modules the tests need (nwdft pulls in SCF, gradients,
#    properties and Hessians), against Debian's own Global Arrays
#    (libglobalarrays-dev, libga-mpich.a) as Debian's nwchem-mpich is. It
#    is linked twice. nwchem.reach takes reach's libarmci.so from PREFIX in
#    place of ARMCI-MPI's libarmci-mpich.a, named by its path (ga-config's
#    -L/usr/lib/x86_64-linux-gnu would find Debian's libarmci.a first) and
#    found through the binary's run path; the script checks with ldd and
#    nm that it loads PREFIX's libarmci and holds no ARMCI of its own.
#    nwchem.armci-mpi is linked as Debian links it.
# 4. Each path and process count runs the tests through NWChem's
#    QA/runtests.mpi.unix, which compares each output with the shipped one
#    by NWChem's nwparse.pl. reach's runs set REACH_STATS=1; the script
#    checks that every rank printed reach's line, and on the paths across
#    nodes that every rank sent messages over the network.
#
# Prints a table (test by path and process count: OK and wall seconds, or
# FAILED), and for each of reach's columns the geometric mean over the
# tests of ARMCI-MPI's time over reach's at the same count, with the worst
# test; writes it to WORK/results.md. Each run has 600 s. Exits 1 if any of
# reach's runs failed. A failure of a baseline is shown, not counted.
set -euo pipefail
root=$(realpath "$(dirname "$0")/..")
work=$(realpath -m "${NWCHEM_WORK:-$root/build-nwchem}")
prefix="" nps="1 2 4" build_only=0 over_tests=""
paths="armci-mpi debian node ucx ofi machines-ucx machines-ofi"
tests="h2o small_intchk dft_he2+ prop_h2o prop_uhf_h2o h2o_dk tagcheck testtab startag benzene_dft"
while [ $# -gt 0 ]; do
    case $1 in
    --prefix) prefix=$(realpath -e "$2"); shift 2 ;;
    --work) work=$(realpath -m "$2"); shift 2 ;;
    --np) nps=$2; shift 2 ;;
    --paths) paths=$2; shift 2 ;;
    --tests) tests=$2; shift 2 ;;
    --oversubscribed-tests) over_tests=$2; shift 2 ;;
    --build-only) build_only=1; shift ;;
    *) echo "scripts/nwchem.sh: unknown option \"$1\" (see the script's first lines)" >&2; exit 2 ;;
    esac
done
for p in $paths; do
    case $p in
    armci-mpi|debian|node|ucx|ofi|machines-ucx|machines-ofi) ;;
    *) echo "scripts/nwchem.sh: unknown path \"$p\"" >&2; exit 2 ;;
    esac
done
say() { echo "== nwchem: $*"; }
die() { echo "scripts/nwchem.sh: $*" >&2; exit 1; }
# two-machines.sh's helpers, if named, as the runs' own folders see them.
for v in TM_PRELOAD TM_RELAY; do
    if [ -n "${!v:-}" ]; then
        abs=$(realpath -e "${!v}") || die "$v=${!v}: no such file"
        export "$v=$abs"
    fi
done
cd "$root"
# NWChem's makefiles and QA scripts split their paths on spaces.
case "$root$work$prefix" in
*" "*) die "the paths of the repository, --work and --prefix must not hold spaces" ;;
esac
for c in gfortran mpifort.mpich mpiexec.mpich dpkg-source perl timeout; do
    command -v $c >/dev/null || die "no $c (scripts/install-deps.sh installs it)"
done
case " $paths " in
*" debian "*) [ -x /usr/bin/nwchem.mpich ] ||
    die "no /usr/bin/nwchem.mpich (Debian's nwchem-mpich; scripts/install-deps.sh installs it)" ;;
esac
mkdir -p "$work"
src=$work/nwchem
cores=$(getconf _NPROCESSORS_ONLN)
export OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1

# ---- 1. reach, installed -------------------------------------------------------
if [ -z "$prefix" ]; then
    prefix=$work/prefix
    say "installing reach from build/ into $prefix"
    [ -f build/CMakeCache.txt ] || cmake -S . -B build -G Ninja >/dev/null
    cmake --build build >/dev/null
    cmake --install build --prefix "$prefix" >/dev/null
fi
libarmci=""
for f in "$prefix"/lib*/libarmci.so; do
    [ -e "$f" ] && libarmci=$f
done
[ -n "$libarmci" ] || die "no libarmci.so under $prefix (an installed reach)"

# ---- 2. NWChem's source ----------------------------------------------------------
if [ ! -f "$src/debian/rules" ]; then
    say "fetching NWChem's source (apt-get source nwchem)"
    if ! apt-get source --print-uris nwchem >/dev/null 2>&1; then
        [ "$(id -u)" = 0 ] || die "apt has no deb-src entry for nwchem; adding one needs root"
        cat >/etc/apt/sources.list.d/reach-deb-src.sources <<'EOF'
Types: deb-src
URIs: http://deb.debian.org/debian
Suites: bookworm
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
EOF
        apt-get update -qq
    fi
    rm -rf "$work/fetch" "$src"
    mkdir -p "$work/fetch"
    (cd "$work/fetch" && apt-get source --download-only nwchem && dpkg-source -x nwchem_*.dsc "$src") \
        >"$work/fetch.log" 2>&1 || { tail -20 "$work/fetch.log"; die "apt-get source nwchem failed"; }
    rm -rf "$work/fetch"
fi

# ---- 3. the build ------------------------------------------------------------------
# debian/rules' settings for its MPICH flavour (NWCHEM_MODULES aside).
export NWCHEM_TOP=$src NWCHEM_TARGET=LINUX64 USE_64TO32=yes BLAS_SIZE=4
export BLAS_LIB=-lblas LAPACK_LIB=-llapack USE_SCALAPACK=yes SCALAPACK_SIZE=4
export NWCHEM_MODULES=nwdft NWCHEM_LONG_PATHS=y LARGE_FILES=TRUE FC=gfortran
export USE_MPI=y USE_MPIF=y USE_MPIF4=y MPI_LIB=/usr/lib HAS_BLAS=yes
export BLASOPT="-lblas -llapack" ARMCI_NETWORK=SOCKETS USE_ARUR=yes
export MPICC=mpicc.mpich MPICXX=mpicxx.mpich MPIF77=mpif77.mpich MPIFC=mpifort.mpich
export MPIF90=mpif90.mpich MPI_INCLUDE=/usr/include/x86_64-linux-gnu/mpich
export SCALAPACK=-lscalapack-mpich BLACS=-lscalapack-mpich
export EXTERNAL_GA_PATH=/usr/lib/x86_64-linux-gnu/ga/mpich LIBDIR=$src/lib/LINUX64
LIBMPI=""
for w in $(mpifort.mpich -show); do
    case $w in -L*|-l*) LIBMPI="$LIBMPI $w" ;; esac
done
export LIBMPI LDFLAGS=-pthread
exe=$work/nwchem.reach
if [ ! -f "$src/.reach-objects" ]; then
    say "building NWChem's objects (about 12 minutes on 2 cores)"
    mkdir -p "$src/bin/LINUX64"
    log=$work/build.log
    (
        cd "$src/src"
        make nwchem_config
        make 64_to_32
        find . \( -name include_stamp -o -name dependencies \) -exec rm -f {} +
        make -j"$cores"
        make -C util
    ) >"$log" 2>&1 || { tail -40 "$log"; die "NWChem's build failed (all of it in $log)"; }
    touch "$src/.reach-objects"
fi
# link NAME GA_LIBS: links the objects into WORK/nwchem.NAME with
# Debian's Global Arrays and the ARMCI GA_LIBS names (3 s: always done).
link() {
    rm -f "$src/bin/LINUX64/nwchem"
    (cd "$src/src" && make link GA_LIBS="$2") >"$work/link-$1.log" 2>&1 ||
        { tail -30 "$work/link-$1.log"; die "NWChem's link failed (all of it in $work/link-$1.log)"; }
    mv "$src/bin/LINUX64/nwchem" "$work/nwchem.$1"
}
ga_libs="-lga-mpich -lscalapack-mpich -llapack -lblas"
say "linking NWChem against $libarmci, and against ARMCI-MPI"
link reach "$ga_libs $libarmci -Wl,-rpath,${libarmci%/*}"
link armci-mpi "$ga_libs -larmci-mpich"
loaded=$(env -u LD_LIBRARY_PATH ldd "$exe" | awk '$1 ~ /^libarmci/ {print $3}')
[ -n "$loaded" ] && [ "$(realpath "$loaded")" = "$(realpath "$libarmci")" ] ||
    die "$exe loads libarmci from \"$loaded\", not $libarmci"
# No ARMCI of its own, and ARMCI-MPI's in the other (ARMCI-MPI defines
# ARMCI_Init as a weak symbol, W). (grep without -q reads nm to its end.)
defines_armci() { nm "$1" | grep -E ' [TW] ARMCI_Init$' >/dev/null; }
! defines_armci "$exe" || die "$exe holds an ARMCI of its own (ARMCI_Init defined in the binary)"
defines_armci "$work/nwchem.armci-mpi" || die "$work/nwchem.armci-mpi holds no ARMCI-MPI"
say "$exe loads $loaded (no ARMCI linked in)"
[ $build_only = 1 ] && exit 0

# ---- 4. the QA runs ------------------------------------------------------------------
# Each path's launcher, as runtests.mpi.unix calls it: LAUNCHER -np N EXE
# INPUT. Its settings go to every rank (two-machines.sh passes -genv on).
launcher() {
    local path=$1 f=$work/launch-$1 env
    case $path in
    armci-mpi|debian) env="ARMCI_USE_WIN_ALLOCATE=0" ;;
    node) env="REACH_STATS=1" ;;
    ucx) env="REACH_STATS=1 REACH_NODE_SIZE=1 REACH_NETWORK=ucx" ;;
    ofi) env="REACH_STATS=1 REACH_NODE_SIZE=1 REACH_NETWORK=ofi REACH_OFI_PROVIDER=tcp" ;;
    machines-ucx) env="REACH_STATS=1 REACH_NETWORK=ucx" ;;
    machines-ofi) env="REACH_STATS=1 REACH_NETWORK=ofi REACH_OFI_PROVIDER=tcp" ;;
    esac
    env="$env OPENBLAS_NUM_THREADS=1 NWCHEM_BASIS_LIBRARY=$2"
    {
        echo '#!/bin/sh'
        echo "# scripts/nwchem.sh's launcher for the path $path"
        case $path in
        machines-*)
            printf 'exec %s' "$root/scripts/two-machines.sh"
            for kv in $env; do printf ' -genv %s %s' "${kv%%=*}" "${kv#*=}"; done
            echo ' -n "$2" "$3" "$4"' ;;
        *) echo "exec timeout -k 10 600 env $env mpiexec.mpich -np \"\$2\" \"\$3\" \"\$4\"" ;;
        esac
    } >"$f"
    chmod +x "$f"
    echo "$f"
}
# reach's own tests join NWChem's, where runtests.mpi.unix looks for them.
for t in "$root"/tests/nwchem/*/; do
    t=${t%/}
    ln -sfn "$t" "$src/QA/tests/${t##*/}"
done
# The paths between machines need namespaces (root): where they cannot be
# made, they are left out and said so, unless TM_REQUIRED=1 (CI).
case " $paths " in
*" machines-"*)
    if ! why=$(scripts/two-machines.sh -n 2 true 2>&1); then
        [ "${TM_REQUIRED:-0}" = 1 ] && die "two-machines.sh cannot run here: $why"
        say "no runs between machines: $why"
        kept=""
        for p in $paths; do
            case $p in machines-*) ;; *) kept="$kept $p" ;; esac
        done
        paths=$kept
    fi ;;
esac
for t in $tests $over_tests; do
    [ -f "$src/QA/tests/$t/$t.nw" ] || die "no test $t in $src/QA/tests or tests/nwchem"
done
results=$work/results.tsv
: >"$results"
failed=0
for path in $paths; do
    basis=$src/src/basis/libraries/ baseline=1
    case $path in
    armci-mpi) bin=$work/nwchem.armci-mpi ;;
    debian) bin=/usr/bin/nwchem.mpich basis=/usr/share/nwchem/libraries/ ;;
    *) bin=$exe baseline=0 ;;
    esac
    launch=$(launcher $path "$basis")
    for np in $nps; do
        case $path.$np in
        ucx.1|ofi.1|machines-*.1) continue ;;
        esac
        if [ $baseline = 1 ] && [ "$np" -gt "$cores" ]; then
            # MPICH busy-polls: beyond a rank a core, its calls take a
            # scheduler slice each (h2o: 92 s at 4 ranks on 2 cores, 0.3 s
            # at 2), which would time the machine, not ARMCI-MPI.
            say "$path at np $np skipped: more ranks than the $cores cores"
            continue
        fi
        run_tests=$tests
        if [ -n "$over_tests" ] && [ "$np" -gt "$cores" ]; then
            run_tests=$over_tests
        fi
        for t in $run_tests; do
            dir=$work/qa/$path-np$np/$t
            rm -rf "$dir"
            mkdir -p "$dir"
            ln -s "$src/QA/tests" "$dir/tests"
            start=$(date +%s.%N)
            status=OK
            (cd "$dir" && NWCHEM_EXECUTABLE=$bin MPIRUN_PATH=$launch MPIRUN_NPOPT=-np \
                NWPARSE=$src/QA/nwparse.pl \
                "$src/QA/runtests.mpi.unix" procs "$np" "$t" >run.log 2>&1) || status=FAILED
            secs=$(echo "$start $(date +%s.%N)" | awk '{printf "%.1f", $2 - $1}')
            out=$dir/testoutputs/$t.out
            if [ $status = OK ] && [ $baseline = 0 ]; then
                # reach was loaded by every rank, and used the network where
                # the path crosses one. (A rank's line may follow another
                # rank's unfinished one: mpiexec merges their outputs.)
                stats=$(grep -o 'reach stats rank [0-9]*: .*' "$out" || true)
                ranks=$(printf '%s\n' "$stats" | awk 'NF {print $4}' | sort -u | awk 'END {print NR}')
                silent=$(printf '%s\n' "$stats" | awk '/ messages=0 / {n++} END {print n + 0}')
                if [ "$ranks" != "$np" ]; then
                    status="FAILED (reach's statistics from $ranks of $np ranks)"
                elif [ $path != node ] && [ "$silent" != 0 ]; then
                    status="FAILED ($silent ranks sent nothing over the network)"
                fi
            fi
            printf '%s\t%s\t%s\t%s\t%s\n' "$t" "$path" "$np" "$status" "$secs" >>"$results"
            printf '%-14s %-13s np %s  %-8s %6s s\n' "$t" "$path" "$np" "$status" "$secs"
            if [ "$status" != OK ]; then
                tail -20 "$dir/run.log"
                [ $baseline = 1 ] || failed=$((failed + 1))
            fi
        done
    done
done

# ---- the table -----------------------------------------------------------------------
commit=$(git rev-parse --short HEAD 2>/dev/null || echo "unknown commit")
python3 - "$results" "$work/results.md" "$commit" "$(date -u '+%Y-%m-%d %H:%M UTC')" <<'EOF'
import math
import sys
rows = [l.rstrip("\n").split("\t") for l in open(sys.argv[1]) if l.strip()]
cols = []
for _, path, np, _, _ in rows:
    if (path, np) not in cols:
        cols.append((path, np))
tests = list(dict.fromkeys(r[0] for r in rows))
cell = {(t, p, n): (s, secs) for t, p, n, s, secs in rows}
out = [f"NWChem's QA tests, scripts/nwchem.sh at {sys.argv[3]}, {sys.argv[4]}: wall seconds a test "
       "(runtests.mpi.unix's run and nwparse.pl's check), or how it failed.", "",
       "| test | " + " | ".join(f"{p} np {n}" for p, n in cols) + " |",
       "|---|" + "---|" * len(cols)]
for t in tests:
    row = []
    for p, n in cols:
        s, secs = cell.get((t, p, n), ("", ""))
        row.append(f"{secs} s" if s == "OK" else s)
    out.append(f"| {t} | " + " | ".join(row) + " |")
tot = []
for p, n in cols:
    c = [cell[(t, p, n)] for t in tests if (t, p, n) in cell]
    ok = sum(1 for s, _ in c if s == "OK")
    tot.append(f"{ok}/{len(c)}, {sum(float(x) for _, x in c):.1f} s")
out.append("| all | " + " | ".join(tot) + " |")
# ARMCI-MPI's time over reach's, test by test at the same count: the
# geometric mean and the worst test.
ratios = []
for p, n in cols:
    base = [(t, cell.get((t, "armci-mpi", n)), cell.get((t, p, n))) for t in tests]
    r = [(float(b[1]) / float(x[1]), t) for t, b, x in base
         if p not in ("armci-mpi", "debian") and b and x and b[0] == x[0] == "OK" and float(x[1]) > 0]
    if r:
        g = math.exp(sum(math.log(v) for v, _ in r) / len(r))
        w = min(r)
        ratios.append(f"{g:.2f}, worst {w[0]:.2f} ({w[1]})")
    else:
        ratios.append("")
out.append("| ARMCI-MPI / reach | " + " | ".join(ratios) + " |")
open(sys.argv[2], "w").write("\n".join(out) + "\n")
print("\n".join(out))
EOF
say "$failed of reach's runs failed; the table is in $work/results.md"
[ $failed -eq 0 ]

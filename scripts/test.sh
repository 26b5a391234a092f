#!/bin/sh
# The test suite in tiers (tests/CMakeLists.txt says which run is in which):
#
#   scripts/test.sh [-R REGEX] [PASS...]          the quick tier, about 5 min
#   scripts/test.sh --full [-R REGEX] [PASS...]   the matrix, every run
#   scripts/test.sh --rest [-R REGEX] [PASS...]   the matrix less what the
#                                                 quick tier runs (CI, after it)
#
# Each tier runs in passes, each in its own build folder:
#   default  gcc, MPICH (build/): quick: every test of the quick tier;
#            matrix: every test
#   asan     clang, AddressSanitizer + UndefinedBehaviorSanitizer, MPICH
#            (build-asan/): quick: the smoke tier; matrix: every test but
#            the "long" runs, the kill tests and the runs across emulated
#            machines, and the fuzz target of the argument checks for a
#            minute
#   tsan     gcc, ThreadSanitizer, MPICH (build-tsan/): the tests labelled
#            "tsan", where the server thread works beside the application
#   openmpi  gcc, Debian's Open MPI (build-openmpi/): the matrix only, every
#            test but the "long" runs and those across emulated machines
# -R REGEX runs only the tests whose names (PROGRAM.MODE.npN[.VARIANT], e.g.
# test_lock.net1.np4.ticket) match, within each pass's selection. A pass
# that fails to build or to test does not stop the others; a summary of
# every pass ends the output, and the status is non-zero if any failed.
cd "$(dirname "$0")/.." || exit 2
tier=quick select=""
case $1 in
--full) tier=full; shift ;;
--rest) tier=rest; shift ;;
esac
if [ "$1" = -R ]; then
    [ $# -ge 2 ] || { echo "scripts/test.sh: -R needs a regular expression" >&2; exit 2; }
    select="$2"
    shift 2
fi
if [ $tier = quick ]; then
    passes=${*:-default asan tsan}
else
    passes=${*:-default asan tsan openmpi}
fi
for pass in $passes; do
    case $pass in
    default|asan|tsan|openmpi) ;;
    *)
        echo "scripts/test.sh: unknown pass \"$pass\" (default, asan, tsan, openmpi)" >&2
        exit 2 ;;
    esac
done
matrix=ON
[ $tier = quick ] && matrix=OFF

# run_pass DIR CTEST_SELECTION -- CMAKE_ARGS...: configure, build, test.
# The passes select by labels (tests/CMakeLists.txt gives every test its
# own at registration); ctest matches a label by regular expression, so
# they are anchored: a test's program name is a label too. A new build
# folder starts from tests/cost-data.txt, the tests' times on the reference
# machine, so that ctest starts the longest first; ctest keeps it up to date.
run_pass() {
    dir=$1 labels=$2
    shift 3
    cmake -S . -B "$dir" -G Ninja -DREACH_TEST_MATRIX=$matrix "$@" >/dev/null && cmake --build "$dir" || return
    cost="$dir/Testing/Temporary/CTestCostData.txt"
    [ -f "$cost" ] || { mkdir -p "${cost%/*}" && cp tests/cost-data.txt "$cost"; }
    # shellcheck disable=SC2086  # $labels is a list of ctest arguments
    ctest --test-dir "$dir" --output-on-failure --no-tests=error -j2 $labels ${select:+-R "$select"}
}
summary="" failed=0
for pass in $passes; do
    echo "== test pass: $pass ($tier)"
    start=$(date +%s)
    # The pass's build folder and configuration, then what it runs of the tier.
    case $pass in
    default) dir=build; set -- ;;
    asan) dir=build-asan
          set -- -DCMAKE_C_COMPILER=clang -DREACH_SANITIZER=address -DREACH_FUZZ=ON -DREACH_BUILD_BENCH=OFF ;;
    tsan) dir=build-tsan; set -- -DREACH_SANITIZER=thread -DREACH_BUILD_BENCH=OFF ;;
    openmpi) dir=build-openmpi
             set -- -DMPI_C_COMPILER=/usr/bin/mpicc.openmpi -DMPIEXEC_EXECUTABLE=/usr/bin/mpirun.openmpi \
                 -DREACH_BUILD_BENCH=OFF ;;
    esac
    case $pass.$tier in
    default.rest) labels="-L ^matrix$" ;;
    default.*) labels="" ;;
    asan.quick) labels="-L ^smoke$" ;;
    asan.rest) labels="-LE ^(long|kill|smoke|machines)$" ;;
    asan.full) labels="-LE ^(long|kill|machines)$" ;;
    tsan.rest) labels="-L ^tsan$ -L ^matrix$" ;;
    tsan.*) labels="-L ^tsan$" ;;
    openmpi.*) labels="-LE ^(long|machines)$" ;;
    esac
    run_pass "$dir" "$labels" -- "$@"
    status=$?
    took=$(($(date +%s) - start))
    if [ $status -eq 0 ]; then
        result=passed
    else
        result="FAILED (status $status)"
        failed=$((failed + 1))
    fi
    summary="$summary$(printf '  %-8s %s in %d min %02d s' "$pass" "$result" $((took / 60)) $((took % 60)))
"
done
echo "== test passes, $tier tier${select:+ (tests matching $select)}:"
printf '%s' "$summary"
npass=$(echo $passes | wc -w)
echo "passes: $((npass - failed)) passed, $failed failed"
[ $failed -eq 0 ]

#!/bin/sh
# The whole test suite, in four passes, or those named; -R REGEX runs only
# the tests whose names (PROGRAM.MODE.npN[.VARIANT], e.g. test_lock.net1.np4
# and test_lock.net1.np4.ticket) match, in each pass, within the tests the
# pass selects by label (scripts/test.sh -R test_lock default openmpi):
#   default  gcc, MPICH: every test (build/)
#   asan     clang, AddressSanitizer + UndefinedBehaviorSanitizer, MPICH:
#            every test but the "long" runs and the kill tests, and the fuzz
#            target of the argument checks for a minute (build-asan/)
#   tsan     gcc, ThreadSanitizer, MPICH: the tests labelled "tsan", where
#            the server thread works beside the application (build-tsan/)
#   openmpi  gcc, Debian's Open MPI: every test but the "long" runs
#            (build-openmpi/)
# Each pass configures, builds and runs its own build folder. A pass that
# fails to build or to test does not stop the others; a summary of every
# pass ends the output, and the status is non-zero if any failed.
cd "$(dirname "$0")/.." || exit 2
select=""
if [ "$1" = -R ]; then
    [ $# -ge 2 ] || { echo "scripts/test.sh: -R needs a regular expression" >&2; exit 2; }
    select="$2"
    shift 2
fi
passes=${*:-default asan tsan openmpi}
for pass in $passes; do
    case $pass in
    default|asan|tsan|openmpi) ;;
    *)
        echo "scripts/test.sh: unknown pass \"$pass\" (default, asan, tsan, openmpi)" >&2
        exit 2 ;;
    esac
done

# run_pass DIR CTEST_SELECTION -- CMAKE_ARGS...: configure, build, test.
# The passes select by labels (tests/CMakeLists.txt gives every test its
# own at registration); ctest matches a label by regular expression, so
# they are anchored: a test's program name is a label too.
run_pass() {
    dir=$1 labels=$2
    shift 3
    cmake -S . -B "$dir" -G Ninja "$@" >/dev/null && cmake --build "$dir" &&
        ctest --test-dir "$dir" --output-on-failure --no-tests=error -j2 $labels ${select:+-R "$select"}
}
summary="" failed=0
for pass in $passes; do
    echo "== test pass: $pass"
    start=$(date +%s)
    case $pass in
    default)
        run_pass build "" -- ;;
    asan)
        run_pass build-asan "-LE ^(long|kill)$" -- -DCMAKE_C_COMPILER=clang -DREACH_SANITIZER=address \
            -DREACH_FUZZ=ON -DREACH_BUILD_BENCH=OFF ;;
    tsan)
        run_pass build-tsan "-L ^tsan$" -- -DREACH_SANITIZER=thread -DREACH_BUILD_BENCH=OFF ;;
    openmpi)
        run_pass build-openmpi "-LE ^long$" -- -DMPI_C_COMPILER=/usr/bin/mpicc.openmpi \
            -DMPIEXEC_EXECUTABLE=/usr/bin/mpirun.openmpi -DREACH_BUILD_BENCH=OFF ;;
    esac
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
echo "== test passes${select:+ (tests matching $select)}:"
printf '%s' "$summary"
npass=$(echo $passes | wc -w)
echo "passes: $((npass - failed)) passed, $failed failed"
[ $failed -eq 0 ]

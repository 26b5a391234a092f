#!/bin/sh
# The whole test suite, in four passes (or those named: scripts/test.sh
# default tsan):
#   default  gcc, MPICH: every test (build/)
#   asan     clang, AddressSanitizer + UndefinedBehaviorSanitizer, MPICH:
#            every test but the "long" runs and the kill tests, and the fuzz
#            target of the argument checks for a minute (build-asan/)
#   tsan     gcc, ThreadSanitizer, MPICH: the tests labelled "tsan", where
#            the server thread works beside the application (build-tsan/)
#   openmpi  gcc, Debian's Open MPI: every test but the "long" runs
#            (build-openmpi/)
# Each pass configures, builds and runs its own build folder; the first
# failure stops the script with a non-zero status.
set -e
cd "$(dirname "$0")/.."
run() {
    dir=$1
    shift
    cmake -S . -B "$dir" -G Ninja "$@" >/dev/null
    cmake --build "$dir"
}
for pass in ${*:-default asan tsan openmpi}; do
    echo "== test pass: $pass"
    case $pass in
    default)
        run build
        ctest --test-dir build --output-on-failure -j2 ;;
    asan)
        CC=clang run build-asan -DREACH_SANITIZER=address -DREACH_FUZZ=ON -DREACH_BUILD_BENCH=OFF
        ctest --test-dir build-asan --output-on-failure -j2 -LE "long|kill" ;;
    tsan)
        run build-tsan -DREACH_SANITIZER=thread -DREACH_BUILD_BENCH=OFF
        ctest --test-dir build-tsan --output-on-failure -j2 -L tsan ;;
    openmpi)
        run build-openmpi -DMPI_C_COMPILER=/usr/bin/mpicc.openmpi \
            -DMPIEXEC_EXECUTABLE=/usr/bin/mpirun.openmpi -DREACH_BUILD_BENCH=OFF
        ctest --test-dir build-openmpi --output-on-failure -j2 -LE long ;;
    *)
        echo "scripts/test.sh: unknown pass \"$pass\" (default, asan, tsan, openmpi)" >&2
        exit 2 ;;
    esac
done

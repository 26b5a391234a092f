#!/bin/sh
# install_check.sh BUILD_DIR SOURCE_DIR MPIEXEC MPICC [MPIEXEC FLAGS...]:
# installs reach into a temporary prefix and uses it as a user does, with
# LD_LIBRARY_PATH unset throughout: the installed reach-info runs; programs
# build against the prefix through find_package(reach), through pkg-config
# with mpicc, and through pkg-config with the plain C compiler (a Global
# Arrays-style program, one that calls MPI_Init itself, and a Global Arrays
# program linked with Debian's prebuilt Global Arrays, GA_LIBRARY in the
# environment where the build found it, whose ScaLAPACK is that of GA_MPI),
# and run on 2 processes; ARMCI's headers lie in a directory of their own;
# the pkg-config files name a run path outside /usr and /usr/local only;
# the shared libraries export only public names; the prefix
# still works after it is moved, and the installed reach-bench (where
# built) writes its report from another folder.
set -e
build=$1 src=$2 mpiexec=$3 mpicc=$4
shift 4
unset LD_LIBRARY_PATH
top=$(mktemp -d)
top=$(cd "$top" && pwd -P)   # as /proc/self/exe names it
trap 'rm -rf "$top"' EXIT
prefix=$top/prefix
fail() { echo "install_check: FAILED: $*"; exit 1; }
run2() { exe=$1; shift; "$mpiexec" "$@" -n 2 "$exe"; }
cmake --install "$build" --prefix "$prefix" >/dev/null
for h in reach.h reach_mpi.h reach_version.h reach/armci/armci.h reach/armci/armcix.h \
         reach/armci/parmci.h reach/armci/message.h; do
  test -f "$prefix/include/$h" || fail "missing include/$h"
done
# ARMCI's headers have a directory of their own: none lies where Debian's
# ARMCI-MPI puts its own (the prefix's include/).
for h in armci.h armcix.h parmci.h message.h; do
  test ! -e "$prefix/include/$h" || fail "include/$h would collide with ARMCI-MPI's"
done
libdir=$(ls -d "$prefix"/lib*/ | head -n 1)
libdir=${libdir%/}
for f in libreach.so libreach.a libarmci.so libarmci.a pkgconfig/reach.pc pkgconfig/armci.pc \
         cmake/reach/reachConfig.cmake; do
  test -e "$libdir/$f" || fail "missing $libdir/$f"
done

"$prefix/bin/reach-info" >/dev/null || fail "the installed reach-info does not run"

# The pkg-config files give the linker a run path to an install outside the
# system's prefixes, and none to one in /usr (staged with DESTDIR).
grep -q -- "-Wl,-rpath" "$libdir/pkgconfig/reach.pc" || fail "reach.pc has no run path in $prefix"
DESTDIR=$top/staged cmake --install "$build" --prefix /usr >/dev/null
for pc in reach armci; do
  f=$(ls "$top"/staged/usr/lib*/pkgconfig/$pc.pc "$top"/staged/usr/lib/*/pkgconfig/$pc.pc 2>/dev/null | head -n 1)
  test -n "$f" || fail "no $pc.pc staged for /usr"
  ! grep -q -- "-Wl,-rpath" "$f" || fail "$f (installed into /usr) names a run path"
done
rm -rf "$top/staged"

# find_package(reach): a reach.h program and an ARMCI program.
cmake -S "$src/tests/consumer" -B "$top/consumer" -DCMAKE_PREFIX_PATH="$prefix" \
      -DEXAMPLES="$src/examples" -DMPI_C_COMPILER="$mpicc" >/dev/null
cmake --build "$top/consumer" >/dev/null
for exe in "$top/consumer/consumer_counter" "$top/consumer/consumer_armci"; do
  run2 "$exe" "$@" || fail "$exe (CMake) does not run"
done

# pkg-config, with mpicc and with the plain C compiler.
export PKG_CONFIG_PATH="$libdir/pkgconfig"
"$mpicc" -o "$top/pc_counter" "$src/examples/counter.c" $(pkg-config --cflags --libs reach)
"$mpicc" -o "$top/pc_armci" "$src/examples/armci_hello.c" $(pkg-config --cflags --libs armci)
cc -o "$top/ga_only" "$src/tests/consumer/ga_only.c" $(pkg-config --cflags --libs armci)
cc -o "$top/mpi_first" "$src/tests/consumer/mpi_first.c" $(pkg-config --cflags --libs armci)
pc_programs="$top/pc_counter $top/pc_armci $top/ga_only $top/mpi_first"
if [ -n "$GA_LIBRARY" ]; then   # where the build found Global Arrays
  cc -o "$top/ga_basic" "$src/tests/consumer/ga_basic.c" "$GA_LIBRARY" $(pkg-config --cflags --libs armci) \
     -lscalapack-"$GA_MPI" -llapack -lblas -lgfortran -lm
  pc_programs="$pc_programs $top/ga_basic"
fi
for exe in $pc_programs; do
  run2 "$exe" "$@" || fail "$exe (pkg-config) does not run"
done

# Only public names leave the shared libraries.
bad=$(nm -D --defined-only "$libdir/libreach.so" | awk '{print $3}' | grep -v '^reach_' || true)
[ -z "$bad" ] || fail "libreach.so exports internal symbols: $bad"
bad=$(nm -D --defined-only "$libdir/libarmci.so" | awk '{print $3}' | grep -v -E '^(ARMCI_|PARMCI_|ARMCIX_|armci_|parmci_)' || true)
[ -z "$bad" ] || fail "libarmci.so exports internal symbols: $bad"

# A moved prefix: the tools find libreach, and libarmci finds its libreach,
# through $ORIGIN (libarmci loaded by a program that names neither library
# nor a run path: Debian's python3).
mv "$prefix" "$top/moved"
"$top/moved/bin/reach-info" >/dev/null || fail "reach-info does not run from a moved prefix"
/usr/bin/python3 -c 'import ctypes, sys; ctypes.CDLL(sys.argv[1])' \
  "$top/moved/${libdir#"$prefix"/}/libarmci.so" || fail "libarmci.so does not find its libreach.so"

# The installed reach-bench, from the moved prefix and another folder: it
# runs the report script the install put in share/reach (not the source
# tree's) and writes report.md and the plots; without the script it names
# where it looked.
if [ -x "$top/moved/bin/reach-bench" ]; then
  test -f "$top/moved/share/reach/reach-report.py" || fail "reach-report.py is not installed in share/reach"
  ! grep -qF "$src/tools/reach-report.py" "$top/moved/bin/reach-bench" ||
    fail "the installed reach-bench names the source tree's report script"
  mkdir "$top/elsewhere"
  (cd "$top/elsewhere" &&
    "$mpiexec" "$@" -n 2 "$top/moved/bin/reach-bench" --quick --max-size 64 --only sync --out results) ||
    fail "the installed reach-bench failed"
  test -s "$top/elsewhere/results/report.md" || fail "the installed reach-bench wrote no report"
  test -s "$top/elsewhere/results/sync-np2.png" || fail "the installed reach-bench drew no plot"
  rm "$top/moved/share/reach/reach-report.py"
  if "$top/moved/bin/reach-bench" --compare "$top/elsewhere/results" "$top/elsewhere/results" \
       2>"$top/err"; then
    fail "reach-bench --compare succeeded without its report script"
  fi
  cat "$top/err"
  grep -qF "looked for $top/moved/bin/reach-report.py and $top/moved/bin/../share/reach/reach-report.py" \
    "$top/err" || fail "reach-bench does not say where it looked for its report script"
fi

# The installed reach-scale and projection tool, from the moved prefix and
# another folder: calibrate, trace a barrier at 2 ranks each its own node,
# replay it with the installed reach-project.py (which finds its module
# beside it).
if [ -x "$top/moved/bin/reach-scale" ]; then
  (cd "$top/elsewhere" &&
    "$mpiexec" "$@" -n 2 "$top/moved/bin/reach-scale" --calibrate machine.json &&
    REACH_NODE_SIZE=1 "$mpiexec" "$@" -n 2 "$top/moved/bin/reach-scale" --out traces --iters 2 \
      --only barrier:combined &&
    /usr/bin/python3 "$top/moved/share/reach/reach-project.py" replay traces --params machine.json \
      --iters 2 --json >replay.json) || fail "the installed reach-scale or reach-project.py failed"
  grep -qF '"workload": "barrier:combined"' "$top/elsewhere/replay.json" ||
    fail "the installed reach-project.py replayed no barrier:combined"
fi

echo "install_check: passed"

#!/bin/sh
# install_check.sh BUILD_DIR SOURCE_DIR MPIEXEC MPICC: installs reach into a
# temporary prefix, then builds examples against it twice — through
# find_package(reach) and through pkg-config — runs them on 2 processes,
# builds a program written only against GA's armci.h/message.h, and
# checks that the shared libraries export only public names.
set -e
build=$1 src=$2 mpiexec=$3 mpicc=$4
prefix=$(mktemp -d)
trap 'rm -rf "$prefix"' EXIT
cmake --install "$build" --prefix "$prefix" >/dev/null
for h in reach.h reach_mpi.h armci.h armcix.h parmci.h message.h; do test -f "$prefix/include/$h"; done
libdir=$(ls -d "$prefix"/lib*/ | head -n 1)
for f in libreach.so libreach.a libarmci.so libarmci.a pkgconfig/reach.pc pkgconfig/armci.pc \
         cmake/reach/reachConfig.cmake; do
  test -e "$libdir/$f" || { echo "missing $libdir/$f"; exit 1; }
done

# find_package(reach)
cmake -S "$src/tests/consumer" -B "$prefix/consumer" -DCMAKE_PREFIX_PATH="$prefix" \
      -DEXAMPLES="$src/examples" -DMPI_C_COMPILER="$mpicc" >/dev/null
cmake --build "$prefix/consumer" >/dev/null
export LD_LIBRARY_PATH="$libdir${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
"$mpiexec" -n 2 "$prefix/consumer/consumer_counter"
"$mpiexec" -n 2 "$prefix/consumer/consumer_armci"

# pkg-config
export PKG_CONFIG_PATH="$libdir/pkgconfig"
"$mpicc" -o "$prefix/pc_armci" "$src/examples/armci_hello.c" $(pkg-config --cflags --libs armci)
"$mpicc" -o "$prefix/pc_counter" "$src/examples/counter.c" $(pkg-config --cflags --libs reach)
"$mpiexec" -n 2 "$prefix/pc_armci"
# A Global Arrays-style program: the C compiler and pkg-config alone.
cc -o "$prefix/ga_only" "$src/tests/consumer/ga_only.c" $(pkg-config --cflags --libs armci)
"$mpiexec" -n 2 "$prefix/ga_only"
"$mpiexec" -n 2 "$prefix/pc_counter"

# Only public names leave the shared libraries.
bad=$(nm -D --defined-only "$libdir/libreach.so" | awk '{print $3}' | grep -v '^reach_' || true)
[ -z "$bad" ] || { echo "libreach.so exports internal symbols: $bad"; exit 1; }
bad=$(nm -D --defined-only "$libdir/libarmci.so" | awk '{print $3}' | grep -v -E '^(ARMCI_|PARMCI_|ARMCIX_|armci_|parmci_)' || true)
[ -z "$bad" ] || { echo "libarmci.so exports internal symbols: $bad"; exit 1; }
echo "install_check: passed"

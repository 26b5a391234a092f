#!/bin/sh
# Installs the Debian 12 packages reach needs to build, test and benchmark.
# Run as root on a fresh machine. Every package is named here, the
# sanitizer runtime (libclang-rt-14-dev, only a Recommends of clang) among
# them: installation leaves Recommends out, so that a missing name fails on
# a fresh machine (scripts/fresh-check.sh) and not only on one set up by
# hand.
set -e
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq --no-install-recommends \
    build-essential cmake ninja-build pkg-config \
    mpich libmpich-dev libucx-dev libfabric-dev \
    openmpi-bin libopenmpi-dev \
    clang libclang-rt-14-dev clang-format \
    procps python3 python3-matplotlib ucx-utils libfabric-bin iproute2 util-linux \
    libglobalarrays-dev libarmci-mpi-dev \
    libscalapack-mpich-dev libscalapack-openmpi-dev libopenblas-dev libgfortran-12-dev \
    gfortran dpkg-dev nwchem-mpich \
    mmdebstrap >/dev/null
# Global Arrays as Debian builds it (libga-mpich.a, libga-openmpi.a) and the
# ARMCI it was built against (ARMCI-MPI) are the consumer tests' programs
# and ga-bench's baseline; linking them needs ScaLAPACK, LAPACK, BLAS and
# the Fortran runtime.
# scripts/nwchem.sh builds NWChem from Debian's source package (gfortran,
# dpkg-source) and runs Debian's prebuilt nwchem-mpich as its baseline.
# ucx-utils (ucx_perftest) and libfabric-bin (fi_pingpong) measure the two
# networks' own round trips that docs/benchmarks.md sets beside reach's.
# iproute2 (ip, tc) and util-linux (unshare) make the emulated machines of
# scripts/two-machines.sh and tests/machines/mtu1500.sh.
# clang-format checks the formatting of the sources (scripts/format.sh).
# Both MPIs are installed (the tests also run under Open MPI); MPICH stays
# the default mpicc, mpiexec and mpi.h, which Open MPI would otherwise take.
update-alternatives --quiet --set mpi /usr/bin/mpicc.mpich
update-alternatives --quiet --set mpirun /usr/bin/mpirun.mpich
update-alternatives --quiet --set mpi-x86_64-linux-gnu /usr/include/x86_64-linux-gnu/mpich

#!/bin/sh
# Installs the Debian 12 packages reach needs to build, test and benchmark.
# Run as root on a fresh machine.
set -e
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq --no-install-recommends \
    build-essential cmake ninja-build pkg-config \
    mpich libmpich-dev libucx-dev \
    procps python3-matplotlib >/dev/null

#!/bin/sh
# scripts/fresh-check.sh: does the README's set-up work on a machine that
# has nothing yet? Makes a clean Debian 12 root from Debian's packages
# (mmdebstrap, minbase), copies this tree in (the files git tracks and the
# new ones it does not ignore), and inside it, with a clean environment:
# first, with only a compiler, CMake, MPICH and UCX installed, builds and
# installs reach without tests, and with tests (Global Arrays' skipped,
# said at configure) passes the smoke tier; then with libfabric added, a
# build with libfabric as its only network passes it too; then it
# runs scripts/install-deps.sh, runs the main job's quick form
# (scripts/bench.sh --quick) and checks its reports and plots and that it
# wrote nothing outside build/ and reach-results/, and runs a short but
# real subset of every test pass (default,
# asan, tsan, openmpi). A package that the build or the tests need and
# install-deps.sh does not name fails here. Run as root (it chroots); the
# root is made under $TMPDIR (default /var/tmp) and removed afterwards
# (REACH_FRESH_KEEP=1 keeps it). The packages come from the sources this
# machine's apt uses.
set -eu
src=$(cd "$(dirname "$0")/.." && pwd)
say() { echo "fresh-check: $*"; }
fail() { say "FAILED: $*" >&2; exit 1; }
[ "$(id -u)" -eq 0 ] || fail "run as root (it makes a Debian root and chroots into it)"
command -v mmdebstrap >/dev/null || fail "mmdebstrap is missing: run scripts/install-deps.sh first"
git -C "$src" rev-parse --git-dir >/dev/null 2>&1 || fail "$src is not a git checkout"

# The tests of each pass run here (of the quick tier): unit tests,
# puts/gets/accumulates and ARMCI on one node and through UCX and libfabric,
# a Global Arrays program and the ABI check against ARMCI-MPI's headers, the
# install check, shared-memory clean-up (in a /dev/shm of its own, beside
# another job's files) after kill -9, a rank killed in a barrier, the tools.
subset='^([a-z_]+\.unit\.|(test_rma|test_armci|ga_basic)\.(mpi|net1)\.np2$|test_rma\.ofi1\.np2$|install\.|abi\.|test_shm_child\.mpi\.np4\.(normal|kill)$|test_peer_loss\.mpi\.np4\.barrier\.kill$|reach-info\.serial\.np1$)'

start=$(date +%s)
root=$(mktemp -d "${TMPDIR:-/var/tmp}/reach-fresh.XXXXXX")
cleanup() {
    # Every mount lived in a namespace of its own and is gone; stay on this
    # file system all the same.
    [ "${REACH_FRESH_KEEP:-0}" = 1 ] && { say "the root is kept in $root"; return; }
    rm -rf --one-file-system "$root"
}
trap cleanup EXIT
trap 'exit 130' INT TERM HUP

# Debian's archive as this machine's apt reaches it (its mirror or proxy),
# and nothing else it may list; mmdebstrap's default mirror if none.
sources=""
for f in /etc/apt/sources.list /etc/apt/sources.list.d/*.list /etc/apt/sources.list.d/*.sources; do
    [ -s "$f" ] && grep -q -E '^[^#]*debian\.org' "$f" && sources="$sources $f"
done
say "making a clean Debian 12 root in $root"
# In a mount namespace, so that mmdebstrap's mounts in the root cannot
# outlive it.
# shellcheck disable=SC2086  # one argument per sources file
unshare --mount mmdebstrap --quiet --variant=minbase bookworm "$root" $sources ||
    fail "mmdebstrap could not make the root"
mkdir "$root/reach"
(cd "$src" && git ls-files -z --cached --others --exclude-standard >"$root/files" &&
    tar --null -T "$root/files" -cf "$root/tree.tar") || fail "cannot pack the tree"
tar -C "$root/reach" -xf "$root/tree.tar" || fail "cannot unpack the tree in the root"
rm "$root/files" "$root/tree.tar"
made=$(date +%s)
say "root made and tree copied in $((made - start)) s"

# What runs inside the root, as a user of a fresh machine would.
cat >"$root/fresh-inside.sh" <<'EOF_INSIDE'
set -e
cd /reach
step() { echo "fresh-check: $1 took $(( $(date +%s) - t )) s"; t=$(date +%s); }
t=$(date +%s)
# A packager's machine: MPI and one network library, nothing for the tests.
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq --no-install-recommends build-essential cmake ninja-build pkg-config \
    mpich libmpich-dev libucx-dev >/dev/null
step "the packages of a build with MPICH and UCX only"
cmake -S . -B /tmp/no-tests -G Ninja -DBUILD_TESTING=OFF >/dev/null
cmake --build /tmp/no-tests >/dev/null
cmake --install /tmp/no-tests --prefix /tmp/no-tests-prefix >/dev/null
test -f /tmp/no-tests-prefix/include/reach.h
cmake -S . -B /tmp/min -G Ninja >/tmp/min.log
if ! grep -q "^-- Global Arrays not found" /tmp/min.log; then
    cat /tmp/min.log
    echo "fresh-check: FAILED: configure does not say that Global Arrays is missing"
    exit 1
fi
cmake --build /tmp/min >/dev/null
cmake --install /tmp/min --prefix /tmp/min-prefix >/dev/null
ctest --test-dir /tmp/min -L '^smoke$' -j2 --output-on-failure --no-tests=error
step "MPICH and UCX only: built, installed, with tests the smoke tier"
apt-get install -y -qq --no-install-recommends libfabric-dev >/dev/null
cmake -S . -B /tmp/min-ofi -G Ninja -DREACH_WITH_UCX=OFF >/dev/null
cmake --build /tmp/min-ofi >/dev/null
ctest --test-dir /tmp/min-ofi -L '^smoke$' -j2 --output-on-failure --no-tests=error
step "libfabric as the only network: the smoke tier"
rm -rf /tmp/no-tests /tmp/no-tests-prefix /tmp/min /tmp/min-prefix /tmp/min-ofi
scripts/install-deps.sh
step "scripts/install-deps.sh"
# The README's first command, in its quick form: it builds, writes its
# report, plots and scale report under reach-results/, and nothing else
# outside build/.
touch /tmp/before-bench
if ! scripts/bench.sh --quick >/tmp/bench.log 2>&1; then
    cat /tmp/bench.log
    echo "fresh-check: FAILED: scripts/bench.sh --quick"
    exit 1
fi
grep "^== bench: .* took" /tmp/bench.log
for f in report.md ga-np2.png sync-np2.png scale.md scale/barrier.svg busy-mpi/ga-np2.png busy-cpu/condition; do
    test -s "reach-results/$f" || { echo "fresh-check: FAILED: scripts/bench.sh --quick wrote no reach-results/$f"; exit 1; }
done
# Its opening screen has a row for each condition the job measured.
for what in "one machine |" "one machine, beside another job"; do
    grep -q "^| $what" reach-results/report.md ||
        { echo "fresh-check: FAILED: report.md's opening screen has no row for \"$what\""; exit 1; }
done
written=$(find . -path ./build -prune -o -path ./reach-results -prune -o -newer /tmp/before-bench -type f -print)
if [ -n "$written" ]; then
    echo "fresh-check: FAILED: scripts/bench.sh wrote outside build/ and reach-results/: $written"
    exit 1
fi
step "scripts/bench.sh --quick"
scripts/test.sh -R "$1" default asan tsan openmpi
step "the test subset"
EOF_INSIDE

# In a mount and PID namespace of its own: /dev, /sys, a fresh /proc and
# an empty /dev/shm for the root, all gone with the namespace. The root is
# made a mount point of its own, so that inside it the tests can make
# mount namespaces too (tests/private_shm.sh).
unshare --mount --pid --fork sh -c '
    set -e
    mount --bind "$1" "$1"
    mount --rbind /dev "$1/dev"
    mount -t tmpfs none "$1/dev/shm"
    mount --rbind /sys "$1/sys"
    mount -t proc proc "$1/proc"
    exec chroot "$1" env -i PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
        HOME=/root LANG=C.UTF-8 /bin/sh /fresh-inside.sh "$2"
' sh "$root" "$subset" || fail "see above"
say "passed in $(( $(date +%s) - start )) s"

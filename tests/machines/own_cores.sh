#!/bin/sh
# own_cores.sh HARNESS TEST_RMA: scripts/two-machines.sh --own-cores (HARNESS)
# binds machine i's processes to core (i - 1) mod the host's cores. Three
# machines of two ranks each report where they may run, which must be
# that core (on a 2-core host machine 3 shares core 0 with machine 1);
# then test_rma passes at 1+1 with the machines so bound.
harness=$1 rma=$2
out=$(mktemp)
trap 'rm -f "$out"' EXIT
fail() { echo "own_cores: FAILED: $*"; exit 1; }
"$harness" --own-cores --machines 3 -n 6 sh -c 'echo "on $(hostname) $(sed -n "s/^Cpus_allowed_list:\t*//p" /proc/self/status)"' >"$out" 2>&1
status=$?
cat "$out"
[ $status -ne 77 ] || exit 77
[ $status -eq 0 ] || fail "exit status $status"
cores=$(nproc)
for m in 1 2 3; do
    want=$(((m - 1) % cores))
    got=$(sed -n "s/^on m$m //p" "$out" | sort -u)
    [ "$(sed -n "s/^on m$m //p" "$out" | wc -l)" -eq 2 ] || fail "machine m$m reported $(grep -c "^on m$m " "$out") ranks, not 2"
    [ "$got" = "$want" ] || fail "machine m$m may run on cores '$got', not core $want alone"
done
"$harness" --own-cores -n 2 "$rma" || fail "test_rma at 1+1 on machines bound to their cores"
echo "own_cores: passed"

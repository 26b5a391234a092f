#!/bin/sh
# link_down.sh lost|survive HARNESS TEST_STRESS: test_stress at 2+2 ranks
# on two emulated machines (HARNESS is scripts/two-machines.sh) while the
# second machine's link goes down 3 s after the start.
#   lost     down for 20 s, REACH_PEER_TIMEOUT=1: the job must end by
#            itself (non-zero) within 12 s of the start, a rank naming the
#            ranks beyond the link as not answering the watch's ping.
#   survive  down for 3 s, REACH_PEER_TIMEOUT=10: the job must ride it
#            out and pass its checks.
how=$1 harness=$2 stress=$3
out=$(mktemp)
trap 'rm -f "$out"' EXIT
fail() { echo "link_down $how: FAILED: $*"; exit 1; }
start=$(date +%s)
case $how in
lost)
    REACH_PEER_TIMEOUT=1 "$harness" --timeout 60 --link-down 3:20 -n 4 "$stress" --seconds 30 >"$out" 2>&1 ;;
survive)
    REACH_PEER_TIMEOUT=10 "$harness" --timeout 60 --link-down 3:3 -n 4 "$stress" --seconds 10 >"$out" 2>&1 ;;
*)
    echo "usage: link_down.sh lost|survive HARNESS TEST_STRESS" >&2
    exit 2 ;;
esac
status=$?
took=$(($(date +%s) - start))
grep -v '^ok' "$out"
[ $status -ne 77 ] || exit 77
grep -q "two-machines.sh: left in" "$out" && fail "files left in a machine's /dev/shm"
if [ "$how" = lost ]; then
    [ $status -ne 0 ] || fail "exit status 0, expected a failure"
    [ $status -ne 124 ] || fail "the job hung until the harness's limit"
    grep -q "ranks* \([0-9]* (pid [0-9]*), \)*[23] (pid [0-9]*).*cannot be reached (the network reports: .*has not answered the watch's ping" "$out" ||
        fail "no rank named the ranks beyond the link as not answering"
    [ "$took" -le 12 ] || fail "the job took $took s to end"
else
    [ $status -eq 0 ] || fail "exit status $status"
    grep -q "test_stress: passed" "$out" || fail "test_stress did not pass"
fi
echo "link_down $how: passed in $took s"

#!/bin/sh
# shm_cleanup.sh MODE CHILD MPIEXEC [FLAGS...]: runs test_shm_child on 4
# processes and checks how it ended and that /dev/shm holds no file that was
# not there before (reach's memory never has a name there; this proves it
# for a normal exit, an abort and kill -9). The count is this job's own: see
# private_shm.sh.
#
# Mode foreign checks that the count is this job's alone: a normal run
# while another job's files (one MPICH-like, one of any name) appear in the
# real /dev/shm, which must not count; it fails where no /dev/shm of the
# test's own can be made, or if the files never appeared.
. "$(dirname "$0")/private_shm.sh"
if [ "$1" = foreign ] && [ -z "$SHM_CHECK_PRIVATE" ]; then
  foreign="/dev/shm/mpich_shar_tmp.foreign.$$ /dev/shm/other-job.foreign.$$"
  (sleep 0.3; touch $foreign) &
  shm_private "$@" || { echo "shm.foreign: FAILED: no mount namespace (needs root or user namespaces)"; exit 1; }
  wait
  ls $foreign >/dev/null 2>&1 || { echo "shm.foreign: FAILED: the other job's files did not appear"; shm_status=1; }
  rm -f $foreign
  exit $shm_status
fi
if shm_private "$@"; then exit $shm_status; fi
mode=$1 child=$2 mpiexec=$3
shift 3
before=$(mktemp) after=$(mktemp) out=$(mktemp)
trap 'rm -f "$before" "$after" "$out"' EXIT
shm_names >"$before"

env=""
case $mode in
  limit) env="REACH_SHM_LIMIT=16m" ;;
  arena) env="REACH_ARENA_SIZE=16m" ;;
  badenv) env="REACH_SPIN_COUNT=lots" ;;
esac
env $env timeout 100 "$mpiexec" "$@" -n 4 "$child" "$mode" >"$out" 2>&1
status=$?
cat "$out"
fail() { echo "shm.$mode: FAILED: $*"; exit 1; }

case $mode in
  normal|foreign|shortage|limit|arena|badenv) [ $status -eq 0 ] || fail "exit status $status, expected 0" ;;
  abort|abort0|kill) [ $status -ne 0 ] && [ $status -ne 124 ] || fail "exit status $status, expected a failure" ;;
esac
case $mode in
  normal|foreign|abort|abort0|kill)
    [ "$(grep -c 'segment shared' "$out")" -ge 3 ] || fail "the ranks did not share their segments" ;;
esac
case $mode in
  abort) grep -q 'test abort' "$out" || fail "no abort message" ;;
  abort0) grep -q 'test abort with code 0' "$out" || fail "no abort message" ;;
  shortage) grep -q 'asked .* available' "$out" || fail "the error does not say what was asked and what is available" ;;
  limit) grep -q 'asked .*REACH_SHM_LIMIT.* available' "$out" || fail "the error does not name the limit" ;;
  arena) grep -q 'asked 64.0 MiB, the arena has no free range .*REACH_ARENA_SIZE' "$out" || fail "the error does not name the arena size" ;;
  badenv) grep -q 'REACH_SPIN_COUNT="lots"' "$out" || fail "the error does not name the variable" ;;
esac

sleep 1  # let the killed job's processes go
shm_names >"$after"
new=$(comm -13 "$before" "$after")
[ -z "$new" ] || fail "left in /dev/shm: $new"
echo "shm.$mode: passed"

#!/bin/sh
# peer_loss.sh WAIT HOW CHILD MPIEXEC [FLAGS...]: runs test_peer_loss on 4
# processes. Rank 1 ends as HOW says while the others wait for it in WAIT;
# checks that the job ends by itself well within the script's limit, with
# reach's message naming rank 1, and that /dev/shm holds no file that was
# not there before.
#
# peer_loss.sh report none CHILD MPIEXEC...: checks the deadlock help:
# with REACH_WAIT_REPORT=1 each waiting rank says once per wait what it
# waits for and who holds it, and the job then completes. With every rank
# its own node (REACH_NODE_SIZE=1) a waiter knows a rank of another node
# ahead of it, not whether that one holds the mutex, and one queued by the
# mutex's server behind a rank of its node says so.
. "$(dirname "$0")/private_shm.sh"
if shm_private "$@"; then exit $shm_status; fi
wait=$1 how=$2 child=$3 mpiexec=$4
shift 4
before=$(mktemp) after=$(mktemp) out=$(mktemp)
trap 'rm -f "$before" "$after" "$out"' EXIT
fail() { echo "peer_loss $wait $how: FAILED: $*"; exit 1; }
shm_names >"$before"

# Keep the launcher from ending the job itself when a rank ends early, so
# that what ends it is reach's check: MPICH's launcher ends the whole job
# about a second after a process ends without MPI_Finalize, even with
# -disable-auto-cleanup, so there each rank runs under a shell that stays
# after it (the survivors' MPI_Abort takes the shells too); Open MPI's,
# with recovery on, waits (and then exits with status 0 even after
# MPI_Abort, so there the status is not checked).
#
# A rank that calls exit(0) says so and ends the job itself from reach's
# exit handler; one that calls exit(3) says so and the launcher ends the
# job, as it does after MPI_Abort: these run under every launcher as it
# comes (no flags), and the status must be non-zero.
status_checked=1
case $how:$("$mpiexec" --version 2>&1) in
  exit:*|exit3:*|mpi_abort:*) keep="" linger=true ;;
  *HYDRA*) keep="-disable-auto-cleanup" linger="sleep 100" ;;
  *"Open MPI"*|*OpenRTE*) keep="--mca orte_enable_recovery 1" linger=true status_checked=0 ;;
  *) keep="" linger=true ;;
esac

if [ "$wait" = report ]; then
  REACH_WAIT_REPORT=1 timeout 100 "$mpiexec" "$@" -n 4 "$child" report >"$out" 2>&1
  status=$?
  cat "$out"
  [ $status -eq 0 ] || fail "exit status $status, expected 0"
  [ "$(grep -c 'done$' "$out")" -eq 4 ] || fail "not every rank completed"
  # Ranks 0, 2, 3 wait for the mutex (one holds it, rank 1 its first
  # holder), then all three for rank 1 in the barrier.
  n=$(grep -c 'has waited .* for mutex 0 of rank 0, .*REACH_WAIT_REPORT' "$out")
  [ "$n" -eq 3 ] || fail "$n mutex reports, expected 3 (one per waiting rank)"
  ! grep -q 'do not record their holder' "$out" || fail "an mcs waiter's report names nobody ahead of it"
  if [ "${REACH_NODE_SIZE:-}" = 1 ]; then
    grep -Eq 'for mutex 0 of rank 0, (held by|queued behind) rank 1' "$out" ||
      fail "no report names rank 1, the holder"
    # Between nodes each names the rank whose signal it awaits, rank 1 or
    # a rank that awaits rank 1's.
    n=$(grep -c 'has waited .* in a barrier, for the signal of rank [0-9].*REACH_WAIT_REPORT' "$out")
    [ "$n" -eq 3 ] || fail "$n barrier reports naming a rank, expected 3"
    grep -q 'in a barrier, for the signal of rank 1;' "$out" || fail "no barrier report names rank 1"
  else
    grep -q 'for mutex 0 of rank 0, held by rank 1' "$out" || fail "no report names the holder, rank 1"
    n=$(grep -c 'has waited .* in a barrier.*not yet in it: rank 1[;)].*REACH_WAIT_REPORT' "$out")
    [ "$n" -eq 3 ] || fail "$n barrier reports naming rank 1, expected 3"
  fi
  echo "wait_report: passed"
  exit 0
fi

start=$(date +%s)
REACH_PEER_TIMEOUT=1 timeout 100 "$mpiexec" $keep "$@" -n 4 \
  sh -c '"$@"; s=$?; echo "test_peer_loss pid $$: exit status $s" >&2; '"$linger"'; exit $s' \
  sh "$child" "$wait" "$how" \
  >"$out" 2>&1
status=$?
took=$(($(date +%s) - start))
cat "$out"
# (across emulated machines: the harness could not run here, or found a
# file left in a machine's /dev/shm)
[ $status -ne 77 ] || exit 77
grep -q 'two-machines.sh: left in' "$out" && fail "a file left in a machine's /dev/shm"
[ $status -ne 0 ] || [ $status_checked -eq 0 ] || fail "exit status 0, expected a failure"
[ $status -ne 124 ] || fail "the job hung until the script's limit"
grep -q 'returned from the' "$out" && fail "a survivor returned from its wait"
if [ "$how" = exit ]; then
  grep -q 'reach: rank 1 (pid [0-9]*) ended without reach_finalize (exit status 0 .*); ending the job' "$out" ||
    fail "rank 1 did not say that it exited without reach_finalize"
elif [ "$how" = exit3 ]; then
  grep -q 'reach: rank 1 (pid [0-9]*) ended without reach_finalize (exit status 3 while reach is initialized)$' "$out" ||
    fail "rank 1 did not say that it exited without reach_finalize"
elif [ "$how" = mpi_abort ]; then
  grep -q 'ending the job' "$out" && fail "reach ended the job a second time after MPI_Abort"
else
  grep -q 'ranks* \([0-9]* (pid [0-9]*), \)*1 (pid [0-9]*).* ended without reach_finalize' "$out" ||
    fail "no survivor named the lost rank"
fi
[ "$took" -le 30 ] || fail "the job took $took s to end"
sleep 1  # let the ended job's processes go
shm_names >"$after"
new=$(comm -13 "$before" "$after")
[ -z "$new" ] || fail "left in /dev/shm: $new"
echo "peer_loss $wait $how: passed in $took s"

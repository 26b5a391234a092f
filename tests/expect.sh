#!/bin/sh
# expect.sh STATUS PATTERN... -- COMMAND [ARG...]: runs COMMAND and passes if
# it exits with STATUS (0, or "fail" for any other status) and exactly one
# line of its output (stdout and stderr) matches each PATTERN (grep -E), so
# that a message printed once per process instead of once per job fails.
status_wanted=$1
shift
patterns=
while [ $# -gt 0 ] && [ "$1" != -- ]; do
  patterns="$patterns$1
"
  shift
done
[ "$1" = -- ] && [ $# -gt 1 ] || { echo "usage: expect.sh STATUS PATTERN... -- COMMAND [ARG...]"; exit 2; }
shift
out=$(mktemp)
trap 'rm -f "$out"' EXIT
"$@" >"$out" 2>&1
status=$?
cat "$out"
fail() { echo "expect.sh: FAILED: $*"; exit 1; }
case $status_wanted in
  0) [ $status -eq 0 ] || fail "exit status $status, expected 0" ;;
  fail) [ $status -ne 0 ] || fail "exit status 0, expected a failure" ;;
  *) echo "expect.sh: STATUS is 0 or fail, not $status_wanted"; exit 2 ;;
esac
printf '%s' "$patterns" | while IFS= read -r pattern; do
  n=$(grep -cE -e "$pattern" "$out")
  [ "$n" -eq 1 ] || fail "$n lines match '$pattern', expected 1"
done || exit 1
echo "expect.sh: passed"

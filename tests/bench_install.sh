#!/bin/sh
# bench_install.sh BUILD_DIR SOURCE_DIR MPIEXEC [MPIEXEC FLAGS...]: installs
# reach into a temporary prefix, moves the prefix and runs the installed
# reach-bench from another folder, as a user does: it runs the report
# script the install put beside it (<bindir>/../share/reach), not the
# source tree's, and writes report.md and the plots; without the script it
# names where it looked.
set -e
build=$1 src=$2 mpiexec=$3
shift 3
unset LD_LIBRARY_PATH
top=$(mktemp -d)
trap 'rm -rf "$top"' EXIT
top=$(cd "$top" && pwd -P)
fail() { echo "bench_install: FAILED: $*"; exit 1; }

cmake --install "$build" --prefix "$top/prefix" >/dev/null
test -f "$top/prefix/share/reach/reach-report.py" || fail "reach-report.py is not installed in share/reach"
! grep -qF "$src/tools/reach-report.py" "$top/prefix/bin/reach-bench" ||
  fail "the installed reach-bench names the source tree's report script"
mv "$top/prefix" "$top/moved"

mkdir "$top/elsewhere"
cd "$top/elsewhere"
"$mpiexec" "$@" -n 2 "$top/moved/bin/reach-bench" --quick --max-size 64 --only sync --out results ||
  fail "the installed reach-bench failed"
test -s results/report.md || fail "the installed reach-bench wrote no report"
test -s results/sync-np2.png || fail "the installed reach-bench drew no plot"

rm "$top/moved/share/reach/reach-report.py"
if "$top/moved/bin/reach-bench" --compare results results 2>"$top/err"; then
  fail "reach-bench --compare succeeded without its report script"
fi
cat "$top/err"
grep -qF "looked for $top/moved/bin/reach-report.py and $top/moved/bin/../share/reach/reach-report.py" \
  "$top/err" || fail "reach-bench does not say where it looked for its report script"
echo "bench_install: passed"

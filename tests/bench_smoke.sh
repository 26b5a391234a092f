#!/bin/sh
# bench_smoke.sh REACH_BENCH OUT MPIEXEC [MPIEXEC FLAGS...]: reach-bench end
# to end, small: four experiments at 2 processes and one at 3 into one
# results folder; no progress line inside a table; every JSON file holds
# the machine's load before and after its experiment and the spread of
# every figure; the report with its plots and MPI-3 ratios; the comparison
# of the folder with itself.
set -e
bench=$1 out=$2 mpiexec=$3
shift 3
fail() { echo "bench_smoke: FAILED: $*"; exit 1; }
rm -rf "$out"

"$mpiexec" "$@" -n 2 "$bench" --quick --max-size 4096 --only sync,ga_sync,locks,win_latency \
  --out "$out" >"$out.log" 2>&1 || { cat "$out.log"; fail "the run at 2 processes"; }
cat "$out.log"
# A progress line with table lines right before and after it has landed
# inside a table.
awk '{ kind[NR] = /^reach-bench: \[/ ? "progress" : (NF ? "table" : "blank") }
     END {
       for (i = 2; i < NR; i++) {
         if (kind[i] != "progress" || kind[i - 1] == "progress") continue
         for (j = i; kind[j] == "progress"; j++) ;
         if (kind[i - 1] == "table" && kind[j] == "table") { print "line " i " is inside a table"; bad = 1 }
       }
       exit bad
     }' "$out.log" || fail "progress lines inside the tables"

"$mpiexec" "$@" -n 3 "$bench" --quick --only sync --out "$out" || fail "the run at 3 processes"

/usr/bin/python3 - "$out" <<'PY' || fail "the JSON files lack the load or the spread"
import glob, json, sys
for path in glob.glob(sys.argv[1] + "/*.json"):
    exp = json.load(open(path))
    for key in ("load_before", "load_after"):
        assert exp[key]["cores"] > 0 and len(exp[key]["loadavg"]) == 3, (path, key)
    for r in exp["results"]:
        assert r["min"] <= r["q1"] <= r["median"] <= r["q3"] <= r["max"], (path, r)
PY
test -s "$out/win_latency-np2.png" && test -s "$out/sync-np3.png" || fail "plots missing"
grep -q 'MPI-3 / reach direct' "$out/report.md" || fail "no MPI-3 ratios in the report"
grep -q 'Fetch-and-add.*(3 processes' "$out/report.md" || fail "no section for the run at 3 processes"

"$bench" --compare "$out" "$out" >"$out.compare" || fail "--compare"
cat "$out.compare"
grep -Eq 'geometric mean of [0-9]+ gains: 1.000' "$out.compare" || fail "--compare of a folder with itself"
! grep -Eq '[0-9]  (better|worse) +\(' "$out.compare" || fail "--compare finds a folder better or worse than itself"
echo "bench_smoke: passed"

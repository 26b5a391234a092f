#!/bin/sh
# own_cores.sh HARNESS TEST_RMA: scripts/two-machines.sh --own-cores (HARNESS)
# binds each machine's processes to CPUs of its own. Three machines of two
# ranks each report the CPUs they may run on. With N allowed CPUs, machine
# i must have the i-th of three equal shares of them. With N < 3 it must
# have CPU (i - 1) mod N: on 2 CPUs machine 3 shares machine 1's. Then
# test_rma must pass at 1+1 with the machines so bound.
harness=$1 rma=$2
out=$(mktemp)
trap 'rm -f "$out"' EXIT
fail() { echo "own_cores: FAILED: $*"; exit 1; }
# A CPU list ("0-2,5") one CPU a line.
expand() { tr ',' '\n' | awk -F- '{ for (c = $1; c <= ($2 == "" ? $1 : $2); c++) print c }'; }
allowed=$(sed -n 's/^Cpus_allowed_list:[[:space:]]*//p' /proc/self/status | expand)
n=$(echo "$allowed" | wc -l)
[ "$n" -ge 2 ] || { echo "own_cores: one CPU allowed here: nothing to bind apart"; exit 77; }
"$harness" --timeout 60 --own-cores --machines 3 -n 6 \
    sh -c 'echo "on $(hostname) $(sed -n "s/^Cpus_allowed_list:[[:space:]]*//p" /proc/self/status)"' >"$out" 2>&1
status=$?
cat "$out"
[ $status -ne 77 ] || exit 77
[ $status -eq 0 ] || fail "exit status $status"
share=$((n / 3))
for m in 1 2 3; do
    if [ $share -eq 0 ]; then
        want=$(echo "$allowed" | sed -n "$(((m - 1) % n + 1))p")
    else
        want=$(echo "$allowed" | sed -n "$(((m - 1) * share + 1)),$((m * share))p" | paste -sd,)
    fi
    lists=$(sed -n "s/^on m$m //p" "$out")
    ranks=$(echo "$lists" | grep -c .)
    [ "$ranks" -eq 2 ] || fail "machine m$m reported $ranks ranks, not 2"
    for list in $lists; do
        got=$(echo "$list" | expand | paste -sd,)
        [ "$got" = "$want" ] || fail "a rank of machine m$m may run on CPUs $got, not $want"
    done
done
"$harness" --timeout 120 --own-cores -n 2 "$rma" || fail "test_rma at 1+1 on machines bound to their CPUs"
echo "own_cores: passed"

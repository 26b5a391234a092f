#!/bin/bash
# two-machines.sh [OPTIONS] [MPIEXEC FLAGS] -n N PROGRAM [ARGS...]
#
# Runs an MPI program across emulated machines on this host, each with its
# own network, /dev/shm, /proc, process ids, System V IPC, host name and
# boot id, as separate machines have: reach (and MPI, and UCX) can then
# share nothing between machines that real clusters do not share. Needs
# root, iproute2 and util-linux (scripts/install-deps.sh); where it cannot
# run it says why and exits 77 (a skipped test), or 1 with
# TM_REQUIRED=1 (as CI sets it).
#
#   --machines M        emulated machines (default 2)
#   --placement P       block (default: machine 1 gets the first N/M ranks)
#                       or rr (round-robin: rank r on machine r mod M + 1)
#   --mtu BYTES         the link's MTU (default 1500, Ethernet's)
#   --rate RATE         a bandwidth cap on each machine's link (tc tbf,
#                       e.g. 1gbit)
#   --delay US          added one-way latency between machines, in
#                       microseconds, through tools/reach-relay (this
#                       kernel has no netem)
#   --link-down AT:FOR  the last machine's link goes down AT seconds after
#                       the start, for FOR seconds
#   --timeout S         ends the job (status 124) after S seconds (default
#                       600)
#   --own-cores         binds each machine's processes to CPUs of its
#                       own (taskset): M equal shares of the CPUs this
#                       script may use. With fewer CPUs than machines,
#                       machine i gets CPU (i - 1) mod their number.
#                       Without it a thread of one machine may hold the
#                       core that a thread of another waits for, which
#                       separate machines never do. (A binding asked of
#                       mpiexec, -bind-to, would replace it.)
#   --version           MPICH's mpiexec --version
# Other flags (-genv, -disable-auto-cleanup, ...) go to mpiexec. The
# machines are m1..mM, at 10.77.0.1..M; mpiexec runs at 10.77.0.254 in a
# network namespace of its own, joined to them by a bridge (or by the
# relay). Its proxies enter the machines through this script (hydra's
# ssh launcher, -launcher-exec), which unshares the namespaces of a
# machine there.
#
# Everything is removed when the script ends, is interrupted or times
# out; a run that was killed with SIGKILL leaves namespaces, processes and
# a folder in /tmp behind, which the next run removes (their owner's pid
# is in their names).
#
# MPICH 4.0.2 over UCX's tcp transport hangs in MPI_Finalize between
# machines in about 3 runs of 10 (UCX disconnecting its endpoints, UCX
# issue 8738): every rank runs with tests/machines/no_disconnect.c
# preloaded (TM_PRELOAD, default build/tests/libtm_no_disconnect.so),
# which completes those disconnects at once.
set -u

# ---- the launcher: hydra runs "$0 [-x] HOST COMMAND..." (TM_STATE set) ------------------
if [ -n "${TM_STATE:-}" ]; then
    while [ $# -gt 0 ] && [ "${1#-}" != "$1" ]; do shift; done
    host=$1
    shift
    ns=$TM_PREFIX-${host#m}
    pin="" # (--own-cores: machine i's CPUs are TM_OWN_CORES's i-th word)
    [ -n "${TM_OWN_CORES:-}" ] && pin="taskset -c $(echo "$TM_OWN_CORES" | cut -d' ' -f"${host#m}")"
    # (what the machine's processes leave in its /dev/shm, but MPICH's own
    # files, is written down for the harness to fail the job)
    exec ip netns exec "$ns" $pin unshare --mount --pid --ipc --uts --fork --mount-proc sh -c '
        mount -t tmpfs -o size=4g tm-shm /dev/shm || exit 1
        hostname "$1"
        mount --bind "$2" /proc/sys/kernel/random/boot_id || exit 1
        state=$3
        shift 3
        sh -c "$*"
        s=$?
        ls -A /dev/shm | grep -v "^mpich_shar_tmp" >"$state/left.$(hostname)"
        exit $s' sh "$host" "$TM_STATE/boot_id.$host" "$TM_STATE" "$@"
fi

here=$(cd "$(dirname "$0")" && pwd)
machines=2 placement=block mtu=1500 rate="" delay="" link_down="" limit=600 own_cores=""
np="" mpiexec_flags=()
usage() {
    echo "two-machines.sh: $*" >&2
    echo "usage: two-machines.sh [--machines M] [--placement block|rr] [--mtu B] [--rate R] [--delay US]" >&2
    echo "         [--link-down AT:FOR] [--timeout S] [--own-cores] [MPIEXEC FLAGS] -n N PROGRAM [ARGS...]" >&2
    exit 2
}
# (an option's value must follow it)
value() { [ "$1" -ge "$2" ] || usage "$3 needs a value"; }
while [ $# -gt 0 ]; do
    case $1 in
    --machines|--placement|--mtu|--rate|--delay|--link-down|--timeout|-n|-np)
        value $# 2 "$1"
        case $1 in
        --machines) machines=$2 ;;
        --placement) placement=$2 ;;
        --mtu) mtu=$2 ;;
        --rate) rate=$2 ;;
        --delay) delay=$2 ;;
        --link-down) link_down=$2 ;;
        --timeout) limit=$2 ;;
        *) np=$2 ;;
        esac
        shift 2 ;;
    --version) exec mpiexec --version ;;
    --own-cores) own_cores=1; shift ;;
    -genv|-env) value $# 3 "$1"; mpiexec_flags+=("$1" "$2" "$3"); shift 3 ;;
    -ppn|-bind-to|-map-by|-genvlist|-envlist|-wdir) value $# 2 "$1"; mpiexec_flags+=("$1" "$2"); shift 2 ;;
    --) shift; break ;;
    -*) mpiexec_flags+=("$1"); shift ;;
    *) break ;;
    esac
done
[ $# -gt 0 ] || usage "no program"
[ -n "$np" ] || usage "no -n N"
case $np in *[!0-9]*) usage "-n $np is not a number" ;; esac
case $machines in ''|*[!0-9]*) usage "--machines $machines is not a number" ;; esac
[ "$machines" -ge 2 ] && [ "$machines" -le 64 ] || usage "--machines must be 2 to 64"
[ $((np % machines)) -eq 0 ] || usage "-n $np is not a multiple of --machines $machines"
case $placement in block|rr) ;; *) usage "--placement is block or rr" ;; esac

skip() {
    echo "two-machines.sh: cannot run here: $*"
    [ "${TM_REQUIRED:-0}" = 1 ] && exit 1   # (CI)
    exit 77
}
[ "$(id -u)" -eq 0 ] || skip "needs root (network namespaces)"
for tool in ip unshare mpiexec ${own_cores:+taskset}; do
    command -v $tool >/dev/null || skip "no $tool (scripts/install-deps.sh)"
done
preload=${TM_PRELOAD:-$here/../build/tests/libtm_no_disconnect.so}
[ -r "$preload" ] || skip "no $preload (build reach's tests, or set TM_PRELOAD)"
if [ -n "$delay" ]; then
    relay=${TM_RELAY:-$here/../build/reach-relay}
    [ -x "$relay" ] || skip "no $relay (build reach, or set TM_RELAY)"
fi

# ---- set up --------------------------------------------------------------------------
# What runs that were killed left: their owner is gone. (A machine's
# processes die with it; the relay and the job, which run in the host's
# pid namespace, are named in the run's folder.)
for old in $(ip netns list | sed -n 's/^\(tm[0-9]*\)-h\b.*/\1/p'); do
    kill -0 "${old#tm}" 2>/dev/null && continue
    for n in $(ip netns list | awk '{print $1}' | grep "^$old-"); do
        pids=$(ip netns pids "$n" 2>/dev/null)
        [ -z "$pids" ] || kill -9 $pids 2>/dev/null
        ip netns del "$n" 2>/dev/null
    done
done
for old in /tmp/two-machines.tm*; do
    owner=${old#/tmp/two-machines.tm}
    [ -d "$old" ] && ! kill -0 "${owner%%.*}" 2>/dev/null || continue
    [ -s "$old/relay.pid" ] && kill "$(cat "$old/relay.pid")" 2>/dev/null
    rm -rf "$old"
done
# --own-cores: each machine's CPUs, a word each (CPU lists for taskset)
if [ -n "$own_cores" ]; then
    cpus=$(sed -n 's/^Cpus_allowed_list:[[:space:]]*//p' /proc/self/status | tr ',' '\n' |
        awk -F- '{ for (c = $1; c <= ($2 == "" ? $1 : $2); c++) print c }')
    [ "$(echo $cpus | wc -w)" -ge 1 ] || skip "--own-cores: no CPU list in /proc/self/status"
    own_cores=$(echo $cpus | awk -v m="$machines" '{
        share = int(NF / m)
        for (i = 0; i < m; i++) {
            list = ""
            if (share == 0)
                list = $(i % NF + 1)
            else
                for (k = i * share + 1; k <= (i + 1) * share; k++)
                    list = list (list == "" ? "" : ",") $k
            printf "%s%s", (i ? " " : ""), list
        }
    }')
fi
export TM_PREFIX=tm$$ TM_OWN_CORES=$own_cores
export TM_STATE
TM_STATE=$(mktemp -d "/tmp/two-machines.tm$$.XXXXXX") || exit 1
hub=$TM_PREFIX-h
relay_pid="" job_pid="" fault_pid=""
cleanup() {
    trap - EXIT INT TERM
    if [ -n "$fault_pid" ]; then   # the link-down timer's sleep, if it is in one, and the timer
        pkill -P "$fault_pid" 2>/dev/null
        kill "$fault_pid" 2>/dev/null
    fi
    [ -n "$job_pid" ] && kill -9 -- -"$job_pid" 2>/dev/null
    for i in $(seq "$machines") h; do
        pids=$(ip netns pids "$TM_PREFIX-$i" 2>/dev/null)
        [ -n "$pids" ] && kill -9 $pids 2>/dev/null
    done
    [ -n "$relay_pid" ] && kill "$relay_pid" 2>/dev/null && wait "$relay_pid" 2>/dev/null
    for i in $(seq "$machines") h; do ip netns del "$TM_PREFIX-$i" 2>/dev/null; done
    rm -rf "$TM_STATE"
}
trap cleanup EXIT
trap 'exit 143' INT TERM

# A step of the set-up, which must succeed.
setup() { "$@" || { echo "two-machines.sh: set-up failed: $*" >&2; exit 1; }; }
ip netns add "$hub" || skip "cannot make a network namespace"
setup ip -n "$hub" link set lo up
if [ -z "$delay" ]; then
    setup ip -n "$hub" link add br0 type bridge
    setup ip -n "$hub" link set br0 mtu "$mtu" up
    setup ip -n "$hub" addr add 10.77.0.254/24 dev br0
else
    taps=(h)
    for i in $(seq "$machines"); do taps+=("$i"); done
    "$relay" "$delay" $(printf "t$$-%s " "${taps[@]}") >"$TM_STATE/relay" 2>&1 &
    relay_pid=$!
    echo "$relay_pid" >"$TM_STATE/relay.pid"
    # (it runs in the host's namespace; its devices move into the machines)
    for _ in $(seq 50); do grep -q ready "$TM_STATE/relay" && break; sleep 0.1; done
    grep -q ready "$TM_STATE/relay" ||
        { cat "$TM_STATE/relay"; echo "two-machines.sh: reach-relay did not start" >&2; exit 1; }
    setup ip link set "t$$-h" netns "$hub"
    setup ip -n "$hub" link set "t$$-h" name eth0
    setup ip -n "$hub" link set eth0 mtu "$mtu" up
    setup ip -n "$hub" addr add 10.77.0.254/24 dev eth0
fi
for i in $(seq "$machines"); do
    ns=$TM_PREFIX-$i
    setup ip netns add "$ns"
    setup ip -n "$ns" link set lo up
    if [ -z "$delay" ]; then
        setup ip link add "v$$-$i" mtu "$mtu" type veth peer name eth0 netns "$ns"
        setup ip link set "v$$-$i" netns "$hub"
        setup ip -n "$hub" link set "v$$-$i" master br0 up
    else
        setup ip link set "t$$-$i" netns "$ns"
        setup ip -n "$ns" link set "t$$-$i" name eth0
    fi
    setup ip -n "$ns" link set eth0 mtu "$mtu" up
    setup ip -n "$ns" addr add "10.77.0.$i/24" dev eth0
    [ -z "$rate" ] || tc -n "$ns" qdisc add dev eth0 root tbf rate "$rate" burst 64kb latency 100ms ||
        { echo "two-machines.sh: tc tbf rate $rate failed" >&2; exit 1; }
    cat /proc/sys/kernel/random/uuid >"$TM_STATE/boot_id.m$i"
    if [ $placement = block ]; then
        echo "m$i:$((np / machines))" >>"$TM_STATE/machinefile"
    else
        echo "m$i:1" >>"$TM_STATE/machinefile"
    fi
done
for i in $(seq "$machines"); do   # (each link up before the proxies connect)
    for _ in $(seq 50); do
        ip -n "$TM_PREFIX-$i" -br link show eth0 | grep -q LOWER_UP && break
        sleep 0.1
    done
done

# ---- the job -------------------------------------------------------------------------
if [ -n "$link_down" ]; then
    (
        sleep "${link_down%%:*}"
        ip -n "$TM_PREFIX-$machines" link set eth0 down
        echo "two-machines.sh: m$machines's link down for ${link_down#*:} s" >&2
        sleep "${link_down#*:}"
        ip -n "$TM_PREFIX-$machines" link set eth0 up
        echo "two-machines.sh: m$machines's link up again" >&2
    ) &
    fault_pid=$!
fi
setsid ip netns exec "$hub" timeout -k 5 "$limit" \
    mpiexec -launcher ssh -launcher-exec "$here/two-machines.sh" -localhost 10.77.0.254 -f "$TM_STATE/machinefile" \
    -genv LD_PRELOAD "$preload" "${mpiexec_flags[@]}" -n "$np" "$@" &
job_pid=$!
wait "$job_pid"
status=$?
job_pid=""
for f in "$TM_STATE"/left.*; do
    [ -s "$f" ] || continue
    echo "two-machines.sh: left in ${f##*.}'s /dev/shm: $(tr '\n' ' ' <"$f")" >&2
    [ $status -ne 0 ] || status=1
done
exit $status

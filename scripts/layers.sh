#!/bin/sh
# The architecture's rules, checked (docs/architecture.md):
#  1. #include points down: armci -> include/ only; api -> sync -> core ->
#     transport -> boot -> base; src/init.c may include anything. Within
#     transport, each folder sees its own headers and transport/net.h (the
#     protocol, am/, also shm/'s operations, with which it serves); sync
#     and api include no transport header but through core/service.h.
#  2. Calls point down too, read from the objects (nm): the layer table
#     below says whose symbols an object may use. So sync and api call
#     nothing of transport (core/rma.h and core/service.h stand between),
#     a network backend calls only itself, boot and base, only the
#     backends call their network libraries, and no two files call each
#     other (but the files of transport/am/, the protocol, whose origin
#     and target halves serve each other while they wait).
#  3. Public entry points (reach_*) are defined only in api/ and init.c.
#  4. MPI is behind boot/: only boot/ and the ARMCI layer include <mpi.h>
#     (or reach_mpi.h) or call MPI (init.c and api/groups.c, whose public
#     calls take or give an MPI_Comm, name MPI's types through
#     boot/boot_mpi.h).
#  5. Files of two folders do not share a name.
#  6. No file of src/, bench/, tools/ or include/ is longer than 600 lines.
#  7. Where a rank is reached (its mapping, or the network) is decided in
#     core/rma.h alone: nothing else reads a peer's mapping (.map), and
#     nothing below the ARMCI layer (which may ask the public API) asks
#     reach_same_node.
#  8. docs/architecture.md's figure of the calls between folders is the
#     one the objects give (scripts/layers.sh --figure prints it), in a
#     build with both network backends.
# Usage: scripts/layers.sh [--figure] [BUILD-FOLDER]   (default build; the
# call rules read its objects). Prints every breach and exits 1 if there
# is one.
cd "$(dirname "$0")/.." || exit 2
figure=0
[ "$1" = --figure ] && figure=1 && shift
objs=${1:-build}/CMakeFiles/reach_objs.dir/src
root=$(pwd)
tmp=$(mktemp) || exit 2
# --figure prints the figure alone (fd 3), not the breaches.
exec 3>&1
[ "$figure" = 1 ] && exec >/dev/null
trap 'rm -f "$tmp" "$tmp.figure" "$tmp.doc"' EXIT
status=0
breach() {
    echo "layers: $*"
    status=1
}

# The layer of a path under src/ (a file, or an included header).
rank_of() {
    case $1 in
    base/*) echo 0 ;;
    boot/*) echo 1 ;;
    transport/*) echo 2 ;;
    core/*) echo 3 ;;
    sync/*) echo 4 ;;
    api/*) echo 5 ;;
    init.c) echo 9 ;;
    *) echo -1 ;;
    esac
}

for file in $(cd src && find . -name '*.[ch]' | sed 's|^\./||' | sort); do
    includes=$(sed -n 's/^[[:space:]]*#[[:space:]]*include[[:space:]]*"\([^"]*\)".*/\1/p' "src/$file")
    for inc in $includes; do
        case $file in
        armci/*)
            case $inc in
            */*) breach "src/$file includes \"$inc\": the ARMCI layer uses only include/ and its own headers" ;;
            esac
            continue ;;
        esac
        # Public headers (include/) are open to every layer.
        [ -f "include/$inc" ] && continue
        if [ ! -f "src/$inc" ]; then
            breach "src/$file includes \"$inc\", which is neither in include/ nor in src/"
            continue
        fi
        from=$(rank_of "$file") to=$(rank_of "$inc")
        if [ "$from" -lt 0 ] || [ "$to" -lt 0 ]; then
            breach "src/$file includes \"$inc\": a file outside the layers"
        elif [ "$to" -gt "$from" ]; then
            breach "src/$file includes \"$inc\": a layer includes one above it"
        fi
        case $file:$inc in
        transport/*:transport/net.h | transport/am/*:transport/shm/shm_ops.h) ;;
        transport/*:transport/*)
            [ "${file%/*}" = "${inc%/*}" ] ||
                breach "src/$file includes \"$inc\": a folder of transport sees only its own headers and transport/net.h" ;;
        core/service.h:transport/am/am_target.h) ;;
        sync/*:transport/* | api/*:transport/*)
            breach "src/$file includes \"$inc\": the layers above core reach transport through core/" ;;
        esac
    done
done

# Files of two folders do not share a name (a name is one module).
find src -name '*.[ch]' | sed 's|\.[ch]$||' | sort -u | sed 's|.*/||' | sort | uniq -d |
    while IFS= read -r name; do
        echo "layers: $(find src -name "$name.[ch]" | sort | tr '\n' ' ')share the name $name"
    done | grep . && status=1

grep -rln 'boot/boot_mpi\.h' src | grep -v '^src/boot/' | grep -v '^src/init\.c$' | grep -v '^src/api/groups\.c$' |
    while IFS= read -r f; do echo "layers: $f includes boot/boot_mpi.h: only init.c and api/groups.c name MPI's types"; done |
    grep . && status=1
grep -rlnE '#[[:space:]]*include[[:space:]]*(<mpi\.h>|"reach_mpi\.h")' src | grep -v '^src/boot/' |
    grep -v '^src/armci/' | while IFS= read -r f; do echo "layers: $f includes MPI's header: MPI is behind boot/"; done |
    grep . && status=1
# A network library's headers only in its backend's folder.
grep -rlnE '#[[:space:]]*include[[:space:]]*<(ucp|uct|ucs)/' src | grep -v '^src/transport/ucx/' |
    while IFS= read -r f; do echo "layers: $f includes UCX's headers: only transport/ucx/ uses UCX"; done | grep . && status=1
grep -rlnE '#[[:space:]]*include[[:space:]]*<rdma/' src | grep -v '^src/transport/ofi/' |
    while IFS= read -r f; do echo "layers: $f includes libfabric's headers: only transport/ofi/ uses libfabric"; done |
    grep . && status=1

# ---- calls, from the objects ------------------------------------------------------
if [ ! -d "$objs" ]; then
    breach "no objects in $objs: build first (cmake --build build), or name the build folder"
else
    # "object symbol" for every symbol an object defines (D) and uses (U).
    (cd "$objs" && for o in $(find . -name '*.o' | sort); do
        f=${o#./}
        f=${f%.o}
        [ -f "$root/src/$f" ] || continue   # an object left from a file since renamed
        nm "$o" | awk -v f="$f" '$1 == "U" { print "U", f, $2; next } $2 ~ /^[TDBRC]$/ { print "D", f, $3 }'
    done) | awk '
    # The folder a file is in: transport/am, core, ... (init.c: init).
    function room(f) {
        if (f ~ /^transport\//) { split(f, p, "/"); return p[1] "/" p[2] }
        if (f !~ /\//) return "init"
        sub(/\/.*/, "", f); return f
    }
    # Whether a file in room a may call into room b.
    function may(a, b) {
        if (a == b || a == "init" || b == "base") return 1
        if (b == "boot") return a != "base"
        if (b ~ /^transport\//) {
            if (a == "core") return 1
            if (a == "transport/am") return 1   # the backends and shm, which it drives
            return 0
        }
        if (b == "core") return a == "sync" || a == "api"
        if (b == "sync") return a == "api"
        return 0
    }
    $1 == "D" { def[$3] = $2; if ($3 ~ /^reach_/ && room($2) != "api" && room($2) != "init")
                    printf "layers: src/%s defines %s: public entry points are defined in api/ and init.c\n", $2, $3 }
    $1 == "U" { use[++n] = $2 " " $3 }
    END {
        for (i = 1; i <= n; i++) {
            split(use[i], u, " ")
            if (u[2] ~ /^(P?MPI_|ompi_)/ && room(u[1]) != "boot")
                printf "layers: src/%s calls %s: MPI is behind boot/\n", u[1], u[2]
            if (u[2] ~ /^(ucp|uct|ucs)_/ && room(u[1]) != "transport/ucx")
                printf "layers: src/%s calls %s: only transport/ucx/ uses UCX\n", u[1], u[2]
            if (u[2] ~ /^fi_/ && room(u[1]) != "transport/ofi")
                printf "layers: src/%s calls %s: only transport/ofi/ uses libfabric\n", u[1], u[2]
            if (!(u[2] in def) || def[u[2]] == u[1]) continue
            d = def[u[2]]
            if (!may(room(u[1]), room(d)))
                printf "layers: src/%s calls %s (src/%s): %s may not call into %s\n", u[1], u[2], d, room(u[1]), room(d)
            calls[u[1] " " d] = u[2]
            if (room(u[1]) != room(d)) printf "F %s %s\n", room(u[1]), room(d)
        }
        for (k in calls) {
            split(k, e, " ")
            if (e[1] < e[2] && ((e[2] " " e[1]) in calls) && !(room(e[1]) == "transport/am" && room(e[2]) == "transport/am"))
                printf "layers: src/%s and src/%s call each other (%s, %s)\n", e[1], e[2], calls[k], calls[e[2] " " e[1]]
        }
    }' >"$tmp"
    [ "$figure" = 1 ] || { grep -v '^F ' "$tmp" | sort | grep . && status=1; }
    # The rooms and the calls between them, top to bottom: the figure in
    # docs/architecture.md, which must be this one.
    order="init api sync core transport/am transport/shm transport/ucx transport/ofi boot base"
    for from in $order; do
        to=$(for r in $order; do grep -qx "F $from $r" "$tmp" && printf ' %s' "$r"; done)
        printf '%-14s->%s\n' "$from" "${to:- (nothing)}"
    done >"$tmp.figure"
    if [ "$figure" = 1 ]; then
        cat "$tmp.figure" >&3
        exit 0
    fi
    awk '/^<!-- calls: scripts\/layers.sh --figure -->$/ { at = 1; next }
         at == 1 && /^```$/ { at = 2; next }
         at == 2 && /^```$/ { exit }
         at == 2 { print }' docs/architecture.md >"$tmp.doc"
    # (A build without one of the backends draws a smaller figure.)
    if [ -d "$objs/transport/ucx" ] && [ -d "$objs/transport/ofi" ]; then
        cmp -s "$tmp.figure" "$tmp.doc" ||
            breach "docs/architecture.md's figure of calls is not the code's: put scripts/layers.sh --figure's in it"
    fi
fi

for file in $(find src bench tools include -type f \( -name '*.[ch]' -o -name '*.py' -o -name '*.sh' \) | sort); do
    lines=$(wc -l <"$file")
    [ "$lines" -gt 600 ] && breach "$file has $lines lines (600 at most)"
done

grep -rnE '(\.|->)map\b' src --include='*.[ch]' | grep -v '^src/core/rma\.[ch]:' | grep -v '^src/transport/shm/' |
    while IFS= read -r line; do echo "layers: a peer's mapping read outside core/rma.h: $line"; done | grep . && status=1
grep -rn 'reach_same_node *(' src --include='*.[ch]' | grep -v '^src/armci/' |
    grep -v '^src/api/info\.c:[0-9]*:int reach_same_node' |
    while IFS= read -r line; do echo "layers: locality asked outside core/rma.h: $line"; done | grep . && status=1

[ $status -eq 0 ] && echo "layers: includes and calls point down, entry points in api/, MPI behind boot/, no file over 600 lines, one locality decision"
exit $status

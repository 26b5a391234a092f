#!/bin/sh
# The architecture's rules, checked (docs/architecture.md):
#  1. #include points down: armci -> include/ only; api -> sync -> core ->
#     transport -> boot -> base; src/init.c may include anything. Within
#     transport, a network backend (transport/ucx) sees only transport/net.h,
#     and sync and api reach transport only through core/rma.h.
#  2. No file of src/, bench/, tools/ or include/ is longer than 600 lines.
#  3. Where a rank is reached (its mapping, or the network) is decided in
#     core/rma.h alone: nothing else reads a peer's mapping (.map), and
#     nothing below the ARMCI layer (which may ask the public API) asks
#     reach_same_node.
# Prints every breach and exits 1 if there is one.
cd "$(dirname "$0")/.." || exit 2
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
        transport/ucx/*:transport/net.h | transport/ucx/*:transport/ucx/*) ;;
        transport/ucx/*:transport/*)
            breach "src/$file includes \"$inc\": a network backend sees only transport/net.h" ;;
        sync/*:transport/* | api/*:transport/*)
            breach "src/$file includes \"$inc\": the layers above core reach transport through core/rma.h" ;;
        esac
    done
done

for file in $(find src bench tools include -type f \( -name '*.[ch]' -o -name '*.py' -o -name '*.sh' \) | sort); do
    lines=$(wc -l <"$file")
    [ "$lines" -gt 600 ] && breach "$file has $lines lines (600 at most)"
done

grep -rnE '(\.|->)map\b' src --include='*.[ch]' | grep -v '^src/core/rma\.h:' | grep -v '^src/transport/shm/' |
    while IFS= read -r line; do echo "layers: a peer's mapping read outside core/rma.h: $line"; done | grep . && status=1
grep -rn 'reach_same_node *(' src --include='*.[ch]' | grep -v '^src/armci/' |
    grep -v '^src/api/info\.c:[0-9]*:int reach_same_node' |
    while IFS= read -r line; do echo "layers: locality asked outside core/rma.h: $line"; done | grep . && status=1

[ $status -eq 0 ] && echo "layers: every include points down, no file over 600 lines, one locality decision"
exit $status

#!/bin/sh
# Formats reach's C sources as .clang-format says: src/, include/, bench/
# and tools/*.c (the tests are left as written).
#   scripts/format.sh          rewrite the files in place
#   scripts/format.sh --check  change nothing; print each file that differs
#                              and exit 1 if one does
cd "$(dirname "$0")/.." || exit 2
if ! command -v clang-format >/dev/null; then
    echo "format: clang-format is not installed (scripts/install-deps.sh installs it)" >&2
    exit 2
fi
files=$( (find src include bench -name '*.[ch]'; ls tools/*.c) | sort)
if [ "$1" = --check ]; then
    status=0
    for f in $files; do
        clang-format --dry-run -Werror "$f" 2>/dev/null || { echo "format: $f is not formatted (scripts/format.sh)"; status=1; }
    done
    [ $status -eq 0 ] && echo "format: every file is formatted"
    exit $status
fi
# shellcheck disable=SC2086
clang-format -i $files

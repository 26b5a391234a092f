#!/usr/bin/python3
"""docs_check.py GUIDE INCLUDE_DIR REACH_INFO MPIEXEC PROGRAM [MPIEXEC FLAGS...]

Checks that the user guide says what reach does: every function declared
in armci.h, armcix.h and message.h appears in the guide with its whole
signature; every environment variable reach-info lists has a row in the
guide's table, and that table is, line for line, what reach-info
--markdown prints (made from src/base/config_table.h); every field
REACH_STATS=1 prints (PROGRAM run on 2 processes) is named in the guide.
Prints each omission or difference; the status is 0 if none, else 1."""
import difflib
import os
import re
import subprocess
import sys


def normal(text):
    return " ".join(text.split()).replace("( ", "(").replace(" )", ")")


def declarations(path):
    text = re.sub(r"/\*.*?\*/", "", open(path).read(), flags=re.S)
    for m in re.finditer(r"extern\s+([^;{}#]*?\b\w+\s*\([^;]*\))\s*;", text):
        yield normal(m.group(1)) + ";"


def table_differences(guide_path, guide, reach_info):
    """The guide's table of environment variables against reach-info
    --markdown's output: the table is the guide's lines from the output's
    header line through the last line of the block that starts with "|"."""
    run = subprocess.run([reach_info, "--markdown"], capture_output=True, text=True)
    want = run.stdout.splitlines()
    if run.returncode != 0 or len(want) < 3:
        return [f"reach-info --markdown failed (status {run.returncode}): {run.stderr.strip()}"]
    lines = guide.splitlines()
    if want[0] not in lines:
        return [f"the guide has no table of environment variables headed {want[0]!r} "
                "(reach-info --markdown's header)"]
    start = lines.index(want[0])
    end = start
    while end < len(lines) and lines[end].startswith("|"):
        end += 1
    have = lines[start:end]
    if have == want:
        return []
    diff = difflib.unified_diff(have, want, f"{guide_path} (line {start + 1})",
                                "reach-info --markdown", lineterm="", n=0)
    return ["the guide's table of environment variables differs from reach-info --markdown's "
            "output (replace it with that output):\n" + "\n".join(diff)]


def main():
    guide_path, include, reach_info, mpiexec, program = sys.argv[1:6]
    flags = sys.argv[6:]
    guide = open(guide_path).read()
    flat = normal(guide)
    missing = []

    for header in ("armci.h", "armcix.h", "message.h"):
        for decl in declarations(os.path.join(include, header)):
            if decl not in flat:
                missing.append(f"{header}: the guide lacks the signature {decl}")

    table = subprocess.run([reach_info], capture_output=True, text=True).stdout
    variables = re.findall(r"^(REACH_[A-Z0-9_]+)\s", table, re.M)
    if not variables:
        missing.append("reach-info listed no variable")
    for name in variables:
        if not re.search(rf"^\| `{name}` \|", guide, re.M):
            missing.append(f"the guide's table of environment variables lacks {name}")

    missing += table_differences(guide_path, guide, reach_info)

    run = subprocess.run([mpiexec, *flags, "-n", "2", program], capture_output=True, text=True,
                         env={**os.environ, "REACH_STATS": "1"}, timeout=120)
    lines = re.findall(r"^reach stats rank \d+:(.*)$", run.stderr + run.stdout, re.M)
    if len(lines) != 2:
        missing.append(f"REACH_STATS=1 printed {len(lines)} lines, expected 2")
    stats = guide[guide.index("### Statistics"):guide.index("## The ARMCI interface")]
    for field in sorted({f.split("=")[0] for line in lines for f in line.split()}):
        names = field.split(".") if "." in field else [f"`{field}`"]
        for name in names:
            if not re.search(rf"(?<![\w`]){re.escape(name)}(?![\w`])" if "." in field else re.escape(name),
                             stats):
                missing.append(f"the guide's statistics section does not name {name} (printed as {field})")

    for m in missing:
        print("docs_check:", m)
    print("docs_check:", "passed" if not missing else f"{len(missing)} omissions")
    return 1 if missing else 0


if __name__ == "__main__":
    sys.exit(main())

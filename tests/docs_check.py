#!/usr/bin/python3
"""docs_check.py GUIDE INCLUDE_DIR REACH_INFO MPIEXEC PROGRAM [MPIEXEC FLAGS...]
docs_check.py --prose FILE...

Checks that the user guide says what reach does: every function declared
in armci.h, armcix.h and message.h appears in the guide with its whole
signature; every environment variable reach-info lists has a row in the
guide's table, and that table is, line for line, what reach-info
--markdown prints (made from src/base/config_table.h); every field
REACH_STATS=1 prints (PROGRAM run on 2 processes) is named in the guide.

It also checks that the README (../README.md from the guide), the guide
and the architecture (architecture.md beside the guide) are easy to read:
no sentence of their prose has more than 30 words, and the README has at
most 400 words in all (as wc -w counts them, code included). --prose runs
only the sentence check, on the files given.

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


MAX_SENTENCE_WORDS = 30
MAX_README_WORDS = 400

# Abbreviations whose period never ends a sentence, lower-cased.
ABBREVIATIONS = {"e.g.", "i.e.", "cf.", "vs.", "fig.", "figs.", "al.", "approx.", "no.", "resp.", "eq."}
# A fenced code block's opening or closing line.
FENCE = re.compile(r"^\s*(```|~~~)")
# The first line of a list item.
LIST_ITEM = re.compile(r"^\s*(?:[-*+]|\d+[.)])\s+")
# A sentence's end: terminal punctuation, any closing marks, then a space.
# An ellipsis ("...", "…") never ends one.
SENTENCE_END = re.compile(r"(?<!\.\.)(?<!…)[.!?][)\]\"'”’*_]*(?=\s)")


def prose_units(text):
    """The prose of a Markdown text as (line number, text) units: each
    paragraph and each list item (an item ends its sentence, with or
    without a period), without fenced code blocks, tables, headings, images
    and HTML comments."""
    units = []
    fenced = False
    comment = False
    current = None

    def close():
        nonlocal current
        if current is not None:
            units.append(current)
        current = None

    for number, line in enumerate(text.splitlines(), 1):
        stripped = line.strip()
        if FENCE.match(line):
            fenced = not fenced
            close()
            continue
        if fenced:
            continue
        if comment or stripped.startswith("<!--"):
            comment = "-->" not in stripped
            close()
            continue
        if (not stripped or stripped.startswith("|") or stripped.startswith("#")
                or stripped.startswith("![")):
            close()
            continue
        if LIST_ITEM.match(line):
            close()
            line = LIST_ITEM.sub("", line, count=1)
        if current is None:
            current = (number, line.strip())
        else:
            current = (current[0], current[1] + "\n" + line.strip())
    close()
    return units


def masked(unit):
    """The unit with each code span masked, character for character (line
    breaks kept), so that a span is one word and nothing in it ends a
    sentence; offsets into the result are offsets into the unit."""
    return re.sub(r"`[^`]*`", lambda m: re.sub(r"[^\n]", "x", m.group(0)), unit)


def sentences(unit):
    """Splits a unit into (start, end) offsets of its sentences."""
    text = masked(unit)
    out = []
    start = 0
    for m in SENTENCE_END.finditer(text):
        end = m.end()
        tokens = text[start:end].split()
        bare = tokens[-1].lower().lstrip("([\"'“‘*_").rstrip(")]\"'”’*_") if tokens else ""
        if bare in ABBREVIATIONS:
            continue
        if bare == "etc." and not re.match(r"\s+[A-Z`]", text[end:]):
            continue
        out.append((start, end))
        start = end
    if text[start:].strip():
        out.append((start, len(text)))
    return out


def words(sentence):
    """Whitespace-separated tokens with a letter or a digit in them."""
    return [w for w in sentence.split() if re.search(r"[A-Za-z0-9]", w)]


def prose_problems(path, label=None):
    """Every sentence of path's prose over MAX_SENTENCE_WORDS words, as
    "FILE:LINE: ..." lines."""
    label = label or path
    problems = []
    try:
        text = open(path).read()
    except OSError as e:
        return [f"{label}: cannot be read: {e.strerror}"]
    for line, unit in prose_units(text):
        for start, end in sentences(unit):
            n = len(words(masked(unit)[start:end]))
            if n > MAX_SENTENCE_WORDS:
                sentence = unit[start:end]
                lead = len(sentence) - len(sentence.lstrip())
                first = line + unit[:start + lead].count("\n")
                opening = " ".join(sentence.split()[:8])
                problems.append(f"{label}:{first}: a sentence of {n} words (at most {MAX_SENTENCE_WORDS}): "
                                f"\"{opening} ...\"")
    return problems


def readme_problems(path, label=None):
    label = label or path
    try:
        count = len(open(path).read().split())
    except OSError as e:
        return [f"{label}: cannot be read: {e.strerror}"]
    if count > MAX_README_WORDS:
        return [f"{label}: {count} words (at most {MAX_README_WORDS}, as wc -w counts them)"]
    return []


def readability(guide_path):
    """The README's length and the sentences of README, guide and
    architecture; the paths are derived from the guide's."""
    docs = os.path.dirname(os.path.abspath(guide_path))
    readme = os.path.join(os.path.dirname(docs), "README.md")
    architecture = os.path.join(docs, "architecture.md")
    problems = readme_problems(readme, "README.md")
    for path, label in ((readme, "README.md"), (guide_path, "docs/guide.md"),
                        (architecture, "docs/architecture.md")):
        problems += prose_problems(path, label)
    return problems


def main():
    if len(sys.argv) > 1 and sys.argv[1] == "--prose":
        problems = [p for path in sys.argv[2:] for p in prose_problems(path)]
        for p in problems:
            print("docs_check:", p)
        print("docs_check:", "passed" if not problems else f"{len(problems)} long sentences")
        return 1 if problems else 0
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

    missing += readability(guide_path)

    for m in missing:
        print("docs_check:", m)
    print("docs_check:", "passed" if not missing else f"{len(missing)} problems")
    return 1 if missing else 0


if __name__ == "__main__":
    sys.exit(main())

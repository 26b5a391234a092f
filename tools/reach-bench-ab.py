#!/usr/bin/env python3
"""Before/after comparison of two reach-bench builds, taken alternately.

    tools/reach-bench-ab.py OLD/reach-bench NEW/reach-bench [--rounds 3]
        [--only sync,locks] [--out DIR] [--np 2]

Each round runs OLD then NEW, on one node and with every rank its own node
(REACH_NODE_SIZE=1), so that drift of the machine falls on both alike.
Then, per configuration and experiment, it prints the geometric mean over
reach's own figures (MPI-3 rows and the plain local copy excluded) of
OLD/NEW (times; NEW/OLD for counts), so above 1 means NEW is faster: one
value per round and their median, and the figures NEW lost in every
round. The per-figure ratios come from NEW's `reach-bench --compare`.
"""
import argparse
import math
import os
import re
import statistics
import subprocess
import sys

CONFIGS = {"node": {}, "net1": {"REACH_NODE_SIZE": "1"}}


def run(binary, out, env, np, only):
    cmd = ["mpiexec", "-n", str(np), binary, "--quick", "--out", out]
    if only:
        cmd += ["--only", only]
    with open(out + ".log", "w") as log:
        status = subprocess.run(cmd, env={**os.environ, **env}, stdout=log, stderr=subprocess.STDOUT).returncode
    if status != 0:
        sys.exit(f"reach-bench-ab: {' '.join(cmd)} failed ({status}); see {out}.log")


def ratios(new_binary, old_dir, new_dir):
    """(experiment, figure) -> (gain, verdict) for every figure of reach's."""
    text = subprocess.run([new_binary, "--compare", old_dir, new_dir], capture_output=True, text=True,
                          check=True).stdout
    found, exp = {}, None
    for line in text.splitlines():
        m = re.match(r"^([a-z_]+)-np\d+:", line)
        if m:
            exp = m.group(1)
            continue
        m = re.match(r"^\s+(.*?)\s{2,}(.*?)\s+(\S+) ->\s+(\S+) (\S+)\s+(\S+)\s+(better|worse|same)\s+"
                     r"\((lower|higher)", line)
        if not m or exp is None:
            continue
        name = m.group(1)
        if "mpi3" in name or "MPI" in name or "(local)" in name:
            continue
        old, new = float(m.group(3)), float(m.group(4))
        if old > 0 and new > 0:
            gain = old / new if m.group(8) == "lower" else new / old
            found[(exp, f"{name} {m.group(2)}")] = (gain, m.group(7))
    return found


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("old")
    ap.add_argument("new")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--only", default="")
    ap.add_argument("--np", type=int, default=2)
    ap.add_argument("--out", default="reach-bench-ab")
    a = ap.parse_args()
    os.makedirs(a.out, exist_ok=True)
    per_round = {}
    for r in range(1, a.rounds + 1):
        for cfg, env in CONFIGS.items():
            dirs = {}
            for side, binary in (("old", a.old), ("new", a.new)):
                dirs[side] = os.path.join(a.out, f"{cfg}-{side}-{r}")
                print(f"round {r}: {cfg} {side}", file=sys.stderr, flush=True)
                run(binary, dirs[side], env, a.np, a.only)
            per_round[(cfg, r)] = ratios(a.new, dirs["old"], dirs["new"])
    print(f"geometric mean of OLD/NEW over reach's figures (above 1: NEW faster), {a.rounds} rounds")
    for cfg in CONFIGS:
        exps = sorted({e for (c, _), figs in per_round.items() if c == cfg for e, _ in figs})
        for exp in exps:
            means, lost = [], None
            for r in range(1, a.rounds + 1):
                figs = {f: v for (e, f), v in per_round[(cfg, r)].items() if e == exp}
                means.append(math.exp(sum(math.log(g) for g, _ in figs.values()) / len(figs)))
                worse = {f for f, (_, verdict) in figs.items() if verdict == "worse"}
                lost = worse if lost is None else lost & worse
            print(f"{cfg:5s} {exp:13s} " + " ".join(f"{m:.3f}" for m in means) +
                  f"   median {statistics.median(means):.3f}")
            for f in sorted(lost):
                print(f"      worse in every round: {f}")


if __name__ == "__main__":
    main()

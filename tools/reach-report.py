#!/usr/bin/python3
"""reach-report: the Markdown report and PNG plots of a reach-bench results
folder, or the ratio between two of them.

    reach-report.py DIR                  writes DIR/report.md and DIR/*.png
    reach-report.py --compare OLD NEW    prints NEW/OLD for every shared figure

reach-bench runs it at the end of a run (and for --compare). Plots need
Debian's python3-matplotlib."""
import glob
import json
import math
import os
import statistics
import sys

ORDER = ["transfer", "strided", "sync", "ga_sync", "locks", "win_latency", "win_overlap",
         "win_receiver", "lu"]


def load(folder):
    runs = {}
    for path in glob.glob(os.path.join(folder, "*.json")):
        with open(path) as f:
            try:
                data = json.load(f)
            except json.JSONDecodeError as e:
                sys.exit(f"reach-report: {path} is not complete JSON ({e}); was the run cut short?")
        if "experiment" in data:
            runs[data["experiment"]] = data
    if not runs:
        sys.exit(f"reach-report: no experiment files in {folder}")
    return dict(sorted(runs.items(), key=lambda kv: ORDER.index(kv[0]) if kv[0] in ORDER else 99))


def spread(samples):
    """The middle half of the samples (25th to 75th percentile)."""
    if len(samples) < 2:
        return samples[0], samples[0]
    q = statistics.quantiles(samples, n=4, method="inclusive")
    return q[0], q[2]


def lines_of(exp):
    """{(series, impl): {x: result}} in the order they were measured."""
    out = {}
    for r in exp["results"]:
        out.setdefault((r["series"], r["impl"]), {})[r["x"]] = r
    return out


def label(series, impl):
    return series if impl == "reach" else f"{series} ({impl})"


def fmt(v):
    return f"{v:.3g}" if abs(v) < 1000 else f"{v:.0f}"


def placement(m):
    s = f"{m['processes']} processes on {m['nodes']} node(s), {m['cores']} cores, target on the {m['target']}"
    return s + (" — more processes than cores" if m["oversubscribed"] else "")


def table(exp):
    """Rows x, a column per line: median [25th-75th percentile]; ratios of
    MPI-3 to reach where both measured the same series."""
    lines = lines_of(exp)
    xs = sorted({x for pts in lines.values() for x in pts})
    keys = list(lines)
    ratio = [(s, i) for (s, i) in keys if i == "mpi3" and (s, "reach") in lines]
    head = [exp["x"]] + [label(*k) for k in keys] + [f"MPI-3/reach {s}" for s, _ in ratio]
    rows = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for x in xs:
        cells = [str(x) if exp["x"] else ""]
        for k in keys:
            r = lines[k].get(x)
            if r is None:
                cells.append("")
                continue
            lo, hi = spread(r["samples"])
            cells.append(f"{fmt(r['median'])} [{fmt(lo)}–{fmt(hi)}]" if len(r["samples"]) > 1
                         else fmt(r["median"]))
        for s, _ in ratio:
            a, b = lines[(s, "reach")].get(x), lines[(s, "mpi3")].get(x)
            cells.append(f"{b['median'] / a['median']:.2f}" if a and b and a["median"] > 0 else "")
        rows.append("| " + " | ".join(cells) + " |")
    unit = exp["results"][0]["unit"] if exp["results"] else ""
    return "\n".join(rows), unit


def plot(exp, folder, plt):
    """The experiment's figure(s); returns the file names."""
    name, kind, lines = exp["experiment"], exp["plot"], lines_of(exp)
    m = exp["machine"]
    unit = exp["results"][0]["unit"] if exp["results"] else ""
    note = f"{m['processes']} processes, {m['cores']} cores" + (" (oversubscribed)" if m["oversubscribed"] else "")
    files = []

    def save(fig, ax, suffix, title):
        ax.set_title(f"{title}\n{exp['figure'] + ', ' if exp['figure'] else ''}{note}", fontsize=9)
        ax.grid(True, which="both", alpha=0.3)
        if ax.get_legend_handles_labels()[0]:
            ax.legend(fontsize=7)
        fig.tight_layout()
        f = f"{name}{suffix}.png"
        fig.savefig(os.path.join(folder, f), dpi=110)
        plt.close(fig)
        files.append(f)

    series = list(dict.fromkeys(s for s, _ in lines))
    if kind in ("loglog", "lines"):
        for s in series:
            fig, ax = plt.subplots(figsize=(6, 4))
            for (s2, impl), pts in lines.items():
                if s2 == s:
                    xs = sorted(pts)
                    ax.plot(xs, [pts[x]["median"] for x in xs], marker="o", label=impl)
            ax.set_xlabel(exp["x"])
            ax.set_ylabel(unit)
            if kind == "loglog":
                ax.set_xscale("log", base=2)
                ax.set_yscale("log")
            save(fig, ax, "_" + s.replace(" ", "_").replace("+", ""), f"{exp['title']}: {s}")
    elif kind == "bars":
        fig, ax = plt.subplots(figsize=(7, 4))
        keys = list(lines)
        xs = sorted({x for pts in lines.values() for x in pts})
        width = 0.8 / max(1, len(keys))
        for k, key in enumerate(keys):
            pos = [xi + k * width for xi in range(len(xs))]
            ax.bar(pos, [lines[key].get(x, {}).get("median", 0) for x in xs], width, label=label(*key))
        ax.set_xticks([xi + 0.4 - width / 2 for xi in range(len(xs))], [str(x) for x in xs])
        ax.set_xlabel(exp["x"] or "")
        ax.set_ylabel(unit)
        if len(keys) > 1 and max(r["median"] for r in exp["results"]) > 50 * min(
                max(r["median"], 1e-9) for r in exp["results"]):
            ax.set_yscale("log")
        save(fig, ax, "", exp["title"])
    elif kind == "overlap":
        fig, ax = plt.subplots(figsize=(6, 4))
        for mode in ("direct", "deferred"):
            base = lines.get((f"win overlap {mode} 0%", "reach"), {})
            for size in sorted(base):
                t0, shares, ov = base[size]["median"], [], []
                for share in (50, 100, 200):
                    r = lines.get((f"win overlap {mode} {share}%", "reach"), {}).get(size)
                    if r:
                        shares.append(share)
                        ov.append(100 * (t0 + share / 100 * t0 - r["median"]) / t0)
                ax.plot(shares, ov, marker="o", linestyle="-" if mode == "direct" else "--",
                        label=f"{mode}, {size} B")
        ax.axhline(0, color="black", linewidth=0.8)
        ax.set_xlabel(exp["x"])
        ax.set_ylabel("overlap, % of the epoch hidden")
        save(fig, ax, "", exp["title"])
    elif kind == "stacked":
        parts = ["lock", "get", "unlock", "barrier", "compute"]
        fig, ax = plt.subplots(figsize=(7, 4))
        bars = [(mode, p) for p in sorted({x for (s, _), pts in lines.items() for x in pts})
                for mode in ("direct", "deferred")]
        bottom = [0.0] * len(bars)
        for part in parts:
            vals = [lines.get((f"lu {mode} {part}", "reach"), {}).get(p, {}).get("median", 0) for mode, p in bars]
            ax.bar(range(len(bars)), vals, bottom=bottom, label=part)
            bottom = [b + v for b, v in zip(bottom, vals)]
        ax.set_xticks(range(len(bars)), [f"P={p}\n{mode}" for mode, p in bars], fontsize=7)
        ax.set_ylabel(unit)
        save(fig, ax, "", exp["title"] + ": time and its breakdown")
    return files


def report(folder):
    runs = load(folder)
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        plt = None
        print("reach-report: python3-matplotlib is not installed; the report has no plots", file=sys.stderr)
    first = next(iter(runs.values()))
    m = first["machine"]
    out = ["# reach-bench report", "",
           f"Machine {m['host']}: {placement(m)}; {m['mpi']}.", "",
           f"Figures are medians of the samples (up to {first['samples']} per point) with the middle half "
           "of the samples (25th–75th percentile) in brackets; every comparison was measured in the same run. "
           + ("**This run had more processes than cores**: its figures show an oversubscribed machine, and "
              "MPI-3 (which busy-polls) is left out where it would only measure the scheduler." if m["oversubscribed"]
              else ""), ""]
    env = first.get("environment", {})
    if env:
        out += ["Environment: " + ", ".join(f"`{k}={v}`" for k, v in sorted(env.items())), ""]
    for name, exp in runs.items():
        t, unit = table(exp)
        out += [f"## {exp['title']}", "",
                f"`{name}`" + (f" — {exp['figure']}" if exp["figure"] else "") + f"; values in {unit}.", "", t, ""]
        if exp["machine"] != m:
            out += [f"(measured in another run: {placement(exp['machine'])})", ""]
        if plt:
            out += [f"![{name}]({f})" for f in plot(exp, folder, plt)] + [""]
    path = os.path.join(folder, "report.md")
    with open(path, "w") as f:
        f.write("\n".join(out))
    print(f"reach-report: {path} and {len(glob.glob(os.path.join(folder, '*.png')))} plots")


def compare(old_dir, new_dir):
    old, new = load(old_dir), load(new_dir)
    print(f"NEW/OLD medians, below 1 is faster: {new_dir} against {old_dir}")
    shared = 0
    for name, exp in new.items():
        if name not in old:
            continue
        before = {(r["series"], r["impl"], r["x"]): r for r in old[name]["results"]}
        ratios = []
        print(f"\n{name}: {exp['title']}")
        for r in exp["results"]:
            b = before.get((r["series"], r["impl"], r["x"]))
            if not b or b["median"] <= 0 or r["median"] <= 0:
                continue
            q = r["median"] / b["median"]
            ratios.append(q)
            print(f"  {label(r['series'], r['impl']):40s} {exp['x'] or ''}={r['x']:<8} "
                  f"{fmt(b['median']):>9} -> {fmt(r['median']):>9} {r['unit']:3s} {q:6.2f}")
        if ratios:
            shared += 1
            g = math.exp(sum(math.log(q) for q in ratios) / len(ratios))
            print(f"  geometric mean of {len(ratios)} ratios: {g:.3f}")
    if shared == 0:
        sys.exit("reach-report: the two folders share no figure")


if __name__ == "__main__":
    if len(sys.argv) == 4 and sys.argv[1] == "--compare":
        compare(sys.argv[2], sys.argv[3])
    elif len(sys.argv) == 2:
        report(sys.argv[1])
    else:
        sys.exit(__doc__)

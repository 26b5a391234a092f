#!/usr/bin/python3
"""reach-report: the Markdown report and PNG plots of a reach-bench results
folder, or the ratio between two of them.

    reach-report.py DIR                  writes DIR/report.md and DIR/*.png
    reach-report.py --compare OLD NEW    prints NEW/OLD for every shared figure

A folder holds one file per experiment and process count
(<experiment>-np<N>.json), so that runs at several process counts make one
report. reach-bench runs this at the end of a run (and for --compare).
Plots need Debian's python3-matplotlib."""
import glob
import json
import math
import os
import statistics
import sys

ORDER = ["transfer", "strided", "sync", "ga_sync", "locks", "win_latency", "win_overlap",
         "win_receiver", "lu"]
TIMES = ("us", "ms")
LU_PARTS = ["lock", "get", "unlock", "barrier", "compute"]


def load(folder):
    """{file stem: experiment} in ORDER, then by process count."""
    runs = {}
    for path in glob.glob(os.path.join(folder, "*.json")):
        with open(path) as f:
            try:
                data = json.load(f)
            except json.JSONDecodeError as e:
                sys.exit(f"reach-report: {path} is not complete JSON ({e}); was the run cut short?")
        if "experiment" in data:
            runs[os.path.basename(path)[:-5]] = data

    def key(kv):
        exp = kv[1]
        return (ORDER.index(exp["experiment"]) if exp["experiment"] in ORDER else 99,
                exp["machine"]["processes"])
    if not runs:
        sys.exit(f"reach-report: no experiment files in {folder}")
    return dict(sorted(runs.items(), key=key))


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


def impl_name(impl):
    return "MPI-3" if impl == "mpi3" else impl


def fmt(v):
    return f"{v:.3g}" if abs(v) < 1000 else f"{v:.0f}"


def placement(m):
    s = f"{m['processes']} processes on {m['nodes']} node(s), {m['cores']} cores, target on the {m['target']}"
    return s + (" — **more processes than cores**" if m["oversubscribed"] else "")


def table(exp):
    """A row per series and x, a column per implementation: median [25th-75th
    percentile]; then MPI-3's time over each of reach's where both did the
    same work (above 1: reach is faster)."""
    lines = lines_of(exp)
    series = list(dict.fromkeys(s for s, _ in lines))
    impls = list(dict.fromkeys(i for _, i in lines))
    reach = [i for i in impls if i.startswith("reach")] if "mpi3" in impls else []
    units = {r["unit"] for r in exp["results"]}
    head = (["", exp["x"] or ""] + (["unit"] if len(units) > 1 else []) + [impl_name(i) for i in impls]
            + [f"MPI-3 / {i}" for i in reach])
    rows = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for s in series:
        xs = sorted({x for (s2, _), pts in lines.items() if s2 == s for x in pts})
        for x in xs:
            got = {i: lines.get((s, i), {}).get(x) for i in impls}
            cells = [s, str(x) if exp["x"] else ""]
            if len(units) > 1:
                cells.append(next(r["unit"] for r in got.values() if r))
            for i in impls:
                r = got[i]
                if r is None:
                    cells.append("")
                    continue
                lo, hi = spread(r["samples"])
                cells.append(f"{fmt(r['median'])} [{fmt(lo)}–{fmt(hi)}]" if len(r["samples"]) > 1
                             else fmt(r["median"]))
            for i in reach:
                a, b = got[i], got["mpi3"]
                timed = a and b and a["unit"] in TIMES and a["median"] > 0
                cells.append(f"**{b['median'] / a['median']:.2f}**" if timed else "")
            rows.append("| " + " | ".join(cells) + " |")
    return "\n".join(rows), "/".join(sorted(units))


def plot(stem, exp, folder, plt):
    """The experiment's figure, panels side by side; returns its file name."""
    kind, lines = exp["plot"], lines_of(exp)
    m = exp["machine"]
    unit = exp["results"][0]["unit"]
    note = f"{m['processes']} processes, {m['cores']} cores" + (" (oversubscribed)" if m["oversubscribed"] else "")
    series = list(dict.fromkeys(s for s, _ in lines))
    impls = list(dict.fromkeys(i for _, i in lines))
    style = {i: dict(color=f"C{k}", marker="os^vD<>p*h"[k % 10]) for k, i in enumerate(impls)}

    if kind == "receiver":
        series = [s for s in series if s.startswith("target,")]
    panels = series if kind in ("loglog", "lines", "receiver") else [None]
    # Transfers by size: latency above, bandwidth below.
    bandwidth = kind == "loglog" and exp["x"] == "bytes" and unit == "us"
    fig, axes = plt.subplots(2 if bandwidth else 1, len(panels), squeeze=False,
                             figsize=(4.2 * len(panels) + 0.8, 6.8 if bandwidth else 3.8))
    for ax, s in zip(axes[1] if bandwidth else [], panels):
        for (s2, impl), pts in lines.items():
            if s2 == s:
                xs = sorted(pts)
                ax.plot(xs, [x / pts[x]["median"] * 1e-3 for x in xs], label=impl_name(impl), **style[impl])
        ax.set_xscale("log", base=2)
        ax.set_yscale("log")
        ax.set_xlabel(exp["x"])
        ax.set_ylabel("GB/s")
        ax.set_title(f"{s}: bandwidth", fontsize=9)
        ax.grid(True, which="both", alpha=0.3)
        ax.legend(fontsize=7)
    axes = axes[0]

    def bars(ax, groups, values):
        """groups: x labels; values: {impl: [value per group]}."""
        width = 0.8 / max(1, len(values))
        for k, (impl, vals) in enumerate(values.items()):
            ax.bar([g + k * width for g in range(len(groups))], vals, width, label=impl_name(impl),
                   color=style[impl]["color"])
        ax.set_xticks([g + 0.4 - width / 2 for g in range(len(groups))], groups, fontsize=7)

    for ax, s in zip(axes, panels):
        if kind in ("loglog", "lines"):
            for (s2, impl), pts in lines.items():
                if s2 == s:
                    xs = sorted(pts)
                    ax.plot(xs, [pts[x]["median"] for x in xs], label=impl_name(impl), **style[impl])
            ax.set_xlabel(exp["x"])
            ax.set_ylabel(unit)
            ax.set_title(s, fontsize=9)
            if kind == "loglog":
                ax.set_xscale("log", base=2)
                ax.set_yscale("log")
        elif kind == "bars":
            xs = sorted({x for pts in lines.values() for x in pts})
            groups = [(s2, x) for s2 in series for x in xs if any(x in lines.get((s2, i), {}) for i in impls)]
            bars(ax, [s2 if len(xs) == 1 else f"{s2}\n{x}" for s2, x in groups],
                 {i: [lines.get((s2, i), {}).get(x, {}).get("median", 0) for s2, x in groups] for i in impls})
            ax.set_ylabel(unit)
            vals = [r["median"] for r in exp["results"] if r["median"] > 0]
            if vals and max(vals) > 30 * min(vals):
                ax.set_yscale("log")
        elif kind == "receiver":
            xs = sorted({x for (s2, _), pts in lines.items() if s2 == s for x in pts})
            used = [i for i in impls if (s, i) in lines]
            bars(ax, [f"{x} B" for x in xs], {i: [lines[(s, i)].get(x, {}).get("median", 0) for x in xs]
                                               for i in used})
            alone = lines.get(("target alone", "local"), {}).get(0)
            if alone:
                ax.axhline(alone["median"], color="black", linewidth=0.8, linestyle="--",
                           label="target alone")
            for k, i in enumerate(used):   # the epochs the origins ran meanwhile, above each bar
                width = 0.8 / len(used)
                for g, x in enumerate(xs):
                    e = lines.get((s.replace("target", "epochs"), i), {}).get(x)
                    top = lines[(s, i)].get(x, {}).get("median", 0)
                    if e:
                        ax.annotate(f"{e['median']:.0f}", (g + k * width, top), fontsize=6, ha="center",
                                    va="bottom")
            ax.set_title(f"{s} (figures: epochs run meanwhile)", fontsize=8)
            ax.set_xlabel("get size")
            ax.set_ylabel("the target's time, " + unit)
        elif kind == "overlap":
            t0s = {i: pts for (s2, i), pts in lines.items() if s2 == "computation 0%"}
            for k, (impl, base) in enumerate(t0s.items()):
                for z, size in enumerate(sorted(base)):
                    t0, shares, ov = base[size]["median"], [], []
                    for share in (50, 100, 200):
                        r = lines.get((f"computation {share}%", impl), {}).get(size)
                        if r:
                            shares.append(share)
                            ov.append(100 * (t0 + share / 100 * t0 - r["median"]) / t0)
                    ax.plot(shares, ov, color=style[impl]["color"], marker=style[impl]["marker"],
                            linestyle=["-", "--", ":"][z % 3], label=f"{impl_name(impl)}, {size} B")
            ax.axhline(0, color="black", linewidth=0.8)
            ax.set_xlabel("computation, % of the epoch's time without it")
            ax.set_ylabel("overlap: % of the epoch hidden")
        elif kind == "stacked":
            ps = sorted({x for (s2, _), pts in lines.items() if s2 == "lu" for x in pts})
            cols = [(p, i) for p in ps for i in impls if p in lines.get(("lu", i), {})]
            bottom = [0.0] * len(cols)
            for k, part in enumerate(LU_PARTS):
                vals = [lines.get((f"lu {part}", i), {}).get(p, {}).get("median", 0) for p, i in cols]
                ax.bar(range(len(cols)), vals, bottom=bottom, label=part, color=f"C{k}")
                bottom = [b + v for b, v in zip(bottom, vals)]
            ax.plot(range(len(cols)), [lines[("lu", i)][p]["median"] for p, i in cols], "k_", markersize=14,
                    label="time (median run)")
            ax.set_xticks(range(len(cols)), [f"P={p}\n{impl_name(i).replace('reach ', '')}" for p, i in cols],
                          fontsize=7)
            ax.set_ylabel(unit + " (bars: breakdown, mean over ranks)")
        ax.grid(True, which="both", alpha=0.3)
        if ax.get_legend_handles_labels()[0]:
            ax.legend(fontsize=7)
    fig.suptitle(f"{exp['title']}\n{exp['figure'] + ', ' if exp['figure'] else ''}{note}", fontsize=9)
    fig.tight_layout()
    name = f"{stem}.png"
    fig.savefig(os.path.join(folder, name), dpi=100)
    plt.close(fig)
    return name


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
    counts = sorted({exp["machine"]["processes"] for exp in runs.values()})
    over = any(exp["machine"]["oversubscribed"] for exp in runs.values())
    out = ["# reach-bench report", "",
           f"Machine {m['host']}: {m['cores']} cores; {m['mpi']}. Runs at "
           + ", ".join(str(c) for c in counts) + " processes.", "",
           f"Figures are medians of the samples (up to {first['samples']} per point) with the middle half "
           "of the samples (25th–75th percentile) in brackets. Every comparison was measured in the same run; "
           "`MPI-3 / reach …` is MPI-3's time over reach's (above 1: reach is faster). "
           + ("Sections marked **more processes than cores** show an oversubscribed machine: they measure "
              "scaling and waiting, and leave MPI-3 (which busy-polls) out." if over else ""), ""]
    env = first.get("environment", {})
    if env:
        out += ["Environment: " + ", ".join(f"`{k}={v}`" for k, v in sorted(env.items())), ""]
    for stem, exp in runs.items():
        t, unit = table(exp)
        out += [f"## {exp['title']} ({exp['machine']['processes']} processes)", "",
                f"`{stem}`" + (f" — {exp['figure']}" if exp["figure"] else "")
                + f"; {placement(exp['machine'])}; values in {unit}.", ""]
        if plt and exp["results"]:
            out += [f"![{stem}]({plot(stem, exp, folder, plt)})", ""]
        out += [t, ""]
    path = os.path.join(folder, "report.md")
    with open(path, "w") as f:
        f.write("\n".join(out))
    print(f"reach-report: {path} and {len(glob.glob(os.path.join(folder, '*.png')))} plots")


def compare(old_dir, new_dir):
    old, new = load(old_dir), load(new_dir)
    print(f"NEW/OLD medians, below 1 is faster: {new_dir} against {old_dir}")
    shared = 0
    for stem, exp in new.items():
        if stem not in old:
            continue
        before = {(r["series"], r["impl"], r["x"]): r for r in old[stem]["results"]}
        ratios = []
        print(f"\n{stem}: {exp['title']}")
        for r in exp["results"]:
            b = before.get((r["series"], r["impl"], r["x"]))
            if not b or b["median"] <= 0 or r["median"] <= 0:
                continue
            q = r["median"] / b["median"]
            if r["unit"] in TIMES:   # counts (epochs) are not in the mean of times
                ratios.append(q)
            print(f"  {label(r['series'], r['impl']):40s} {exp['x'] or ''}={r['x']:<8} "
                  f"{fmt(b['median']):>9} -> {fmt(r['median']):>9} {r['unit']:6s} {q:6.2f}")
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

#!/usr/bin/python3
"""reach-report: the Markdown report and PNG plots of a reach-bench results
folder, or the comparison of two of them.

    reach-report.py DIR                  writes DIR/report.md and DIR/*.png
    reach-report.py --compare OLD NEW    every figure both share, NEW against OLD

A folder holds one file per experiment and process count
(<experiment>-np<N>.json), so that runs at several process counts make one
report; a program that measures one implementation of an experiment writes
<experiment>-np<N>-<implementation>.json (ga-bench, linked with reach and
with ARMCI-MPI), and the files of one experiment and count are read as one.
A sub-folder holding a file named `condition` (one line: what the runs in
it ran under, e.g. between two machines, or beside another job) is
reported too, its plots kept in it. The report opens with one screen: per
condition and path, the geometric mean of the baseline's time over
reach's, and the worst figure.
reach-bench runs this at the end of a run (and for --compare).
Plots need Debian's python3-matplotlib."""
import glob
import json
import math
import os
import sys

# reach_marks.py lies beside this script; a run writes nothing beside it
# (no __pycache__ in the source tree or the install).
sys.dont_write_bytecode = True
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from reach_marks import BUSY_RULE, WIDE_RULE, apart, busy, load_text, loads, spread, steal_of, wide  # noqa: E402

ORDER = ["transfer", "strided", "sync", "ga_sync", "locks", "win_latency", "win_overlap",
         "win_receiver", "lu", "ga"]
# What reach is compared with, by impl. An impl ending in NET ran through
# the network path (reach with REACH_NODE_SIZE=1, ARMCI-MPI with MPICH's
# MPIR_CVAR_NOLOCAL=1) and is compared only with another such.
NET = "-net"
BASELINES = {"mpi3": "MPI-3", "ARMCI-MPI": "ARMCI-MPI", "ARMCI-MPI" + NET: "ARMCI-MPI (network)"}
TIMES, LOWER = ("us", "ms"), ("us", "ms", "MB")   # lower is better (MB, ga-bench's memory: not in the glance)
LU_PARTS = ["lock", "get", "unlock", "barrier", "compute"]
# ga-bench's series whose x is bytes (others count doubles, elements, processes, n)
GA_SIZES = {"get", "put", "acc", "sync", "create", "create_zero"}
CONDITION = "condition"  # in a sub-folder of results: the condition its runs ran under
HERE = "one machine"     # the condition of the folder's own runs
# reach's default algorithm, where an experiment measures several
# (REACH_BARRIER, REACH_LOCK, REACH_WIN_SYNC): what the screen counts.
DEFAULTS = {"ga_sync": "reach combined", "locks": "reach mcs", "win_latency": "reach direct",
            "win_overlap": "reach direct", "win_receiver": "reach direct"}


def load(folder, required=True):
    """{file stem: experiment} in ORDER, then by process count; none ends the run if required."""
    runs = {}
    for path in sorted(glob.glob(os.path.join(folder, "*.json"))):
        with open(path) as f:
            try:
                data = json.load(f)
            except json.JSONDecodeError as e:
                sys.exit(f"reach-report: {path} is not complete JSON ({e}); was the run cut short?")
        if "experiment" in data:
            stem = f"{data['experiment']}-np{data['machine']['processes']}"
            data["steal"] = steal_of(data)
            if stem in runs:
                merge(runs[stem], data, path)
            else:
                runs[stem] = data

    def key(kv):
        exp = kv[1]
        return (ORDER.index(exp["experiment"]) if exp["experiment"] in ORDER else 99,
                exp["machine"]["processes"])
    if not runs and required:
        sys.exit(f"reach-report: no experiment files in {folder}")
    return dict(sorted(runs.items(), key=key))


def merge(exp, part, path):
    """Adds the results of part (the file at path), of the same experiment
    and process count, to exp: a point exp holds already (the same series,
    implementation and x: a file left from another run) is kept and named.
    The machine is exp's; the load kept is the higher of the two, before
    and after, and so is the host's steal."""
    held = {(r["series"], r["impl"], r["x"]) for r in exp["results"]}
    new = [r for r in part["results"] if (r["series"], r["impl"], r["x"]) not in held]
    if len(new) < len(part["results"]):
        print(f"reach-report: {path} repeats {len(part['results']) - len(new)} points of an "
              "earlier file of its experiment, whose are kept (a file left from another run?)",
              file=sys.stderr)
    exp["results"] += new
    def one_minute(exp, key):
        return exp[key]["loadavg"][0] if exp.get(key, {}).get("loadavg") else -1
    for key in ("load_before", "load_after"):
        if one_minute(part, key) > one_minute(exp, key):
            exp[key] = part[key]
    exp["steal"] = max((v for v in (exp["steal"], part["steal"]) if v is not None), default=None)
    exp["environment"] = {**exp.get("environment", {}), **part.get("environment", {})}


def lines_of(exp):
    """{(series, impl): {x: result}} in the order they were measured."""
    out = {}
    for r in exp["results"]:
        out.setdefault((r["series"], r["impl"]), {})[r["x"]] = r
    return out


def label(series, impl):
    return series if impl == "reach" else f"{series} ({impl})"


def impl_name(impl):
    if impl == "reach" + NET:
        return "reach (network)"
    return BASELINES.get(impl, impl)


def base_of(impl, impls):
    """The baseline among impls that reach's impl is compared with: the
    first that took the same path."""
    return next((b for b in impls if b in BASELINES and b.endswith(NET) == impl.endswith(NET)), None)


def shown(unit):
    return "µs" if unit == "us" else unit


def fmt(v):
    return f"{v:.3g}" if abs(v) < 1000 else f"{v:.0f}"


def size_text(n):
    for unit, size in (("MiB", 1 << 20), ("KiB", 1 << 10)):
        if n >= size and n % size == 0:
            return f"{n // size} {unit}"
    return f"{n} B"


def placement(m):
    machines = m.get("machines", 1)
    s = (f"{m['processes']} processes on {m['nodes']} node(s)" + (f" of {machines} machines" if machines > 1 else "")
         + f", {m['cores']} cores, target on the {m['target']}")
    return s + (" — **more processes than cores**" if m["oversubscribed"] else "")


def ratio(exp, a, b):
    """The baseline's time (b: MPI-3's or ARMCI-MPI's) over reach's (a) where
    both did the same work and have a spread: in bold if it is a win for
    reach that the samples bear out (the baseline's 25th percentile above
    reach's 75th, on a machine that was not busy, from figures that are not
    wide), else plain with its marks."""
    if not (a and b) or a["unit"] not in LOWER or a["median"] <= 0 or b["median"] <= 0:
        return ""
    if len(a["samples"]) < 2 or len(b["samples"]) < 2:   # one run: no spread to judge it by
        return ""
    q = f"{b['median'] / a['median']:.2f}"
    marks = (["busy"] if busy(exp) else []) + (["wide"] if wide(a) or wide(b) else [])
    if marks:
        return f"{q} ({', '.join(marks)})"
    return f"**{q}**" if spread(b)[0] > spread(a)[1] else q


def table(exp):
    """A row per series and x, a column per implementation: median [25th-75th
    percentile]; then the baseline's time over each of reach's (ratio())."""
    lines = lines_of(exp)
    series = list(dict.fromkeys(s for s, _ in lines))
    impls = sorted(dict.fromkeys(i for _, i in lines), key=lambda i: i in BASELINES)   # baselines last
    reach = [i for i in impls if i.startswith("reach") and base_of(i, impls)]
    units = {r["unit"] for r in exp["results"]}
    head = (["", exp["x"] or ""] + (["unit"] if len(units) > 1 else []) + [impl_name(i) for i in impls]
            + [f"{impl_name(base_of(i, impls))} / {impl_name(i)}" for i in reach])
    rows = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for s in series:
        xs = sorted({x for (s2, _), pts in lines.items() if s2 == s for x in pts})
        for x in xs:
            got = {i: lines.get((s, i), {}).get(x) for i in impls}
            cells = [s, str(x) if exp["x"] else ""]
            if len(units) > 1:
                cells.append(shown(next(r["unit"] for r in got.values() if r)))
            for i in impls:
                r = got[i]
                if r is None:
                    cells.append("")
                elif len(r["samples"]) > 1:
                    lo, hi = spread(r)
                    cells.append(f"{fmt(r['median'])} [{fmt(lo)}–{fmt(hi)}]" + (" (wide)" if wide(r) else ""))
                else:
                    cells.append(fmt(r["median"]))
            cells += [ratio(exp, got[i], got[base_of(i, impls)]) for i in reach]
            rows.append("| " + " | ".join(cells) + " |")
    return "\n".join(rows), "/".join(shown(u) for u in sorted(units))


def figure(exp, plt):
    """The experiment's figure: its panels side by side, and one legend for
    all of them to their right, clear of the data."""
    kind = "strided" if exp["experiment"] == "strided" else exp["plot"]   # older files say loglog
    lines = lines_of(exp)
    m = exp["machine"]
    unit = shown(exp["results"][0]["unit"])
    note = f"{m['processes']} processes, {m['cores']} cores" + (" (oversubscribed)" if m["oversubscribed"] else "")
    if busy(exp):
        note += f"; busy machine ({load_text(exp)})"
    series = list(dict.fromkeys(s for s, _ in lines))
    impls = list(dict.fromkeys(i for _, i in lines))
    style = {i: dict(color=f"C{k}", marker="os^vD<>p*h"[k % 10]) for k, i in enumerate(impls)}
    total = next((r["bytes"] for r in exp["results"] if "bytes" in r), None)

    if kind == "receiver":
        series = [s for s in series if s.startswith("target,")]
    panels = series if kind in ("loglog", "lines", "receiver", "strided", "panels") else [None]
    # Transfers by size: latency above, bandwidth below. Strided transfers:
    # bandwidth above (where the file holds the total), share of contiguous below.
    # Panels: one per series, four to a row.
    bandwidth = kind == "loglog" and exp["x"] == "bytes" and unit == "µs"
    rows = 2 if bandwidth or (kind == "strided" and total) else 1
    cols = len(panels)
    if kind == "panels":
        cols = min(4, len(panels))
        rows = -(-len(panels) // cols)
    fig, grid = plt.subplots(rows, cols, squeeze=False,
                             figsize=(4.2 * cols + 0.8, 6.8 if rows == 2 else 3.8 * rows))

    def curve(ax, pts, impl, y, **kw):
        xs = sorted(pts)
        ax.plot(xs, [y(x, pts[x]) for x in xs], label=impl_name(impl), **{**style[impl], **kw})

    def log2_x(ax):
        ax.set_xscale("log", base=2)
        ax.set_xlabel(exp["x"])

    def bars(ax, groups, values):
        """groups: x labels; values: {impl: [value per group]}."""
        width = 0.8 / max(1, len(values))
        for k, (impl, vals) in enumerate(values.items()):
            ax.bar([g + k * width for g in range(len(groups))], vals, width, label=impl_name(impl),
                   color=style[impl]["color"])
        ax.set_xticks([g + 0.4 - width / 2 for g in range(len(groups))], groups, fontsize=7)

    for col, s in enumerate(panels):
        if kind == "panels":   # a series by size on log axes, else bars by x
            ax = grid[col // cols][col % cols]
            own = {impl: pts for (s2, impl), pts in lines.items() if s2 == s}
            xs = sorted({x for pts in own.values() for x in pts})
            s_unit = shown(next(iter(next(iter(own.values())).values()))["unit"])
            if len(xs) > 2 and xs[0] > 0:
                for impl, pts in own.items():
                    curve(ax, pts, impl, lambda x, r: r["median"])
                log2_x(ax)
                ax.set_yscale("log")
            else:
                bars(ax, [str(x) for x in xs], {i: [pts.get(x, {}).get("median", 0) for x in xs]
                                                for i, pts in own.items()})
            ax.set_ylabel(s_unit)
            ax.set_title(s, fontsize=9)
            continue
        ax = grid[0][col]
        own = {impl: pts for (s2, impl), pts in lines.items() if s2 == s}
        if kind == "strided":
            contiguous = own.get("reach contiguous", {})
            if total:
                for impl, pts in own.items():
                    curve(ax, pts, impl, lambda x, r: total / r["median"] * 1e-3)
                log2_x(ax)
                ax.set_ylim(bottom=0)
                ax.set_ylabel("GB/s")
                ax.set_title(f"{s}: bandwidth", fontsize=9)
                ax = grid[1][col]
            curve(ax, own.get("reach strided", {}), "reach strided",
                  lambda x, r: 100 * contiguous[x]["median"] / r["median"])
            log2_x(ax)
            ax.set_ylim(bottom=0)
            ax.set_ylabel("% of contiguous")
            ax.set_title(f"{s}: strided, % of contiguous bandwidth", fontsize=9)
        elif kind in ("loglog", "lines"):
            for impl, pts in own.items():
                curve(ax, pts, impl, lambda x, r: r["median"])
            ax.set_ylabel(unit)
            ax.set_title(s, fontsize=9)
            if kind == "loglog":
                log2_x(ax)
                ax.set_yscale("log")
            else:
                ax.set_xlabel(exp["x"])
                ax.set_xticks(sorted({x for pts in own.values() for x in pts}))   # process counts
            if bandwidth:
                low = grid[1][col]
                for impl, pts in own.items():
                    curve(low, pts, impl, lambda x, r: x / r["median"] * 1e-3)
                log2_x(low)
                low.set_yscale("log")
                low.set_ylabel("GB/s")
                low.set_title(f"{s}: bandwidth", fontsize=9)
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
            xs = sorted({x for pts in own.values() for x in pts})
            used = [i for i in impls if i in own]
            bars(ax, [f"{x} B" for x in xs], {i: [own[i].get(x, {}).get("median", 0) for x in xs] for i in used})
            alone = lines.get(("target alone", "local"), {}).get(0)
            if alone:
                ax.axhline(alone["median"], color="black", linewidth=0.8, linestyle="--",
                           label="target alone")
            width = 0.8 / len(used)
            for k, i in enumerate(used):   # the epochs the origins ran meanwhile, above each bar
                for g, x in enumerate(xs):
                    e = lines.get((s.replace("target", "epochs"), i), {}).get(x)
                    if e:
                        ax.annotate(f"{e['median']:.0f}", (g + k * width, own[i].get(x, {}).get("median", 0)),
                                    fontsize=6, ha="center", va="bottom")
            ax.margins(y=0.12)
            ax.set_title(f"{s} (figures: epochs run meanwhile)", fontsize=8)
            ax.set_xlabel("get size")
            ax.set_ylabel("the target's time, " + unit)
        elif kind == "overlap":
            t0s = {i: pts for (s2, i), pts in lines.items() if s2 == "computation 0%"}
            for impl, base in t0s.items():
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
            ax.set_xticks([50, 100, 200])
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
    for extra in range(len(panels), rows * cols if kind == "panels" else 0):
        grid[extra // cols][extra % cols].set_visible(False)
    legend = {}
    for ax in fig.axes:
        ax.grid(True, which="both", alpha=0.3)
        for handle, name in zip(*ax.get_legend_handles_labels()):
            legend.setdefault(name, handle)
    if legend:
        fig.legend(legend.values(), legend.keys(), loc="upper left", bbox_to_anchor=(1.0, 0.88), fontsize=7)
    about = f"{exp['figure']}, " if exp["figure"] else ""
    if kind == "strided":
        about += f"{size_text(total)} moved per operation, " if total else "total not recorded, "
    fig.suptitle(f"{exp['title']}\n{about}{note}", fontsize=9)
    fig.tight_layout()
    return fig


def plot(stem, exp, folder, plt):
    """Draws the experiment's figure into the folder; returns its file name."""
    fig = figure(exp, plt)
    name = f"{stem}.png"
    fig.savefig(os.path.join(folder, name), dpi=100, bbox_inches="tight")
    plt.close(fig)
    return name


def conditions(folder):
    """[(condition, sub-folder or "", runs)]: the folder's own runs (its
    own condition file's, if it is such a sub-folder), then each
    sub-folder's that says its condition and holds runs, in the order they
    were written (their condition files')."""
    def said(path):
        with open(path) as f:
            return f.read().strip()
    own = os.path.join(folder, CONDITION)
    out = [(said(own) if os.path.exists(own) else HERE, "", load(folder))]
    for sub in sorted(glob.glob(os.path.join(folder, "*", CONDITION)), key=lambda p: (os.path.getmtime(p), p)):
        path = os.path.dirname(sub)
        runs = load(path, required=False)
        if not runs:
            print(f"reach-report: {path} says its condition but holds no runs", file=sys.stderr)
            continue
        out.append((said(sub) or os.path.basename(path), os.path.basename(path), runs))
    return out


def geomean(values):
    return math.exp(sum(math.log(v) for v in values) / len(values))


def counted(exp, impl):
    """Whether the screen counts reach's impl in exp: reach as a user gets
    it (its default algorithm where the experiment measures several; over
    whichever path), not the variants beside it."""
    return impl == DEFAULTS.get(exp["experiment"]) or (impl.startswith("reach") and " " not in impl)


def glance(conds):
    """The opening screen: a row per condition and path (ga-bench's build,
    or reach-bench) and baseline: how many figures have both in one run
    (times, with spreads), the geometric mean of the baseline's time over
    reach's, how many are below 1 (the baseline faster), and the worst."""
    rows = {}
    for what, sub, runs in conds:
        for stem, exp in runs.items():
            stem = os.path.join(sub, stem)
            lines = lines_of(exp)
            impls = list(dict.fromkeys(i for _, i in lines))
            for impl in impls:
                base = base_of(impl, impls)
                if not base or not counted(exp, impl):
                    continue
                path = ("Global Arrays (ga-bench), " + ("network path" if impl.endswith(NET) else "one node")
                        if exp["experiment"] == "ga" else "reach-bench")
                row = rows.setdefault((what, path, impl_name(base)), [])
                for (series, i), pts in lines.items():
                    if i != impl:
                        continue
                    for x, a in pts.items():
                        b = lines.get((series, base), {}).get(x)
                        if a["unit"] in TIMES and ratio(exp, a, b):
                            in_bytes = exp["x"] == "bytes" or (exp["experiment"] == "ga" and series in GA_SIZES)
                            at = size_text(x) if in_bytes else f"{exp['x']} {x}" if exp["x"] else ""
                            row.append((b["median"] / a["median"], " ".join(filter(None, (f"`{series}`", at, f"({stem})")))))
    out = ["| condition | path | baseline | figures | geometric mean | below 1 | worst |", "|---|---|---|---|---|---|---|"]
    for (what, path, base), got in rows.items():
        if not got:
            continue
        g = geomean([q for q, _ in got])
        worst = min(got)
        out.append(f"| {what} | {path} | {base} | {len(got)} | {g:.2f} | {sum(q < 1 for q, _ in got)} | "
                   f"{worst[0]:{'.2f' if worst[0] >= 0.01 else '.1e'}}: {worst[1]} |")
    return out


def report(folder):
    conds = conditions(folder)
    runs = {os.path.join(sub, stem): exp for _, sub, got in conds for stem, exp in got.items()}
    condition_of = {os.path.join(sub, stem): what for what, sub, got in conds for stem in got}
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
    busy_stems = [stem for stem, exp in runs.items() if busy(exp)]
    unrecorded = [stem for stem, exp in runs.items() if loads(exp) is None]
    wide_count = sum(wide(r) for exp in runs.values() for r in exp["results"])
    out = ["# reach-bench report", "",
           f"Machine {m['host']}: {m['cores']} cores; {m['mpi']}. Runs at "
           + ", ".join(str(c) for c in counts) + " processes"
           + (", under " + str(len(conds)) + " conditions" if len(conds) > 1 else "") + ".", "",
           "## At a glance", "",
           "Per condition and path, reach as a user gets it (its default algorithms) against each baseline, "
           "over every figure of time both measured in one run: the geometric mean of the baseline's time "
           "over reach's (above 1: reach is faster), how many figures are below 1, and the worst. The "
           "sections below hold every figure, variants included.", ""] + glance(conds) + ["",
           f"Figures are medians of the samples (up to {first['samples']} per point) with the middle half "
           "of the samples (25th–75th percentile) in brackets; a figure of one run (LU's breakdown, from "
           "its median run) has neither brackets nor ratios. Every comparison was measured in the same run (ga-bench's: its two builds one right after the "
           "other); "
           "`MPI-3 / reach …` is MPI-3's time over reach's, `ARMCI-MPI / reach` (Global Arrays "
           "operations, ga-bench) ARMCI-MPI's (above 1: reach is faster)."
           + (" Sections marked **more processes than cores** show an oversubscribed machine: they measure "
              "scaling and waiting, and leave MPI-3 (which busy-polls) out." if over else ""), "",
           f"Marks. A section headed **busy machine** ran while {BUSY_RULE}; each of its ratios carries "
           f"(busy). A figure carries (wide) where {WIDE_RULE}, and so does every ratio taken from it. "
           "A ratio in **bold** is a win for reach that the samples bear out: the baseline's 25th percentile is "
           "above reach's 75th, on a machine that was not busy, from figures that are not wide. Every "
           "other ratio is plain, among them all below 1 (the baseline faster).", ""]
    if busy_stems:
        out += ["**Busy machine** during " + ", ".join(f"`{s}`" for s in busy_stems)
                + ": figures measured then may say more about the other work than about reach or its baseline.", ""]
    if unrecorded:
        out += [f"The load was not recorded for {len(unrecorded)} of the {len(runs)} experiments: whether "
                "the machine was busy then is unknown, and their ratios are bolded on their samples alone.", ""]
    if wide_count:
        out += [f"{wide_count} figures carry (wide).", ""]
    env = first.get("environment", {})
    if env:
        out += ["Environment: " + ", ".join(f"`{k}={v}`" for k, v in sorted(env.items())), ""]
    for stem, exp in runs.items():
        t, unit = table(exp)
        where = "" if condition_of[stem] == HERE else f", {condition_of[stem]}"
        out += [f"## {exp['title']} ({exp['machine']['processes']} processes{where}"
                + (", **busy machine**)" if busy(exp) else ")"), "",
                f"`{stem}`" + (f" — {exp['figure']}" if exp["figure"] else "")
                + f"; {placement(exp['machine'])}; {load_text(exp)}; values in {unit}.", ""]
        if plt and exp["results"]:
            out += [f"![{stem}]({plot(stem, exp, folder, plt)})", ""]
        out += [t, ""]
    path = os.path.join(folder, "report.md")
    with open(path, "w") as f:
        f.write("\n".join(out))
    print(f"reach-report: {path} and {len(glob.glob(os.path.join(folder, '*.png')))} plots")


def compare(old_dir, new_dir):
    old, new = load(old_dir), load(new_dir)
    print(f"{new_dir} (NEW) against {old_dir} (OLD): the median of every figure both hold, NEW/OLD, and "
          "whether NEW is better: times (µs, ms) are better lower, counts (epochs) higher. Per experiment, "
          "the geometric mean of NEW's gains: OLD/NEW for times and memory, NEW/OLD for counts (above 1: NEW is better). "
          "A figure is better or worse only where the middle halves of the two sets of samples do not "
          "overlap; otherwise the same.")
    shared = 0
    for stem, exp in new.items():
        if stem not in old:
            continue
        before = {(r["series"], r["impl"], r["x"]): r for r in old[stem]["results"]}
        marks = [f"{name}: busy machine" for name, e in (("OLD", old[stem]), ("NEW", exp)) if busy(e)]
        print(f"\n{stem}: {exp['title']}" + (f" ({'; '.join(marks)})" if marks else ""))
        gains = []
        for r in exp["results"]:
            b = before.get((r["series"], r["impl"], r["x"]))
            if not b or b["median"] <= 0 or r["median"] <= 0:
                continue
            q = r["median"] / b["median"]
            higher = r["unit"] not in LOWER
            gain = q if higher else 1 / q
            gains.append(gain)
            verdict = "same" if not apart(r, b) else "better" if gain > 1 else "worse"
            print(f"  {label(r['series'], r['impl']):40s} {exp['x'] or ''}={r['x']:<8} "
                  f"{fmt(b['median']):>9} -> {fmt(r['median']):>9} {shown(r['unit']):6s} {q:6.2f}  "
                  f"{verdict:6s} ({'higher' if higher else 'lower'} is better)"
                  + (" (wide)" if wide(r) or wide(b) else ""))
        if gains:
            shared += 1
            g = geomean(gains)
            print(f"  geometric mean of {len(gains)} gains: {g:.3f}")
    if shared == 0:
        sys.exit("reach-report: the two folders share no figure")


if __name__ == "__main__":
    if len(sys.argv) == 4 and sys.argv[1] == "--compare":
        compare(sys.argv[2], sys.argv[3])
    elif len(sys.argv) == 2:
        report(sys.argv[1])
    else:
        sys.exit(__doc__)

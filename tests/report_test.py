#!/usr/bin/python3
"""report_test.py REACH_REPORT: runs tools/reach-report.py on results folders
written here in reach-bench's format, and checks what it says:

- an experiment run on a busy machine is marked, and so is each of its
  ratios, which is never bold; a figure with a wide spread is marked, and so
  is each ratio taken from it; only a win for reach that the samples bear
  out is bold, never a ratio below 1; the report states these rules;
- --compare says per row whether NEW is better, times being better lower
  and counts (epochs) higher, and its geometric mean follows that;
- the files of one experiment and process count written by two programs
  (ga-bench linked with reach, and with ARMCI-MPI) make one section with
  ARMCI-MPI's time over reach's, and its plot a panel per series;
- the opening screen: per condition (the folder's own runs, and each
  sub-folder that says its condition) and path, the geometric mean of the
  baseline's time over reach's default algorithms, the count below 1 and
  the worst figure; variants are left out of it, and the sections of a
  sub-folder name its condition;
- the plots: integer ticks on process-count axes, legends clear of the
  data, "µs" on time axes, and the strided plot in GB/s and % of
  contiguous with its total.

Prints every failed check; the status is 1 if any failed."""
import importlib.util
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile

SCRIPT = sys.argv[1]
failures = []


def check(ok, what):
    if not ok:
        failures.append(what)


def around(v, rel=0.01, n=7):
    """n samples spread evenly over v * (1 ± rel)."""
    return [v * (1 + rel * (2 * k / (n - 1) - 1)) for k in range(n)]


def result(series, impl, x, samples, unit="us", **extra):
    s = sorted(samples)
    q = statistics.quantiles(s, n=4, method="inclusive") if len(s) > 1 else [s[0]] * 3
    return dict(series=series, impl=impl, x=x, **extra, unit=unit, median=s[len(s) // 2], min=s[0], q1=q[0],
                q3=q[2], max=s[-1], samples=samples)


def write(folder, name, plot, x, results, load=(0.5, 0.6), processes=2, cores=2, suffix="", steal=None):
    data = {"experiment": name, "title": f"the {name} experiment", "figure": "", "x": x, "plot": plot,
            "machine": {"host": "test", "cores": cores, "processes": processes, "nodes": 1,
                        "target": "same node", "oversubscribed": processes > cores, "mpi": "MPICH"},
            "samples": 7, "environment": {},
            "load_before": {"cores": cores, "loadavg": [load[0], 0.5, 0.4]},
            "results": results,
            "load_after": {"cores": cores, "loadavg": [load[1], 0.5, 0.4]}}
    if steal is not None:  # the host's steal in clock ticks, of 1000 ticks of the cores' time
        data["load_before"].update(ticks=50000, steal=700)
        data["load_after"].update(ticks=51000, steal=700 + steal)
    path = os.path.join(folder, f"{name}-np{processes}{suffix}.json")
    with open(path, "w") as f:
        json.dump(data, f, indent=1)
    return data


def along(line):
    """Points every twentieth of the way along each segment of a plotted
    line, in display coordinates."""
    xy = line.get_transform().transform(line.get_xydata())
    return [a + (b - a) * k / 20 for a, b in zip(xy, xy[1:]) for k in range(21)] or list(xy)


def row(report, series, x=""):
    """The table row of series at x (the first such)."""
    m = re.search(rf"^\| {re.escape(series)} \| {x} \|.*$", report, re.M)
    check(m, f"report.md has no row for {series} {x}")
    return m.group(0) if m else ""


def section(report, stem):
    """The report's section of one experiment file, from its heading on."""
    start = report.rfind("\n## ", 0, report.find(f"\n`{stem}`"))
    end = report.find("\n## ", start + 1)
    return report[start:end if end > 0 else len(report)]


def test_report(top):
    folder = os.path.join(top, "marks")
    os.mkdir(folder)
    # A quiet machine: a clear win, a loss, a win within the noise.
    write(folder, "sync", "bars", "", [
        result("fetch-and-add 64-bit", "reach", 0, around(0.01)),
        result("fetch-and-add 64-bit", "mpi3", 0, around(0.8)),
        result("lock+unlock", "reach", 0, around(1.0)),
        result("lock+unlock", "mpi3", 0, around(0.5)),
        result("barrier", "reach", 0, around(0.10, 0.2)),
        result("barrier", "mpi3", 0, around(0.11, 0.2))])
    # A busy machine (load 7.9 and 8.3 on 2 cores): MPI-3's 8-byte put at 7990 µs.
    write(folder, "transfer", "loglog", "bytes", [
        result("put", "reach", 8, around(0.0237)),
        result("put", "mpi3", 8, around(7990)),
        result("put", "local", 8, around(0.003))], load=(7.9, 8.3))
    # A quiet load, but the host took 8% of the cores' time (steal); and
    # 1% (not busy).
    write(folder, "locks", "lines", "processes", [
        result("lock acquire", "reach mcs", 2, around(30.0)),
        result("lock acquire", "mpi3", 2, around(90.0))], steal=80)
    write(folder, "ga_sync", "bars", "", [
        result("sync", "reach combined", 0, around(10.0)),
        result("sync", "mpi3", 0, around(30.0))], steal=10)
    # A figure with a wide spread.
    write(folder, "win_latency", "loglog", "bytes", [
        result("win put", "reach direct", 8, around(0.08)),
        result("win put", "mpi3", 8, [1, 1, 2, 4, 9, 9, 9])])
    subprocess.run([sys.executable, SCRIPT, folder], check=True, stdout=subprocess.DEVNULL)
    with open(os.path.join(folder, "report.md")) as f:
        report = f.read()

    check("**80.00**" in row(report, "fetch-and-add 64-bit"), "a clear win for reach is not bold")
    check(row(report, "lock+unlock").endswith("| 0.50 |"), "a ratio below 1 is not plain")
    check(row(report, "barrier").endswith("| 1.10 |"), "a win within the spread of the samples is not plain")
    bold = [float(v) for v in re.findall(r"\*\*([0-9.]+)\*\*", report)]
    check(bold and min(bold) > 1, f"bold ratios below 1: {bold}")

    busy = section(report, "transfer-np2")
    check(re.search(r"^## .*busy machine", busy, re.M), "the busy experiment's heading is not marked")
    check("load average 7.90 before, 8.30 after on 2 cores" in busy, "the busy experiment's load is not shown")
    put = row(busy, "put", 8)
    check(re.search(r"\| 337130\.\d\d \(busy\) \|$", put), f"the busy ratio is not marked: {put}")
    check("**" not in put, "a ratio from a busy machine is bold")
    check("busy machine" not in section(report, "sync-np2").split("\n")[1],
          "an experiment on a quiet machine is marked busy")
    check(re.search(r"Busy machine\*\* during `transfer-np2`", report), "the report's summary does not name "
          "the busy experiment")

    stolen = section(report, "locks-np2")
    check(re.search(r"^## .*busy machine", stolen, re.M), "an experiment the host stole 8% from is not marked busy")
    check("the host took 8.0% of the cores' time (steal)" in stolen, "the host's steal is not shown")
    check("**" not in row(stolen, "lock acquire", 2), "a ratio measured while the host stole 8% is bold")
    calm = section(report, "ga_sync-np2")
    check("busy machine" not in calm.split("\n")[1] and "took 1.0% of the cores' time" in calm,
          "an experiment the host stole 1% from is marked busy, or its steal not shown")

    wide = row(report, "win put", 8)
    check(re.search(r"\[1\.5–9\] \(wide\)", wide), f"the wide figure is not marked: {wide}")
    check(wide.endswith("| 50.00 (wide) |"), f"the ratio from a wide figure is not marked: {wide}")
    check("(wide)" not in row(report, "fetch-and-add 64-bit"), "a narrow figure is marked wide")

    for rule in ("1-minute load average", "1.5 times the cores", "more than 5% of the cores' time", "more than 50% of its median",
                 "ratio in **bold** is a win for reach", "below 1"):
        check(rule in report, f"the report does not state its rule: {rule!r}")


def test_glance(top):
    folder = os.path.join(top, "glance")
    machines = os.path.join(folder, "machines")
    stray = os.path.join(folder, "stray")
    empty = os.path.join(folder, "empty")
    for d in (folder, machines, stray, empty):
        os.mkdir(d)
    with open(os.path.join(empty, "condition"), "w") as f:   # a run cut short: said, but no files
        f.write("cut short\n")
    write(folder, "sync", "bars", "", [
        result("fetch-and-add 64-bit", "reach", 0, around(0.01)),
        result("fetch-and-add 64-bit", "mpi3", 0, around(0.8)),
        result("lock+unlock", "reach", 0, around(1.0)),
        result("lock+unlock", "mpi3", 0, around(0.5))])
    # Two algorithms: the default (MCS) counts at a glance, the other not.
    write(folder, "locks", "lines", "processes", [
        result("lock+unlock", "reach mcs", 2, around(4.0)),
        result("lock+unlock", "reach ticket", 2, around(0.1)),
        result("lock+unlock", "mpi3", 2, around(2.0))])
    with open(os.path.join(machines, "condition"), "w") as f:
        f.write("between two machines\n")
    write(machines, "ga", "panels", "size", [
        result("get", "reach-net", 8, around(2.0)), result("sync", "reach-net", 0, around(10.0))],
        suffix="-reach-net")
    write(machines, "ga", "panels", "size", [
        result("get", "ARMCI-MPI-net", 8, around(4.0)), result("sync", "ARMCI-MPI-net", 0, around(5.0))],
        suffix="-armci-mpi-net")
    write(stray, "sync", "bars", "", [   # no condition file: not part of the report
        result("barrier", "reach", 0, around(1.0)), result("barrier", "mpi3", 0, around(100.0))])
    subprocess.run([sys.executable, SCRIPT, folder], check=True, stdout=subprocess.DEVNULL)
    with open(os.path.join(folder, "report.md")) as f:
        report = f.read()
    head = report[:report.find("\nFigures are")]
    check("## At a glance" in head, "the report does not open with its screen")
    here = re.search(r"^\| one machine \| reach-bench \| MPI-3 \| (.*)$", head, re.M)
    check(here and here.group(1).startswith(f"3 | {(80 * 0.5 * 0.5) ** (1 / 3):.2f} | 2 | 0.50: "),
          f"the one-machine row does not count reach's defaults alone: {here and here.group(0)}")
    there = re.search(r"^\| between two machines \| Global Arrays \(ga-bench\), network path \| "
                      r"ARMCI-MPI \(network\) \| (.*)$", head, re.M)
    check(there and there.group(1) == "2 | 1.00 | 1 | 0.50: `sync` 0 B (machines/ga-np2) |",
          f"the between-machines row is wrong: {there and there.group(0)}")
    check("stray" not in report, "a sub-folder that says no condition is reported")
    check("cut short" not in report, "a sub-folder with no runs is reported")
    check(re.search(r"^## Global Arrays.*between two machines\)$", report, re.M) or
          re.search(r"^## the ga experiment \(2 processes, between two machines\)$", report, re.M),
          "the sub-folder's section does not name its condition")
    # The sub-folder's own report (reach-bench writes one) says its condition.
    subprocess.run([sys.executable, SCRIPT, machines], check=True, stdout=subprocess.DEVNULL)
    with open(os.path.join(machines, "report.md")) as f:
        own = f.read()
    check(re.search(r"^\| between two machines \| Global Arrays", own, re.M),
          "a sub-folder's own report does not say its condition")


def test_merge(top):
    folder = os.path.join(top, "merge")
    os.mkdir(folder)
    write(folder, "ga", "panels", "size", [
        result("get", "reach", 8, around(0.1)), result("get", "reach", 64, around(0.2)),
        result("get", "reach", 512, around(0.4)), result("dgemm", "reach", 128, around(2.0), "ms")],
        suffix="-reach")
    write(folder, "ga", "panels", "size", [
        result("get", "ARMCI-MPI", 8, around(1.0)), result("get", "ARMCI-MPI", 64, around(1.0)),
        result("get", "ARMCI-MPI", 512, around(1.2)), result("dgemm", "ARMCI-MPI", 128, around(2.0), "ms")],
        load=(0.5, 3.5), suffix="-armci-mpi")
    subprocess.run([sys.executable, SCRIPT, folder], check=True, stdout=subprocess.DEVNULL)
    with open(os.path.join(folder, "report.md")) as f:
        report = f.read()
    check(report.count("\n## ") - report.count("\n## At a glance") == 1, "two files of one experiment make more than one section")
    check("| ARMCI-MPI / reach |" in report, "the merged section has no ARMCI-MPI / reach column")
    check(re.search(r"^\| get \| 8 \| .* \| .* \| 10\.00", row(report, "get", 8)),
          f"ARMCI-MPI's time over reach's is not given: {row(report, 'get', 8)}")
    check("load average 0.50 before, 3.50 after" in report, "the merged section does not keep the higher load")
    check(os.path.exists(os.path.join(folder, "ga-np2.png")), "the merged experiment has no plot")

    # The network path's runs: each compared with the other build's on the
    # same path, never across paths.
    write(folder, "ga", "panels", "size", [result("get", "reach-net", 8, around(0.5))], suffix="-reach-net")
    write(folder, "ga", "panels", "size", [result("get", "ARMCI-MPI-net", 8, around(2.0))],
          suffix="-armci-mpi-net")
    subprocess.run([sys.executable, SCRIPT, folder], check=True, stdout=subprocess.DEVNULL)
    with open(os.path.join(folder, "report.md")) as f:
        report = f.read()
    check("| ARMCI-MPI (network) / reach (network) | ARMCI-MPI / reach |" in report,
          "the network path has no column of its own")
    check(re.search(r"^\| get \| 8 \| .*\| 4\.00[^|]*\| 10\.00", row(report, "get", 8)),
          f"a path is compared with the other path: {row(report, 'get', 8)}")


def test_compare(top):
    def folder(name, fadd, lock, epochs, noisy):
        path = os.path.join(top, name)
        os.mkdir(path)
        write(path, "sync", "bars", "", [result("fetch-and-add 64-bit", "reach", 0, around(fadd)),
                                         result("lock+unlock", "reach", 0, around(lock))])
        write(path, "win_receiver", "receiver", "bytes", [
            result("target, 1 origin", "reach direct", 1024, around(20.0), unit="ms"),
            result("epochs, 1 origin", "reach direct", 1024, around(epochs), unit="epochs"),
            result("target, 3 origins", "reach direct", 1024, around(noisy, rel=0.3), unit="ms")])
        return path

    old = folder("old", 0.02, 1.0, 1000, 20.0)
    # fetch-and-add faster, lock slower, 4x the epochs; a 10% longer time
    # whose samples overlap the old ones
    new = folder("new", 0.01, 2.0, 4000, 22.0)
    out = subprocess.run([sys.executable, SCRIPT, "--compare", old, new], check=True, capture_output=True,
                         text=True).stdout

    def line(what):
        m = re.search(rf"^  {re.escape(what)} .*$", out, re.M)
        check(m, f"--compare prints no row for {what}")
        return m.group(0) if m else ""
    check(re.search(r"better +\(lower is better\)", line("fetch-and-add 64-bit")),
          "--compare: a shorter time is not better: " + line("fetch-and-add 64-bit"))
    check(re.search(r"worse +\(lower is better\)", line("lock+unlock")),
          "--compare: a longer time is not worse: " + line("lock+unlock"))
    check(re.search(r"4\.00 +better +\(higher is better\)", line("epochs, 1 origin (reach direct)")),
          "--compare: more epochs are not better: " + line("epochs, 1 origin (reach direct)"))
    check(re.search(r"same +\(lower is better\)", line("target, 1 origin (reach direct)")),
          "--compare: an equal time is not the same")
    check(re.search(r"1\.10 +same +\(lower is better\)", line("target, 3 origins (reach direct)")),
          "--compare: a difference within the samples' spread is not the same: "
          + line("target, 3 origins (reach direct)"))
    means = [float(g) for g in re.findall(r"geometric mean of \d+ gains: ([0-9.]+)", out)]
    expected = [1.0, round((4 * 20 / 22) ** (1 / 3), 3)]
    check(means == expected, f"--compare: the geometric means of the gains are {means}, not {expected}")
    check("times" in out.split("\n")[0] and "higher" in out.split("\n")[0],
          "--compare does not say which direction is better")


def test_plots(top):
    sys.dont_write_bytecode = True   # no __pycache__ beside the script
    spec = importlib.util.spec_from_file_location("reach_report", SCRIPT)
    report = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(report)
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    folder = os.path.join(top, "plots")
    os.mkdir(folder)

    exps = {}
    exps["locks"] = write(folder, "locks", "lines", "processes", [
        result(part, impl, p, around(v * p)) for part in ("lock acquire", "lock release", "lock+unlock")
        for impl, v in (("reach hybrid", 0.3), ("reach ticket", 0.3), ("reach mcs", 0.1)) for p in (1, 2, 4)],
        processes=4)
    lu = []
    for p in (1, 2, 4):
        for impl in ("reach direct", "reach deferred"):
            lu.append(result("lu", impl, p, around(75.0)))
            for part, v in zip(report.LU_PARTS, (0.1, 0.5, 0.5, 30.0, 44.0)):
                lu.append(result(f"lu {part}", impl, p, [v], unit="ms"))
    for r in lu:
        r["unit"] = "ms"
    exps["lu"] = write(folder, "lu", "stacked", "processes", lu, processes=4)
    receiver = [result("target alone", "local", 0, around(19.3), unit="ms")]
    for size in (1024, 32768, 262144):
        for impl in ("reach direct", "reach deferred", "mpi3"):
            receiver += [result("target, 1 origin", impl, size, around(19.3), unit="ms"),
                         result("epochs, 1 origin", impl, size, around(600000.0 / size * 1024), unit="epochs")]
    exps["win_receiver"] = write(folder, "win_receiver", "receiver", "bytes", receiver)
    overlap = []
    for impl, t0 in (("reach direct", 0.07), ("reach deferred", 0.08), ("mpi3", 4.0)):
        for size in (8, 16384, 262144):
            for share, hidden in ((0, 0), (50, 0.1), (100, -0.2), (200, 0.15)):
                t = t0 * (1 + share / 100 - hidden) * (1 + size / 262144)
                overlap.append(result(f"computation {share}%", impl, size, around(t)))
    exps["win_overlap"] = write(folder, "win_overlap", "overlap", "computation, % of the epoch", overlap)
    exps["transfer"] = write(folder, "transfer", "loglog", "bytes", [
        result(op, impl, size, around(v * (1 + size / 1024))) for op in ("put", "get")
        for impl, v in (("reach", 0.01), ("mpi3", 0.4), ("local", 0.003)) for size in (8, 64, 512, 4096)])
    exps["sync"] = write(folder, "sync", "bars", "", [
        result(s, impl, 0, around(v)) for s in ("fetch-and-add 64-bit", "lock+unlock", "barrier")
        for impl, v in (("reach", 0.01), ("mpi3", 0.8))])
    exps["strided"] = write(folder, "strided", "strided", "run bytes", [
        result(op, impl, run, around(t), bytes=1 << 20) for op in ("put", "get", "acc") for run in (8, 64, 4096)
        for impl, t in (("reach strided", 23.0 * 512 / run + 23.0), ("reach contiguous", 23.0))])

    for name, exp in exps.items():
        fig = report.figure(exp, plt)
        fig.canvas.draw()
        renderer = fig.canvas.get_renderer()
        legends = list(fig.legends) + [ax.get_legend() for ax in fig.axes if ax.get_legend()]
        check(legends, f"{name}: the plot has no legend")
        for legend in legends:
            box = legend.get_window_extent(renderer)
            for ax in fig.axes:
                covered = [p for p in ax.patches if p.get_window_extent(renderer).overlaps(box)]
                covered += [t for t in ax.texts if t.get_window_extent(renderer).overlaps(box)]
                covered += [xy for line in ax.lines for xy in along(line) if box.contains(*xy)]
                check(not covered, f"{name}: the legend covers data: {covered[:3]}")
        labels = [ax.get_xlabel() for ax in fig.axes] + [ax.get_ylabel() for ax in fig.axes]
        check(not any(re.search(r"\bus\b", t) for t in labels), f"{name}: an axis is labelled us: {labels}")
        if name not in ("strided", "win_overlap") and any(r["unit"] == "us" for r in exp["results"]):
            check(any("µs" in t for t in labels), f"{name}: no axis is labelled µs: {labels}")
        for ax in fig.axes:
            if ax.get_xlabel() == "processes":
                ticks = list(ax.get_xticks())
                check(all(float(t).is_integer() for t in ticks), f"{name}: fractional process counts {ticks}")
        if name == "strided":
            ylabels = {ax.get_ylabel() for ax in fig.axes}
            check(ylabels == {"GB/s", "% of contiguous"}, f"strided: the axes show {ylabels}, not GB/s and "
                  "% of contiguous")
            check("1 MiB" in fig._suptitle.get_text(), "strided: the plot does not state its total")
        plt.close(fig)


def main():
    with tempfile.TemporaryDirectory() as top:
        for test in (test_report, test_glance, test_merge, test_compare, test_plots):
            try:
                test(top)
            except Exception as e:   # a crash is a failure of this test, with the others still run
                failures.append(f"{test.__name__}: {type(e).__name__}: {e}")
    for f in failures:
        print("report_test: FAILED:", f)
    print("report_test:", "failed" if failures else "passed")
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()

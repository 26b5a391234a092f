"""What reach-report cannot vouch for: an experiment run on a busy machine
(its load, or the host's steal, while it ran) and a figure whose samples
spread wide. reach-report.py states these rules at the top of its report
and marks what they catch; its comparisons use them too."""
import statistics

BUSY_LOAD = 1.5        # a load average above this many times the cores (or processes): busy
WIDE = 0.5             # a middle half of the samples wider than this share of the median: wide
BUSY_STEAL = 0.05      # a share of the cores' time above this taken by the host (steal): busy
BUSY_RULE = (f"the 1-minute load average before or after the experiment was above {BUSY_LOAD} times the "
             "cores (with more processes than cores, the processes), or the host took more than "
             f"{100 * BUSY_STEAL:.0f}% of the cores' time for its other work (steal) meanwhile: other work "
             "competed for the cores")
WIDE_RULE = f"the middle half of its samples spans more than {100 * WIDE:.0f}% of its median"


def spread(r):
    """The middle half of a figure's samples (25th to 75th percentile): the
    q1 and q3 reach-bench records, or computed from the samples in files
    older than those."""
    if "q1" in r:
        return r["q1"], r["q3"]
    samples = r["samples"]
    if len(samples) < 2:
        return samples[0], samples[0]
    q = statistics.quantiles(samples, n=4, method="inclusive")
    return q[0], q[2]


def apart(a, b):
    """Whether the middle halves of two figures' samples do not overlap."""
    return spread(a)[0] > spread(b)[1] or spread(b)[0] > spread(a)[1]


def wide(r):
    """Whether a figure's samples spread too far for it to be trusted."""
    lo, hi = spread(r)
    return hi - lo > WIDE * r["median"]


def loads(exp):
    """The 1-minute load averages before and after the experiment, or None
    where the file does not hold them."""
    before, after = exp.get("load_before"), exp.get("load_after")
    if not (before and after and before["loadavg"] and after["loadavg"]):
        return None
    return before["loadavg"][0], after["loadavg"][0]


def steal_of(exp):
    """The share of the cores' time that the host took for its other work
    (steal) while the file's experiment ran, or None where the file does
    not hold the ticks (older files, or no /proc/stat)."""
    before, after = exp.get("load_before", {}), exp.get("load_after", {})
    if min(before.get("ticks", -1), after.get("ticks", -1), before.get("steal", -1), after.get("steal", -1)) < 0:
        return None
    ticks = after["ticks"] - before["ticks"]
    return (after["steal"] - before["steal"]) / ticks if ticks > 0 else None


def busy(exp):
    """Whether the experiment ran on a busy machine (BUSY_RULE)."""
    seen = loads(exp)
    if exp.get("steal") is not None and exp["steal"] > BUSY_STEAL:
        return True
    return seen is not None and max(seen) > BUSY_LOAD * max(exp["load_before"]["cores"],
                                                           exp["machine"]["processes"])


def load_text(exp):
    seen = loads(exp)
    text = ("load not recorded" if seen is None else
            f"load average {seen[0]:.2f} before, {seen[1]:.2f} after on {exp['load_before']['cores']} cores")
    if exp.get("steal") is not None:
        text += f"; the host took {100 * exp['steal']:.1f}% of the cores' time (steal)"
    return text

"""reach's message traces (REACH_TRACE, src/base/trace.h): reading them,
listing their events in time order (timeline), and fitting replayed
figures in the number of nodes. Used by reach-project.py; the replay
itself is reach_replay.py."""
import array
import bisect
import glob
import itertools
import math
import operator
import os
import struct
import sys

EVENT = struct.Struct("<QBBBBiIIQ")
(SEND, RECV, GET, AMO, DONE, WAIT, WAITED, STORE, SEE, MARK, HANDLED) = range(1, 12)
T, TYPE, THREAD, CHAN, PEER, SEQ, BYTES, REF = 0, 1, 2, 3, 5, 6, 7, 8   # an event's fields
REQUEST_CHANNELS = (0,)   # NET_REQUEST: handled by a handler
REPLY_CHANNEL = 1         # NET_REPLY: replies, and the tells that a target's writes are done

LSHM = 0.2   # us: a store to a shared word seen on another core


# ---- reading -----------------------------------------------------------------

class Rank:
    """One rank's trace: its header and its marks, and each workload's
    window (read_dir, windows). Its events stay in the file until a
    workload's are asked for (events)."""

    def __init__(self, path):
        self.path = path
        with open(path, "rb") as f:
            data = f.read()
        self.maps, self.marks, pos = [], {}, 0
        while True:
            end = data.index(b"\n", pos)
            line = data[pos:end].decode()
            pos = end + 1
            w = line.split(" ")
            if w[0] == "reach-trace" and w[1] != "1":
                sys.exit(f"reach-project: {path}: trace version {w[1]}, this tool reads 1")
            elif w[0] == "rank":
                kv = dict(zip(w[0::2], map(int, w[1::2])))
                self.rank, self.size, self.node = kv["rank"], kv["size"], kv["node"]
                self.nodes, self.node_size = kv["nodes"], kv["node_size"]
            elif w[0] == "map":
                self.maps.append((int(w[2], 16), int(w[3]), int(w[1])))
            elif w[0] == "mark":
                self.marks[int(w[1])] = line.split(" ", 2)[2]
            elif w[0] == "dropped" and int(w[1]):
                sys.exit(f"reach-project: {path}: {w[1]} events were dropped (the trace is "
                         "incomplete); trace fewer iterations")
            elif w[0] == "events":
                n = int(w[1])
                break
        if len(data) - pos != n * EVENT.size:
            sys.exit(f"reach-project: {path}: {n} events announced, "
                     f"{(len(data) - pos) / EVENT.size:g} present")
        self.start, self.count, self.words, self.windows = pos, n, {}, {}
        # The marks, [(index, label)], and their times {index: t}. The type
        # of each event is taken at C speed from the records (32 bytes: t at
        # 0, type at 8, thread at 9).
        body = memoryview(data)[pos:]
        types = body[8::EVENT.size].tobytes()
        self.mark_list, self.mark_t, i = [], {}, types.find(MARK)
        while i >= 0:
            ev = EVENT.unpack_from(body, i * EVENT.size)
            self.mark_list.append((i, self.marks[ev[BYTES]]))
            self.mark_t[i] = ev[T]
            i = types.find(MARK, i + 1)

    def find_windows(self, spans):
        """The window of each workload of spans, {name: (first, last, begin,
        end)}: its events from its begin mark to its end mark (indices), and
        those it served outside its own marks from the first rank's begin
        to the last rank's end (windows)."""
        with open(self.path, "rb") as f:
            f.seek(self.start)
            body = memoryview(f.read())
        t = array.array("Q")
        t.frombytes(body.cast("Q")[0::4].tobytes() if len(body) else b"")
        types, threads = body[8::EVENT.size].tobytes(), body[9::EVENT.size].tobytes()
        del body
        # The events a rank serves outside its own marks: its server
        # thread's, and its application thread's handlers (between a RECV
        # and its HANDLED), marks aside.
        serve, depth = array.array("I"), [0, 0]
        add = serve.append
        for i, typ, th in zip(itertools.count(), types, threads):
            d = depth[th]
            if (th == 1 or d > 0 or typ == RECV) and typ != MARK:
                add(i)
            if typ == RECV:
                depth[th] = d + 1
            elif typ == HANDLED and d > 0:
                depth[th] = d - 1
        in_order = all(map(operator.le, t, itertools.islice(t, 1, None)))
        for name, (first, last, b, e) in spans.items():
            if in_order:   # as reach writes them: those in [first, last] are a slice
                lo, hi = bisect.bisect_left(t, first), bisect.bisect_right(t, last)
                before = serve[bisect.bisect_left(serve, min(lo, b)):bisect.bisect_left(serve, b)]
                after = serve[bisect.bisect_right(serve, e):bisect.bisect_left(serve, max(hi, e + 1))]
            else:
                before = array.array("I", [i for i in serve if i < b and first <= t[i] <= last])
                after = array.array("I", [i for i in serve if i > e and first <= t[i] <= last])
            self.windows[name] = (before, b, e, after)

    def records(self, first, last):
        """Its events first to last, as they are in the file."""
        with open(self.path, "rb") as f:
            f.seek(self.start + first * EVENT.size)
            return f.read((last + 1 - first) * EVENT.size)

    def events(self, before, begin, end, after):
        """Its events of the indices before, begin to end, and after (each
        ascending), as tuples of EVENT's fields, read from the file."""
        lo = min(before[0], begin) if len(before) else begin
        hi = max(after[-1], end) if len(after) else end
        evs = list(EVENT.iter_unpack(self.records(lo, hi)))
        return [evs[i - lo] for i in before] + evs[begin - lo:end + 1 - lo] + [evs[i - lo] for i in after]

    def word(self, addr):
        """A shared word's owner and offset, from this rank's mappings."""
        w = self.words.get(addr)
        if w is None:
            w = self.words[addr] = self._word(addr)
        return w

    def _word(self, addr):
        for base, size, owner in self.maps:
            if base <= addr < base + size:
                return (owner, addr - base)
        return (self.rank, addr)


def trace_paths(d):
    """The rank files of a trace directory, in rank order."""
    paths = sorted(glob.glob(os.path.join(d, "rank-*.trace")))
    if not paths:
        sys.exit(f"reach-project: no rank-*.trace in {d}")
    return paths


def read_dir(d):
    """The ranks of a trace directory, with each workload's window."""
    ranks = [Rank(p) for p in trace_paths(d)]
    if len(ranks) != ranks[0].size:
        sys.exit(f"reach-project: {d}: {len(ranks)} traces for {ranks[0].size} ranks")
    marks = {name: [marks_of(r, name) for r in ranks] for name in workloads(ranks)}
    spans = {name: (min(r.mark_t[b] for r, (b, _) in zip(ranks, m)),
                    max(r.mark_t[e] for r, (_, e) in zip(ranks, m))) for name, m in marks.items()}
    for i, r in enumerate(ranks):
        r.find_windows({name: spans[name] + m[i] for name, m in marks.items()})
    return ranks


def workloads(ranks):
    """The workloads' names, in the order of rank 0's marks."""
    return [label[6:] for _, label in ranks[0].mark_list if label.startswith("begin ")]


def marks_of(rank, name):
    """The indices of rank's begin and end marks of workload name."""
    begin = end = None
    for i, label in rank.mark_list:
        if label == "begin " + name:
            begin = i
        elif label == "end " + name and begin is not None:
            end = i
            break
    if begin is None or end is None:
        sys.exit(f"reach-project: rank {rank.rank} has no begin and end marks of {name}")
    return begin, end


def windows(ranks, name):
    """Each rank's events of workload name: all from its begin mark to its
    end mark, and, while other ranks are still in the workload (from the
    first begin to the last end), the requests it served outside its own
    marks (its server thread's events, and its application thread's
    handlers: a rank that is done still serves the others); and each rank's
    (begin, end) time. The events are read when asked for: a window is
    (those before its begin, begin, end, those after its end), indices for
    Rank.events."""
    out = []
    for r in ranks:
        win = r.windows[name]
        out.append((win, r.mark_t[win[1]], r.mark_t[win[2]]))
    return out


def thread_cpu(r, evs, name):
    """The processor time, us, of rank r's application thread in workload
    name (its events evs) beyond the computations it marked: from the
    marks' record of it."""
    cpu, since = 0, {}
    for e in evs:
        if e[TYPE] == MARK and e[THREAD] == 0:
            label = r.marks[e[BYTES]]
            if label in ("begin " + name, "compute"):
                since[label] = e[REF]
            elif label == "end " + name and "begin " + name in since:
                cpu += e[REF] - since["begin " + name]
            elif label == "/compute" and "compute" in since:
                cpu -= e[REF] - since.pop("compute")
    return cpu / 1000.0


def iterations(name, iters, ranks):
    """The operations of a workload one after another: iters of each rank,
    taken in turn for a lock (its acquisitions queue), together otherwise;
    the LU is one."""
    if name.startswith("lu:"):
        return 1
    return iters * ranks if name.startswith("lock:") else iters


# ---- fitting and projection -----------------------------------------------------

MODELS = [
    ("a + b log2 n", lambda n: math.log2(n)),
    ("a + b n", lambda n: float(n)),
    ("a + b n log2 n", lambda n: n * math.log2(n)),
]


def fit_model(points, f):
    """Least squares of y = a + b f(n), weighted by 1/y^2 (relative error):
    (a, b), or None if b would be negative (a cost that shrinks with n) or
    the points cannot tell."""
    sw = sx = sy = sxx = sxy = 0.0
    for n, y in points:
        w = 1.0 / max(y, 1e-9) ** 2
        x = f(n)
        sw, sx, sy, sxx, sxy = sw + w, sx + w * x, sy + w * y, sxx + w * x * x, sxy + w * x * y
    det = sw * sxx - sx * sx
    if det <= 0:
        return None
    b = (sw * sxy - sx * sy) / det
    return None if b < 0 else ((sy - b * sx) / sw, b)


def fit(points):
    """The growth of points [(n, y)]: of the three models, in order of
    growth, a faster one only if it fits all points better by a fifth and
    (with four points or more) its fit to all but the largest n predicts
    that one better by a fifth. Two points cannot tell growths apart: a + b
    log2 n; one point: a constant. Returns (model, (a, b), the worst relative
    error over the points)."""
    if len(points) < 2:
        return ("a", lambda n: 0.0), (points[0][1], 0.0), 0.0
    points = sorted(points)

    def worst(model, coef, pts):
        return max(abs(coef[0] + coef[1] * model[1](n) - y) / y for n, y in pts if y > 0)

    best = None
    for model in MODELS[:1] if len(points) == 2 else MODELS:
        coef = fit_model(points, model[1])
        if coef is None:
            continue
        err = worst(model, coef, points)
        score = err
        if len(points) >= 4:
            early = fit_model(points[:-1], model[1])
            if early is None:
                continue
            score = worst(model, early, points[-1:])
        if best is None or (score < best[3] * 0.8 - 1e-9 and err < best[2] * 0.8 - 1e-9):
            best = (model, coef, err, score)
    if best is None:
        mean = sum(y for _, y in points) / len(points)
        return ("a", lambda n: 0.0), (mean, 0.0), worst(("a", lambda n: 0.0), (mean, 0.0), points)
    return best[:3]


def at(model, coef, n):
    return coef[0] + coef[1] * model[1](n)


# ---- a timeline ----------------------------------------------------------------

def timeline(d, mark=None, quantile=0.5, start=0, count=100):
    """Every rank's events of trace directory d in time order, as lines: the
    span from one of rank 0's marks whose labels begin with mark to the
    next, the one at quantile of those spans' lengths; without mark, count
    events from the start-th."""
    if not 0 <= quantile <= 1 or start < 0 or count < 0:
        sys.exit(f"reach-project: timeline: --quantile must lie in [0, 1] and --start and --count be at least 0 "
                 f"(not {quantile:g}, {start}, {count})")
    events, labels = [], {}
    for path in trace_paths(d):
        r = Rank(path)
        labels[r.rank] = r.marks
        if r.count:
            events += [(ev[T], r.rank, ev) for ev in EVENT.iter_unpack(r.records(0, r.count - 1))]
    if not events:
        sys.exit(f"reach-project: no events in {d}")
    events.sort(key=lambda e: (e[0], e[1]))
    lo, hi, out = start, start + count, []
    if mark is not None:
        starts = [i for i, (_, rank, ev) in enumerate(events)
                  if rank == 0 and ev[TYPE] == MARK and labels[0][ev[BYTES]].startswith(mark)]
        if len(starts) < 2:
            sys.exit(f"reach-project: rank 0 set marks beginning \"{mark}\" fewer than twice")
        spans = sorted((events[b][0] - events[a][0], a, b) for a, b in zip(starts, starts[1:]))
        k = min(int(quantile * len(spans)), len(spans) - 1)
        length, lo, hi = spans[k]
        hi += 1
        out.append(f"span {k + 1} of {len(spans)} by length: {length / 1000:.2f} us")
    names = {SEND: "send", RECV: "receive", GET: "get", AMO: "atomic", DONE: "done", WAIT: "wait", WAITED: "waited",
             STORE: "store", SEE: "see", MARK: "mark", HANDLED: "handled"}
    # A message's channel (transport/net.h), a named wait's kind (base/wait.h).
    chans = ("request", "reply", "push", "server push")
    kinds = ("transfer", "mutex", "barrier", "counter", "notify", "window")
    t0 = prev = events[lo][0] if lo < len(events) else 0
    out.append(f"{'us':>9} {'+us':>7}  rank thread  event     of           peer        seq    bytes")
    for t, rank, ev in events[lo:hi]:
        typ, of = ev[TYPE], ""
        if typ in (SEND, RECV, HANDLED) and ev[CHAN] < len(chans):
            of = chans[ev[CHAN]]
        elif typ in (WAIT, WAITED) and ev[CHAN] < len(kinds):
            of = kinds[ev[CHAN]]
        elif typ == MARK:
            of = labels[rank].get(ev[BYTES], "")
        out.append(f"{(t - t0) / 1000:9.2f} {(t - prev) / 1000:7.2f}  {rank:4d} {'server' if ev[THREAD] else 'app':7} "
                   f"{names.get(typ, typ):9} {of:11} {ev[PEER]:5d} {ev[SEQ]:10d} {ev[BYTES]:8d}")
        prev = t
    return out

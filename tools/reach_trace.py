"""reach's message traces (REACH_TRACE, src/base/trace.h): reading them,
replaying them under a LogGP model, and fitting the replayed figures in the
number of nodes. Used by reach-project.py, whose help says what the replay
assumes."""
import bisect
import glob
import heapq
import math
import os
import struct
import sys

EVENT = struct.Struct("<QBBBBiIIQ")
(SEND, RECV, GET, AMO, DONE, WAIT, WAITED, STORE, SEE, MARK, HANDLED) = range(1, 12)
T, TYPE, THREAD, CHAN, PEER, SEQ, BYTES, REF = 0, 1, 2, 3, 5, 6, 7, 8   # an event's fields
REQUEST_CHANNELS = (0,)   # NET_REQUEST: handled by a handler

LSHM = 0.2   # us: a store to a shared word seen on another core


# ---- reading -----------------------------------------------------------------

class Rank:
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
        self.events = list(EVENT.iter_unpack(data[pos:]))

    def word(self, addr):
        """A shared word's owner and offset, from this rank's mappings."""
        for base, size, owner in self.maps:
            if base <= addr < base + size:
                return (owner, addr - base)
        return (self.rank, addr)


def read_dir(d):
    paths = sorted(glob.glob(os.path.join(d, "rank-*.trace")))
    if not paths:
        sys.exit(f"reach-project: no rank-*.trace in {d}")
    ranks = [Rank(p) for p in paths]
    if len(ranks) != ranks[0].size:
        sys.exit(f"reach-project: {d}: {len(ranks)} traces for {ranks[0].size} ranks")
    return ranks


def workloads(ranks):
    """The workloads' names, in the order of rank 0's marks."""
    names = []
    for ev in ranks[0].events:
        if ev[TYPE] == MARK:
            label = ranks[0].marks[ev[BYTES]]
            if label.startswith("begin "):
                names.append(label[6:])
    return names


def marks_of(rank, name):
    """The indices of rank's begin and end marks of workload name."""
    begin = end = None
    for i, ev in enumerate(rank.events):
        if ev[TYPE] == MARK:
            label = rank.marks[ev[BYTES]]
            if label == "begin " + name:
                begin = i
            elif label == "end " + name and begin is not None:
                end = i
                break
    if begin is None or end is None:
        sys.exit(f"reach-project: rank {rank.rank} has no begin and end marks of {name}")
    return begin, end


_windows = {}   # of one run (the last asked for): name -> windows


def windows(ranks, name):
    """Each rank's events of workload name: all from its begin mark to its
    end mark, and, while other ranks are still in the workload (from the
    first begin to the last end), the requests it served outside its own
    marks (its server thread's events, and its application thread's
    handlers: a rank that is done still serves the others); and each rank's
    (begin, end) time."""
    run = os.path.dirname(ranks[0].path)
    if _windows.get("run") != run:
        _windows.clear()
        _windows["run"] = run
    if name in _windows:
        return _windows[name]
    marks = [marks_of(r, name) for r in ranks]
    first = min(r.events[b][T] for r, (b, _) in zip(ranks, marks))
    last = max(r.events[e][T] for r, (_, e) in zip(ranks, marks))
    out = []
    for r, (b, e) in zip(ranks, marks):
        serving, depth = [], {0: 0, 1: 0}
        for i, ev in enumerate(r.events):
            th = ev[THREAD]
            inside = depth[th] > 0 or ev[TYPE] == RECV
            depth[th] += (ev[TYPE] == RECV) - (ev[TYPE] == HANDLED and depth[th] > 0)
            if b <= i <= e:
                serving.append(ev)
            elif first <= ev[T] <= last and (th == 1 or inside) and ev[TYPE] != MARK:
                serving.append(ev)
        out.append((serving, r.events[b][T], r.events[e][T]))
    _windows[name] = out
    return out


# ---- the replay --------------------------------------------------------------

PAIR_SAMPLES = 5


def local_costs(ranks, wins, programs, tasks, store_of, software=None):
    """Each event's own software time (id(event) -> us), and the table it
    comes from: for each two kinds of event, the median over the workload of
    the gaps between them on one thread where the second waited for nothing
    (its message sent, its store made, before the first), which is reach's
    code between them on this machine; an event that waited gets its kinds'
    median. software, such a table from another run (one with a core for
    each process, whose gaps hold no time spent waiting for a core), is used
    instead of this trace's."""
    sent_at = {(r.rank, e[SEQ]): e[T] for r, evs in zip(ranks, wins) for e in evs if e[TYPE] == SEND}

    def waited(r, prev, ev):
        typ = ev[TYPE]
        if typ == RECV:
            at = sent_at.get((ev[PEER], ev[SEQ]))
            return at is None or at > prev[T]
        if typ == SEE:   # a wait whose store is not known may have waited
            s = store_of(r, ev)
            return s is None or s[0] > prev[T]
        return typ == DONE or typ == MARK and r.marks[ev[BYTES]] == "/compute"

    pairs, samples = [], {}
    seqs = [(prog["r"], prog["evs"]) for prog in programs] + [(r, [recv] + inner) for r, recv, inner in tasks.values()]
    for r, evs in seqs:
        for prev, ev in zip(evs, evs[1:]):
            key = (prev[TYPE], ev[TYPE])
            pairs.append((ev, key))
            if not software and not waited(r, prev, ev):
                samples.setdefault(key, []).append((ev[T] - prev[T]) / 1000.0)
    # A pair seen fewer than PAIR_SAMPLES times (such as a workload's last
    # event before its end mark) may hide a wait the trace does not show:
    # it costs the median of every gap.
    every = sorted(x for v in samples.values() for x in v)
    typical = every[len(every) // 2] if every else 0.0
    med = {k: sorted(v)[len(v) // 2] for k, v in samples.items() if len(v) >= PAIR_SAMPLES}
    if software:
        med, typical = software
    # A computation's end costs its processor time (replay), nothing more.
    return ({id(ev): 0.0 if ev[TYPE] == MARK else med.get(key, typical) for ev, key in pairs},
            (med, typical))


def replay(ranks, name, p, software=None):
    """The workload's critical path under parameters p: (time in us, network
    latencies on it, messages, measured us), each over the whole workload
    (measured from the last rank's begin to the last rank's end), and the
    table of software times used (see local_costs; software, if given).

    A discrete-event replay. Each thread's own events (its program) run in
    their order, each once what it depends on has happened. A message whose
    handling no wait of its thread depended on directly (a request, or a
    signal whose store a wait sees) is a task of its rank's handler, which
    runs tasks one at a time in the order they arrive; a reply or a pushed
    value is handled in its thread's program, which waits for it."""
    L, o, g, G = p["L"], p["o"], p["g"], p["G"] / 1000.0
    lshm, lrma = p.get("Lshm", LSHM), p.get("Lrma", 2 * L)
    spans = windows(ranks, name)
    wins = [w for w, _, _ in spans]
    sent, issued, stores = set(), set(), {}
    for r, evs in zip(ranks, wins):
        for ev in evs:
            if ev[TYPE] == SEND:
                sent.add((r.rank, ev[SEQ]))
            elif ev[TYPE] in (GET, AMO):
                issued.add((r.rank, ev[SEQ]))
            elif ev[TYPE] == STORE:
                stores.setdefault((r.node,) + r.word(ev[REF]), []).append((ev[T], ev[SEQ], r.rank))
    for lst in stores.values():
        lst.sort()
    store_times = {k: [x[0] for x in lst] for k, lst in stores.items()}

    seen = {}

    def store_of(r, ev):
        """The store a wait saw: the latest before it that wrote the value
        seen, else the latest before it."""
        if id(ev) not in seen:
            seen[id(ev)] = find_store(r, ev)
        return seen[id(ev)]

    def find_store(r, ev):
        word = (r.node,) + r.word(ev[REF])
        lst = stores.get(word)
        if not lst:
            return None
        i = bisect.bisect_right(store_times[word], ev[T])
        for s in reversed(lst[max(0, i - 256):i]):
            if s[1] == ev[SEQ]:
                return s
        return lst[i - 1] if i else None

    # Programs and tasks.
    programs, tasks = [], {}
    for r, evs in zip(ranks, wins):
        for th in (0, 1):
            mine = [e for e in evs if e[THREAD] == th]
            prog, i = [], 0
            while i < len(mine):
                ev = mine[i]
                if ev[TYPE] == RECV:
                    j, depth, has_store = i + 1, 1, False
                    while j < len(mine) and depth:
                        depth += (mine[j][TYPE] == RECV) - (mine[j][TYPE] == HANDLED)
                        has_store |= mine[j][TYPE] == STORE
                        j += 1
                    if ev[CHAN] in REQUEST_CHANNELS or has_store:
                        tasks[(ev[PEER], ev[SEQ])] = (r, ev, mine[i + 1:j - 1])
                        i = j
                        continue
                prog.append(ev)
                i += 1
            programs.append({"r": r, "evs": prog, "i": 0, "t": 0.0, "hops": 0})
    cost, table = local_costs(ranks, wins, programs, tasks, store_of, software)

    produced = {}      # ('a', sender, seq) arrival, ('c', rank, seq) completion, ('s', rank, t) store
    waiting = {}       # key -> programs blocked on it
    runnable = list(range(len(programs)))
    heap, order = [], 0
    # When a sequence (a thread's program, a rank's handler) may send again:
    # g apart. Not one per rank: the replay runs programs ahead of handlers.
    nic = {}
    free = {r.rank: (0.0, 0) for r in ranks}
    cpu_start, end_at = {}, {}
    counts = {"messages": 0}

    def produce(key, value):
        produced[key] = value
        runnable.extend(waiting.pop(key, ()))

    def execute(r, ev, now, hops, lane):
        """Does ev from (now, hops), once what it depends on has happened,
        in sequence lane; returns when it ends."""
        nonlocal order
        typ = ev[TYPE]
        c = cost.get(id(ev), 0.0)
        if typ in (SEND, GET, AMO, RECV):
            c = max(c, o)
        if typ in (SEND, GET, AMO):
            start = max(now, nic.get(lane, 0.0))
            nic[lane] = start + g
            now = start + c
            counts["messages"] += 1
            if typ == SEND:
                key, at = (r.rank, ev[SEQ]), now + L + ev[BYTES] * G
                if key in tasks:
                    heapq.heappush(heap, (at, order, key, hops))
                    order += 1
                else:
                    produce(("a",) + key, (at, hops))
            else:
                produce(("c", r.rank, ev[SEQ]), (now + lrma + ev[BYTES] * G, hops + 2))
        else:
            now += c
        if typ == STORE:
            produce(("s", r.rank, ev[T]), (now, hops))
        elif typ == MARK:
            label = r.marks[ev[BYTES]]
            if label == "compute":
                cpu_start[r.rank] = ev[REF]
            elif label == "/compute" and r.rank in cpu_start:
                now += (ev[REF] - cpu_start.pop(r.rank)) / 1000.0
            elif label == "end " + name:
                end_at[r.rank] = (now, hops)
        return now, hops

    def need(r, ev):
        """The key ev waits for, or None (nothing, or something before the
        workload)."""
        typ = ev[TYPE]
        if typ == RECV and (ev[PEER], ev[SEQ]) in sent:
            return ("a", ev[PEER], ev[SEQ])
        if typ == DONE and (r.rank, ev[SEQ]) in issued:
            return ("c", r.rank, ev[SEQ])
        if typ == SEE:
            s = store_of(r, ev)
            if s is not None and (s[2], s[0]) in stored_in_window:
                return ("s", s[2], s[0])
        return None

    stored_in_window = {(r.rank, e[T]) for r, evs in zip(ranks, wins) for e in evs if e[TYPE] == STORE}
    # Messages sent before the workload whose handling lies in it: arrived.
    for key in tasks:
        if key not in sent:
            heapq.heappush(heap, (0.0, order, key, 0))
            order += 1

    def advance(prog, force=False):
        r, evs = prog["r"], prog["evs"]
        while prog["i"] < len(evs):
            ev = evs[prog["i"]]
            key = need(r, ev)
            now, hops = prog["t"], prog["hops"]
            if key is not None:
                if key not in produced:
                    if not force:
                        waiting.setdefault(key, []).append(prog["n"])
                        return
                    force = False
                else:
                    at, at_hops = produced[key]
                    if key[0] == "s" and key[1] != r.rank:
                        at += lshm
                    if at > now:
                        now, hops = at, at_hops + (key[0] == "a")
            prog["t"], prog["hops"] = execute(r, ev, now, hops, prog["n"])
            prog["i"] += 1

    for n, prog in enumerate(programs):
        prog["n"] = n
    while True:
        while runnable:
            advance(programs[runnable.pop()])
        if heap:
            at, _, key, at_hops = heapq.heappop(heap)
            r, recv, inner = tasks.pop(key)
            start, hops = free[r.rank]
            if at >= start:
                start, hops = at, at_hops + 1
            now = start + o
            for ev in inner:
                now, hops = execute(r, ev, now, hops, ("handler", r.rank))
            free[r.rank] = (now, hops)
            continue
        blocked = [prog for prog in programs if prog["i"] < len(prog["evs"])]
        if not blocked:
            break
        # A wait whose store was attributed to one not made (yet): let the
        # earliest blocked event go.
        advance(min(blocked, key=lambda prog: prog["evs"][prog["i"]][T]), force=True)
    last = max(end_at, key=lambda k: end_at[k][0])
    # Measured from when the last rank began (the replay starts all at once;
    # one machine's ranks share the clock) to when the last ended.
    measured = (max(e for _, _, e in spans) - max(b for _, b, _ in spans)) / 1000.0
    return end_at[last][0], end_at[last][1], counts["messages"], measured, table


def traced_params(ranks, name, p):
    """p with L and Lrma as this trace shows them on its machine: the
    median time from a send to its receipt, and from a get or atomic's issue
    to its completion (where software does them, they wait for the target's
    progress, which a calibration with an idle target does not see)."""
    wins = [w for w, _, _ in windows(ranks, name)]
    sent, issued, transit, rma = {}, {}, [], []
    for r, evs in zip(ranks, wins):
        for e in evs:
            if e[TYPE] == SEND:
                sent[(r.rank, e[SEQ])] = e[T]
            elif e[TYPE] in (GET, AMO):
                issued[(r.rank, e[SEQ])] = (e[T], e[BYTES])
    for r, evs in zip(ranks, wins):
        for e in evs:
            if e[TYPE] == RECV and (e[PEER], e[SEQ]) in sent:
                transit.append((e[T] - sent[(e[PEER], e[SEQ])]) / 1000.0)
            elif e[TYPE] == DONE and (r.rank, e[SEQ]) in issued:
                t, nbytes = issued[(r.rank, e[SEQ])]
                rma.append((e[T] - t) / 1000.0 - nbytes * p["G"] / 1000.0)
    q = dict(p)
    if transit:
        q["L"] = max(sorted(transit)[len(transit) // 2] - p["o"], 0.0)
    if rma:
        q["Lrma"] = max(sorted(rma)[len(rma) // 2], 0.0)
    return q


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



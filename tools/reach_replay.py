"""The replay of reach's message traces under a LogGP model (a workload's
dependency graph, built once, timed under each network's parameters). Used
by reach-project.py, whose help says what the replay assumes; the traces
are read by reach_trace.py."""
import array
import bisect
import heapq
import itertools

from reach_cores import Cores
from reach_trace import (EVENT, SEND, RECV, GET, AMO, DONE, STORE, SEE, MARK, HANDLED, T, TYPE,
                         THREAD, CHAN, PEER, SEQ, BYTES, REF, REQUEST_CHANNELS, LSHM, thread_cpu, windows)


PAIR_SAMPLES = 5

# What a step of a program or of a handler's task does (Workload).
(PLAIN, OVERHEAD, SENDS, ISSUES, STORES, COMPUTE, COMPUTED, ENDS, NOTHING, SERVES) = range(10)
# What it waits for: nothing, a message (a latency more on the path), a get
# or atomic's completion, a store of its rank or of another (seen Lshm later).
(FREE, ARRIVAL, COMPLETION, OWN_STORE, STORE_ELSEWHERE) = range(5)
FIRST = 256   # the type before a sequence's first event (Workload.costs)
# The steps whose cost is a thread's processor time (on shared cores, of a
# long one only o: Workload.replay).
ON_CORE = frozenset((PLAIN, OVERHEAD, SENDS, ISSUES, STORES))
# Tables for bytes.translate of the events' types: 1 for a send, else 0;
# 1 for a store, a wait's end on a word, a get or an atomic, else 0.
ONLY_SENDS = bytes(int(typ == SEND) for typ in range(256))
ONLY_OTHERS = bytes(int(typ in (STORE, SEE, GET, AMO)) for typ in range(256))


# What is waited for and made, each as one number: a message's arrival (its
# sender and number; also the number of its task, if a handler runs it), a
# get or atomic's completion (its issuer and number), a store (its rank and
# time).
def arrival(rank, seq):
    return rank << 34 | seq << 2


def completion(rank, seq):
    return rank << 34 | seq << 2 | 1


def stored(rank, t):
    return rank << 66 | t << 2 | 2


class Stores:
    """The stores to shared words in a workload, and which one a wait saw."""

    def __init__(self):
        self.words = {}   # (node, owner, offset) -> [(t, value, rank)]

    def add(self, r, ev):
        self.words.setdefault((r.node,) + r.word(ev[REF]), []).append((ev[T], ev[SEQ], r.rank))

    def done(self):
        for lst in self.words.values():
            lst.sort()
        self.times = {k: [x[0] for x in lst] for k, lst in self.words.items()}

    def of(self, r, ev):
        """The store a wait saw, (t, value, rank): the latest before it that
        wrote the value seen, else the latest before it; None if none."""
        word = (r.node,) + r.word(ev[REF])
        lst = self.words.get(word)
        if not lst:
            return None
        i = bisect.bisect_right(self.times[word], ev[T])
        for s in reversed(lst[max(0, i - 256):i]):
            if s[1] == ev[SEQ]:
                return s
        return lst[i - 1] if i else None


def split(evs):
    """A rank's events as its threads' programs, [events of thread 0,
    events of thread 1], and its handler's tasks, [(arrival, receipt, the
    events of its handling, the sends after it)]: a message whose handling
    no wait of its thread depended on directly (a request, or a signal
    with a store). A send that names a task as its cause but was sent
    after its handling (a tell, sent once the server has drained what
    arrived or at the end of its round) ends that task: the replay sends
    it then."""
    programs, tasks = [], []
    for th in (0, 1):
        mine = [e for e in evs if e[THREAD] == th]
        prog, i, n = [], 0, len(mine)
        while i < n:
            ev = mine[i]
            if ev[TYPE] == RECV:
                j, depth, has_store = i + 1, 1, False
                while j < n and depth:
                    typ = mine[j][TYPE]
                    if typ == RECV:
                        depth += 1
                    elif typ == HANDLED:
                        depth -= 1
                    elif typ == STORE:
                        has_store = True
                    j += 1
                if ev[CHAN] in REQUEST_CHANNELS or has_store:
                    tasks.append((arrival(ev[PEER], ev[SEQ]), ev, mine[i + 1:j - 1], []))
                    i = j
                    continue
            prog.append(ev)
            i += 1
        programs.append(prog)
    index = {key: after for key, _, _, after in tasks}
    for n, prog in enumerate(programs):
        keep = []
        for ev in prog:
            inner = index.get(caused_by(ev)) if ev[TYPE] == SEND and ev[REF] else None
            (keep if inner is None else inner).append(ev)
        programs[n] = keep
    return programs, tasks


def caused_by(send):
    """The arrival of the message a send names as its cause."""
    return arrival((send[REF] >> 32) - 1, send[REF] & 0xFFFFFFFF)


class Workload:
    """A workload of a run, ready to be replayed under any parameters
    (replay): what the replay needs of it does not depend on them, so it is
    built once. Each thread's own events (its program) run in their order,
    each once what it depends on has happened. A message whose handling no
    wait of its thread depended on directly (a request, or a signal whose
    store a wait sees) is a task of its rank's handler, which runs tasks one
    at a time in the order they arrive; a reply or a pushed value is handled
    in its thread's program, which waits for it.

    Each program and task is kept as steps (Workload.steps), not events;
    the ranks' events are read one rank at a time, twice: for what the
    others need to know of them, then as steps. software, a table of
    software times from another run (see local_costs), is used instead of
    this trace's. traced keeps what traced_params needs."""

    def __init__(self, ranks, name, software=None, traced=False):
        self.name = name
        spans = windows(ranks, name)
        # Measured from when the last rank began (the replay starts all at
        # once; one machine's ranks share the clock) to when the last ended.
        self.measured = (max(e for _, _, e in spans) - max(b for _, b, _ in spans)) / 1000.0
        wins = [w for w, _, _ in spans]
        del spans

        # What every rank needs to know of the others' events: the
        # messages sent (when, if this trace's times are needed), the gets
        # and atomics issued (when, how many bytes), the stores, and the
        # stores that waits saw (only those are waited for).
        self.sent, sent_at, self.issued, self.stores, sees = set(), {}, {}, Stores(), []
        times = traced or not software

        def note(r, ev):
            typ = ev[TYPE]
            if typ == SEND:
                self.sent.add(arrival(r.rank, ev[SEQ]))
                if times:
                    sent_at[arrival(r.rank, ev[SEQ])] = ev[T]
            elif typ == STORE:
                self.stores.add(r, ev)
            elif typ == SEE:
                sees.append((r, ev))
            elif typ == GET or typ == AMO:
                self.issued[completion(r.rank, ev[SEQ])] = (ev[T], ev[BYTES])

        for r, (before, b, e, after) in zip(ranks, wins):
            for ev in r.events(before, b, b - 1, ()):
                note(r, ev)
            # From its begin mark to its end mark, the bulk: its sends from
            # the columns of the records (at C speed), the rest one by one.
            data = r.records(b, e)
            records = memoryview(data)
            types = records[8::EVENT.size].tobytes()
            sends = types.translate(ONLY_SENDS)
            keys = [arrival(r.rank, seq) for seq in itertools.compress(records.cast("I")[4::8], sends)]
            self.sent.update(keys)
            if times:
                sent_at.update(zip(keys, itertools.compress(records.cast("Q")[0::4], sends)))
            for i in itertools.compress(range(len(types)), types.translate(ONLY_OTHERS)):
                note(r, EVENT.unpack_from(data, i * EVENT.size))
            del records, data
            for ev in r.events((), e + 1, e, after):
                note(r, ev)
        self.stores.done()
        # The store each wait saw, {(rank, t, word, value): store}.
        self.saw = {(r.rank, ev[T], ev[REF], ev[SEQ]): self.stores.of(r, ev) for r, ev in sees}
        self.seen = {stored(s[2], s[0]) for s in self.saw.values() if s is not None}
        del sees

        # The programs, [(rank's index, its steps...)], and the times of
        # their events, [array]; the tasks, {arrival: (rank's index, its
        # steps...)}.
        self.ranks, self.index = len(ranks), {r.rank: i for i, r in enumerate(ranks)}
        self.label = {"compute": COMPUTE, "/compute": COMPUTED, "end " + name: ENDS}
        self.programs, self.times, self.tasks, self.shared = [], [], {}, ({}, {}, {})
        transit, rma, split_ranks, app_cpu = [], [], [], 0
        if software:
            self.costs(software)
        for r, win in zip(ranks, wins):
            evs = r.events(*win)
            if traced:
                for e in evs:
                    if e[TYPE] == RECV and arrival(e[PEER], e[SEQ]) in sent_at:
                        transit.append((e[T] - sent_at[arrival(e[PEER], e[SEQ])]) / 1000.0)
                    elif e[TYPE] == DONE and completion(r.rank, e[SEQ]) in self.issued:
                        t, nbytes = self.issued[completion(r.rank, e[SEQ])]
                        rma.append((e[T] - t, nbytes))
                app_cpu += thread_cpu(r, evs, name)
            if software:
                self.add(r, *split(evs))
            else:   # every rank's events first, for this trace's table
                split_ranks.append((r, *split(evs)))
            del evs
        if traced:
            self.traced = transit, rma, app_cpu
        if not software:
            last = {}
            for r, _, tasks in split_ranks:
                for key, recv, inner, _ in tasks:   # (a send after the handling waited for the drain)
                    last[key] = (r, [recv] + inner)
            self.costs(local_costs([(r, prog) for r, programs, _ in split_ranks for prog in programs] +
                                   list(last.values()), sent_at, self.stores))
            del last
            for r, programs, tasks in split_ranks:
                self.add(r, programs, tasks)
            del split_ranks
        # Messages sent before the workload whose handling lies in it: arrived.
        self.early = [key for key in self.tasks if key not in self.sent]
        del self.sent, self.issued, self.stores, self.saw, self.seen, self.shared, self.cost

    def costs(self, table):
        """The table of software times used (local_costs), and from it the
        cost of an event of each type after one of type a, cost[a][type]:
        nothing for the first of a sequence (a = FIRST) or a mark (a
        computation's end costs its processor time, nothing more)."""
        self.table = med, typical = table
        self.cost = [[typical] * 256 for _ in range(256)] + [[0.0] * 256]
        for (a, b), c in med.items():
            self.cost[a][b] = c
        for row in self.cost:
            row[MARK] = 0.0

    def add(self, r, programs, tasks):
        """Rank r's programs and tasks, as steps."""
        self.programs += self.steps(r, [(FIRST, prog) for prog in programs], True)
        self.times += [array.array("Q", [0] + [e[T] for e in prog]) for prog in programs]
        self.tasks.update(zip([key for key, _, _, _ in tasks],
                              self.steps(r, [(recv[TYPE], inner + after) for _, recv, inner, after in tasks],
                                         False)))

    def steps(self, r, seqs, program):
        """Sequences of events of rank r, [(prev, events)], as steps: for
        each, (the rank's index, (what it does, its cost, what it waits for
        or makes, how it waits, bytes or processor time)...). A step's cost
        is the gap from the event before it (of type prev for the first).
        What waits in a program (program) waits; what nothing waits for is
        not made. Steps that wait for nothing and make nothing are shared."""
        rank, out = r.rank, []
        rank34, rank66 = rank << 34, rank << 66   # arrival(rank, seq) and stored(rank, t) are
        #                                           rank34 | seq << 2 and rank66 | t << 2 | 2
        cost, sent, issued, seen, saw = self.cost, self.sent, self.issued, self.seen, self.saw
        plain, overhead, stores = self.shared
        for prev, evs in seqs:
            seq = [self.index[rank]]
            add = seq.append
            for ev in evs:
                typ = ev[TYPE]
                c = cost[prev][typ]
                prev = typ
                if typ == SEND:
                    add((SENDS, c, rank34 | ev[SEQ] << 2, FREE, ev[BYTES]))
                elif typ == RECV:
                    if program and ev[PEER] << 34 | ev[SEQ] << 2 in sent:
                        add((OVERHEAD, c, ev[PEER] << 34 | ev[SEQ] << 2, ARRIVAL, 0))
                    else:
                        add(overhead.get(c) or overhead.setdefault(c, (OVERHEAD, c, None, FREE, 0)))
                elif typ == STORE:
                    if rank66 | ev[T] << 2 | 2 in seen:
                        add((STORES, c, rank66 | ev[T] << 2 | 2, FREE, 0))
                    else:
                        add(stores.get(c) or stores.setdefault(c, (STORES, c, None, FREE, 0)))
                elif typ == SEE and program and saw[rank, ev[T], ev[REF], ev[SEQ]] is not None:
                    s = saw[rank, ev[T], ev[REF], ev[SEQ]]
                    add((PLAIN, c, stored(s[2], s[0]), OWN_STORE if s[2] == rank else STORE_ELSEWHERE, 0))
                elif typ == DONE and program and completion(rank, ev[SEQ]) in issued:
                    add((PLAIN, c, completion(rank, ev[SEQ]), COMPLETION, 0))
                elif typ == GET or typ == AMO:
                    add((ISSUES, c, completion(rank, ev[SEQ]), FREE, (ev[BYTES], ev[PEER])))
                elif typ == MARK:
                    add((self.label.get(r.marks[ev[BYTES]], NOTHING), c, None, FREE, ev[REF]))
                else:
                    add(plain.get(c) or plain.setdefault(c, (PLAIN, c, None, FREE, 0)))
            out.append(tuple(seq))
        return out

    def replay(self, p):
        """The workload's critical path under parameters p: (time in us,
        network latencies on it, messages, measured us), each over the whole
        workload (measured from the last rank's begin to the last rank's
        end), and the table of software times used (see local_costs).

        With p["cores"], the ranks share that many cores, as the emulated
        machines of one real one do: each run of a thread's steps between
        two waits (a program's, or a handler's task) takes a core, the one
        free first, and holds it to its end. A wait then spins on its core
        for p["spin"] us (a handler, after its task, p["server_spin"]): one
        met within its spin goes on there at once; one met later gives the
        core back at the spin's end (reach's waits sleep), and takes the
        one free first when it is met. So does a program's step longer
        than o, for all but o of it (a wait the trace does not show, such
        as for a send to complete). Every message also holds another core
        (the one free first, if any: Cores.poll) for p["relay_spin"] us:
        the link's relay (tools/reach-relay) polls that long before each
        frame's deadline, at a real-time priority. That poll comes L after
        the send, but is counted from the send: a core's next free time
        holds no gaps. The runs are then taken in the order of their start
        in time (a task whose handler is busy, or a run that finds every
        core held, from when it is free); a forced one (below) is out of
        that order and takes no core."""
        L, o, g, G = p["L"], p["o"], p["g"], p["G"] / 1000.0
        lshm, lrma = p.get("Lshm", LSHM), p.get("Lrma", 2 * L)
        ncores, relay = p.get("cores"), p.get("relay_spin", 0.0)
        spin, server_spin = p.get("spin", 0.0), p.get("server_spin", 0.0)
        at_target, rma_way = p.get("rma_at_target", False), max((lrma - o) / 2, 0.0)
        programs = self.programs
        nprog = len(programs)
        produced = {}                   # arrivals, completions, stores: (time, hops)
        waiting = {}                    # what is waited for -> programs blocked on it
        at_step, prog_t, prog_hops = [1] * nprog, [0.0] * nprog, [0] * nprog
        pending = dict(self.tasks)      # tasks not yet handled
        # The tasks by arrival and, with cores, the programs by when they
        # may go on: (time, order, the task's key or ~program, hops).
        heap, order, messages = [], 0, 0
        # When a sequence (a thread's program, a rank's handler) may send
        # again: g apart. Not one per rank: the replay runs programs ahead of
        # handlers. Lanes: the programs, then each rank's handler.
        nic = [0.0] * (nprog + self.ranks)
        free = [(0.0, 0)] * self.ranks
        cpu_start, end_at = {}, {}
        heappush, heappop = heapq.heappush, heapq.heappop
        shared = bool(ncores)
        paid = [0] * nprog   # the step whose long gap a program has waited out
        cores = Cores(ncores) if shared else None
        for key in self.early:
            heappush(heap, (0.0, order, key, 0))
            order += 1
        if shared:
            runnable = []
            for lane in range(nprog):
                heappush(heap, (0.0, order, ~lane, 0))
                order += 1
        else:
            runnable = list(range(nprog))

        def seen(key, how):
            """When a wait of kind how for key, made, is met, and the
            latencies on the path to it if it is met then."""
            at, at_hops = produced[key]
            return at + lshm if how == STORE_ELSEWHERE else at, at_hops + (how == ARRIVAL)

        def met(key):
            """The programs that wait for key go on: at once, or with
            cores, from when their wait is met."""
            nonlocal order
            if not shared:
                runnable.extend(waiting.pop(key))
                return
            for lane in waiting.pop(key):
                steps = programs[lane]
                if at_step[lane] >= len(steps) or steps[at_step[lane]][2] != key:
                    continue   # a forced run went past this wait
                at, at_hops = seen(key, steps[at_step[lane]][3])
                if at > prog_t[lane]:
                    prog_t[lane], prog_hops[lane] = at, at_hops
                heappush(heap, (prog_t[lane], order, ~lane, 0))
                order += 1

        while True:
            # The next sequence to run, from its step i at (now, hops), in
            # its lane: a program that may go on, else the task that arrives
            # first (with cores: the program or task that may go on first),
            # else (a wait whose store was attributed to one not made yet)
            # the blocked program whose event is the earliest, past that
            # wait.
            force = task = False
            if runnable:
                lane = runnable.pop()
                steps = programs[lane]
                i, now, hops = at_step[lane], prog_t[lane], prog_hops[lane]
            elif heap:
                at, _, key, at_hops = heappop(heap)
                if key < 0:
                    lane = ~key
                    steps = programs[lane]
                    i, now, hops = at_step[lane], prog_t[lane], prog_hops[lane]
                else:
                    steps = pending.pop(key)
                    r = steps[0]
                    now, hops = free[r]
                    if shared and now > at:   # from when its handler is free (with its latencies)
                        pending[key] = steps
                        heappush(heap, (now, order, key, hops - 1))
                        order += 1
                        continue
                    if at >= now:
                        now, hops = at, at_hops + 1
                    i, lane, task = 1, nprog + r, True
            else:
                blocked = [n for n in range(nprog) if at_step[n] < len(programs[n])]
                if not blocked:
                    break
                lane = min(blocked, key=lambda n: self.times[n][at_step[n]])
                steps, force = programs[lane], True
                i, now, hops = at_step[lane], prog_t[lane], prog_hops[lane]
            r, end = steps[0], len(steps)
            held = shared and not force   # (a forced run is out of time order: it takes no core)
            if held:
                core, start = cores.pick(lane, now)
                if start > now:   # no core till then: it goes on at start, in time order
                    if task:
                        pending[key] = steps
                        heappush(heap, (start, order, key, hops - 1))
                    else:
                        prog_t[lane] = start
                        heappush(heap, (start, order, ~lane, 0))
                    order += 1
                    continue
                cores.hold(core)
            if task:
                now += o
            # Its steps, each once what it waits for has happened.
            asleep = False
            while i < end:
                act, c, key, how, x = steps[i]
                if how:
                    if key not in produced:
                        if not force:
                            waiting.setdefault(key, []).append(lane)
                            break
                        force = False
                    else:
                        at, at_hops = seen(key, how)
                        if at > now:
                            if shared and lane < nprog and at - now > spin:   # sleeps: its core goes back
                                at_step[lane], prog_t[lane], prog_hops[lane] = i, at, at_hops
                                heappush(heap, (at, order, ~lane, 0))
                                order += 1
                                asleep = True
                                break
                            now, hops = at, at_hops
                if held and c > o and act in ON_CORE and lane < nprog:
                    if paid[lane] != i:   # all but o of a long gap is a wait: the core goes back
                        paid[lane] = i
                        at = (max(now, nic[lane]) if act == SENDS or act == ISSUES else now) + c - o
                        at_step[lane], prog_t[lane], prog_hops[lane] = i, at, hops
                        heappush(heap, (at, order, ~lane, 0))
                        order += 1
                        asleep = True
                        break
                    c = o
                i += 1
                if act == SENDS or act == ISSUES:
                    start = nic[lane]
                    if now > start:
                        start = now
                    nic[lane] = start + g
                    now = start + (c if c > o else o)
                    messages += 1
                    if relay and shared:   # the relay's poll, on a core this run does not hold
                        cores.poll(now, relay)
                    if act == ISSUES:
                        nbytes, target = x
                        if at_target:   # served by a thread of the target: its handler
                            pending[key] = (target, (SERVES, 0.0, key, FREE, nbytes))
                            heappush(heap, (now + rma_way, order, key, hops))
                            order += 1
                            continue
                        produced[key] = (now + lrma + nbytes * G, hops + 2)
                        if key in waiting:
                            met(key)
                        continue
                    at = now + L + x * G
                    if key in pending:   # a task: to its handler's queue
                        heappush(heap, (at, order, key, hops))
                        order += 1
                        continue
                    produced[key] = (at, hops)
                    if key in waiting:
                        met(key)
                elif act == STORES:
                    now += c
                    if key is not None:
                        produced[key] = (now, hops)
                        if key in waiting:
                            met(key)
                elif act == PLAIN:
                    now += c
                elif act == OVERHEAD:
                    now += c if c > o else o
                elif act == COMPUTE:
                    cpu_start[r] = x
                elif act == COMPUTED:
                    if r in cpu_start:
                        now += (x - cpu_start.pop(r)) / 1000.0
                elif act == ENDS:
                    end_at[r] = (now, hops)
                elif act == SERVES:
                    produced[key] = (now + rma_way + x * G, hops + 1)
                    if key in waiting:
                        met(key)
            if held:   # a wait spins on its core, then sleeps; a handler spins after its task
                tail = server_spin if lane >= nprog else spin if i < end else 0.0
                cores.release(core, now + tail, lane if tail else -1)
            if asleep:
                continue
            if lane < nprog:
                at_step[lane], prog_t[lane], prog_hops[lane] = i, now, hops
            else:
                free[r] = (now, hops)
        last = max(end_at, key=lambda k: end_at[k][0])
        return end_at[last][0], end_at[last][1], messages, self.measured, self.table

    def traced_params(self, p):
        """p with L and Lrma as this trace shows them on its machine: the
        median time from a send to its receipt, and from a get or atomic's
        issue to its completion (where software does them, they wait for the
        target's progress, which a calibration with an idle target does not
        see); with p["cores"], and spin as its waits took processor time.
        Needs Workload(..., traced=True)."""
        transit, rma, app_cpu = self.traced
        rma = [dt / 1000.0 - nbytes * p["G"] / 1000.0 for dt, nbytes in rma]
        q = dict(p)
        if transit:
            q["L"] = max(sorted(transit)[len(transit) // 2] - p["o"], 0.0)
        if rma:
            q["Lrma"] = max(sorted(rma)[len(rma) // 2], 0.0)
        if p.get("cores"):
            # A wait's spin on shared cores: the application threads'
            # processor time beyond their computations and their events'
            # (as the replay on shared cores charges them), over their
            # waits, those met when reached included.
            o, busy, waits = p["o"], 0.0, 0
            for steps in self.programs[0::2]:   # (each rank's programs: its threads')
                for act, c, _, how, _ in steps[1:]:
                    waits += how != FREE
                    busy += (o if act in (SENDS, ISSUES) else min(c, o) if act in ON_CORE
                             else max(c, o) if act == OVERHEAD else 0.0)
            if waits:
                q["spin"] = max((app_cpu - busy) / waits, 0.0)
        return q


def local_costs(seqs, sent_at, stores):
    """This trace's table of reach's software times in a workload,
    (median, typical): for each two kinds of event, the median over the
    workload of the gaps between them on one thread where the second waited
    for nothing (its message sent, its store made, before the first),
    which is reach's code between them on this machine; typical, the
    median of every gap, for an event that waited or two kinds seen fewer
    than PAIR_SAMPLES times. seqs: [(rank, events)], the programs and the
    tasks ([the receipt] + the handler's events); sent_at: {arrival: when
    sent}; stores: Stores. A run with a core for each process has gaps that
    hold no time spent waiting for a core: its table is the one every run
    uses (Workload's software)."""

    def waited(r, prev, ev):
        typ = ev[TYPE]
        if typ == RECV:
            at = sent_at.get(arrival(ev[PEER], ev[SEQ]))
            return at is None or at > prev[T]
        if typ == SEE:   # a wait whose store is not known may have waited
            s = stores.of(r, ev)
            return s is None or s[0] > prev[T]
        return typ == DONE or typ == MARK and r.marks[ev[BYTES]] == "/compute"

    samples = {}
    for r, evs in seqs:
        for prev, ev in zip(evs, evs[1:]):
            if not waited(r, prev, ev):
                samples.setdefault((prev[TYPE], ev[TYPE]), []).append((ev[T] - prev[T]) / 1000.0)
    # A pair seen fewer than PAIR_SAMPLES times (such as a workload's last
    # event before its end mark) may hide a wait the trace does not show:
    # it costs the median of every gap.
    every = sorted(x for v in samples.values() for x in v)
    typical = every[len(every) // 2] if every else 0.0
    med = {k: sorted(v)[len(v) // 2] for k, v in samples.items() if len(v) >= PAIR_SAMPLES}
    return med, typical

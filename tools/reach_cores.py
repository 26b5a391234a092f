"""The cores that the replay's runs share where emulated machines share
one real machine's cores (reach_replay.py, Workload.replay with "cores"
in its parameters)."""
import heapq


class Cores:
    """The cores that a replay's runs share (Workload.replay): when each
    is free next, the lane that spins on it until then (-1: none), and a
    heap of them by that time. Outside a run every core is in the heap;
    a run holds one (hold), and gives it back at its end (release). An
    entry is stale once its core has been held again (version)."""

    def __init__(self, n):
        self.free_at, self.owner, self.version = [0.0] * n, [-1] * n, [0] * n
        self.heap = [(0.0, 0, k) for k in range(n)]
        self.spun = {}   # lane -> the core it last spun on

    def first(self):
        """The core free first, or None if every core is held."""
        heap = self.heap
        while heap and heap[0][1] != self.version[heap[0][2]]:
            heapq.heappop(heap)
        return heap[0][2] if heap else None

    def pick(self, lane, t):
        """The core lane may run on from t, and when: the one it spins on
        if its spin lasts till t, else the one free first."""
        k = self.spun.get(lane)
        if k is not None and self.owner[k] == lane and t <= self.free_at[k]:
            return k, t
        k = self.first()
        return k, max(t, self.free_at[k])

    def hold(self, k):
        self.version[k] += 1

    def release(self, k, t, lane=-1):
        """Core k is free from t, lane spinning on it till then."""
        self.free_at[k], self.owner[k] = t, lane
        if lane >= 0:
            self.spun[lane] = k
        heapq.heappush(self.heap, (t, self.version[k], k))

    def poll(self, now, spin):
        """The relay polls for spin us from now on the core free first
        (not the one the run holds; on none if it holds the only one), at
        a real-time priority: a thread spinning there loses it."""
        k = self.first()
        if k is not None:
            self.hold(k)
            self.release(k, max(self.free_at[k], now) + spin)

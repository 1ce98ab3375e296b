"""What both sides of ``atelier bench hint --baseline`` run around their own served bot.

Dependency-free on purpose (like ``_shared.py``): ``_hint_baseline_worker.py`` loads this file
by path next to an older revision's ``bots`` and ``games``, so today's code and the baseline's
time their hints, profile them and sort the profile into the same groups with the same code.

A hint is the service's: a bot built afresh from its spec for every request
(``server.tasks.hint_task`` builds one per task), asked ``bot.hint(defn, params, infoset,
budget, seed)`` on the information-set JSON, which draws the first world by replaying it.
"""

import itertools
import sys
import threading
import time

# The time split of a profiled hint, in the order the report prints it. The keys are the JSON's.
GROUPS = {
    "beliefs": "belief pool (reading the infoset, drawing and weighing worlds)",
    "prior": "prior (the heuristic's move at new nodes)",
    "selection": "selection and expansion (tree walk, its engine steps)",
    "copies": "world copies (one per simulation)",
    "rollout_heuristic": "rollouts: heuristic ratings (policy, candidates, evaluation)",
    "rollout_engine": "rollouts: engine steps",
    "rollout_loop": "rollouts: the loop itself",
    "backprop": "backpropagation",
    "loop": "the search loop's own lines",
    "other": "set-up and answer (config, policy, anything else)",
}

# Frames (function name, file path ending) that say which part of the search a sample is in.
# Both the package layout of today (bots/ismcts/) and 5caa0cd's single bots/ismcts.py appear.
_BELIEF_FRAMES = (
    ("from_infoset", "bots/protocol.py"),
    ("sample", "bots/protocol.py"),
    ("sample", "bots/ismcts.py"),
    ("sample", "bots/ismcts/search.py"),
    ("sample_engine", "games/core/infoset.py"),
    ("weigh", "bots/pool.py"),
    ("draw", "bots/pool.py"),
    ("fill", "bots/pool.py"),
    ("_belief_pool", "bots/ismcts.py"),
    ("log_likelihood", "bots/beliefs.py"),
    ("rewound", "bots/ismcts/unseen.py"),
    ("_rewound", "bots/ismcts.py"),
)
_ROLLOUT_NAMES = frozenset(
    {
        "play_out",
        "random_playout",
        "python_random_playout",
        "compiled_random_playout",
        "by_policy",
        "opening_by_model",
    }
)
_HEURISTIC_FILES = ("bots/heuristics/", "bots/beliefs.py")
_BACKPROP_FRAMES = (("backup", "bots/ismcts/tree.py"), ("see", "bots/ismcts/search.py"))
_SELECTION_FRAMES = (
    ("descend", "bots/ismcts/search.py"),
    ("expand", "bots/ismcts/search.py"),
    ("_biased_node", "bots/ismcts.py"),
    ("_count_greedy", "bots/ismcts.py"),
)
_SEARCH_LOOPS = (
    ("search", "bots/ismcts.py"),
    ("iterate", "bots/ismcts/search.py"),
    ("running", "bots/protocol.py"),
    ("tick", "bots/protocol.py"),
)


def _is(frame: tuple[str, str], table) -> bool:
    name, path = frame
    return any(name == n and path.endswith(suffix) for n, suffix in table)


def classify(frames: list[tuple[str, str]]) -> str:
    """The group (a key of ``GROUPS``) of one profile sample: its call stack, root first, as
    ``(function name, file path)``.

    Drawing worlds wins wherever it happens (the first simulations draw the pool lazily);
    then a rollout (split by what is below it: the game's heuristic code, else the engine,
    else the rollout loop); then the prior, backpropagation, world copies and the tree walk;
    a sample in the search loop's own function is ``loop`` (5caa0cd's search inlines its
    selection and backup there, so for it ``loop`` holds those too). Compiled code (Cython) has
    no Python frames: its time would fall to the Python function that called it (a compiled
    search to ``other``), which is why ``atelier bench hint`` profiles the pure-Python path
    (``_hint_baseline_worker.py --pure``).
    """
    if any(_is(f, _BELIEF_FRAMES) or f[0] == "sample_world" for f in frames):
        return "beliefs"
    for i, (name, path) in enumerate(frames):
        if name in _ROLLOUT_NAMES and ("/bots/" in path or "/games/" in path):
            below = frames[i + 1 :]
            if any(any(h in p for h in _HEURISTIC_FILES) for _, p in below):
                return "rollout_heuristic"
            if "/games/" in path or any("/games/" in p for _, p in below):
                return "rollout_engine"
            return "rollout_loop"
    if any(name == "best_rated" for name, _ in frames):
        return "prior"
    if any(_is(f, _BACKPROP_FRAMES) for f in frames):
        return "backprop"
    for parent, child in itertools.pairwise(frames):
        if child[0] == "copy" and parent[0] in ("world", "search"):
            return "copies"
    if frames and frames[-1][0] == "world" and frames[-1][1].endswith("bots/pool.py"):
        return "copies"
    if any(_is(f, _SELECTION_FRAMES) for f in frames):
        return "selection"
    for parent, child in itertools.pairwise(frames):
        if _is(parent, _SEARCH_LOOPS[:1]) and "/games/" in child[1]:
            return "selection"  # 5caa0cd's inlined tree walk calling the engine
    if any(_is(f, _SEARCH_LOOPS) for f in frames):
        return "loop"
    return "other"


def timed_hint(make_bot, budget, defn, params, infoset, seed: int) -> dict:
    """One served hint: simulations, wall and CPU milliseconds (the bot built afresh, as the
    service's worker does for every request)."""
    wall, cpu = time.perf_counter(), time.process_time()
    hint = make_bot().hint(defn, params, infoset, budget, seed)
    return {
        "simulations": hint.iterations,
        "wall_ms": (time.perf_counter() - wall) * 1000.0,
        "cpu_ms": (time.process_time() - cpu) * 1000.0,
        "action": hint.action,
    }


class StackSampler:
    """Samples the call stack of the calling thread every ``interval`` seconds from a thread of
    its own, each sample weighted by the CPU time the sampled thread spent since the previous
    one (so the samples add up to its CPU time, which on a shared machine excludes the waits
    for a core; where the system has no per-thread CPU clock, wall time).

    A deterministic profiler (pyinstrument's hook, cProfile) runs code on every call and
    return: it halved the simulations of a hint here, and charges that cost to whatever makes
    many small calls (the heuristics, the engines), skewing the split. Sampling from another
    thread costs only the samples: the sampler takes the GIL at the interpreter's next switch
    point (the switch interval is lowered to ``interval`` while it runs), reads the stack and
    lets go.
    """

    def __init__(self, interval: float = 0.001) -> None:
        self.interval = interval
        self.samples: list[tuple[list[tuple[str, str]], float]] = []
        self._target = threading.get_ident()
        try:
            clock_id = time.pthread_getcpuclockid(self._target)
            self.clock = lambda: time.clock_gettime(clock_id)
            self.cpu = True
        except (AttributeError, OSError):  # pragma: no cover - Linux has per-thread clocks
            self.clock, self.cpu = time.perf_counter, False
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._switch = sys.getswitchinterval()

    def __enter__(self) -> "StackSampler":
        sys.setswitchinterval(self.interval)
        self.started = self._last = self.clock()
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join()
        sys.setswitchinterval(self._switch)
        self._sample()  # the time since the last sample, to the end
        self.total = self._last - self.started

    def _run(self) -> None:
        while not self._stop.wait(self.interval):
            self._sample()

    def _sample(self) -> None:
        frame = sys._current_frames().get(self._target)
        now = self.clock()
        stack = []
        while frame is not None:
            stack.append((frame.f_code.co_name, frame.f_code.co_filename.replace("\\", "/")))
            frame = frame.f_back
        stack.reverse()
        self.samples.append((stack, now - self._last))
        self._last = now


def profiled_hint(make_bot, budget, defn, params, infoset, seed: int) -> dict:
    """``timed_hint`` under ``StackSampler`` (1 ms), with the sampled CPU milliseconds of every
    group of ``GROUPS`` (``split_ms``: they add up to ``sampled_ms``, the hint's thread's CPU
    time while profiled; ``split_clock`` says which clock they are)."""
    with StackSampler() as sampler:
        out = timed_hint(make_bot, budget, defn, params, infoset, seed)
    split = dict.fromkeys(GROUPS, 0.0)
    for stack, seconds in sampler.samples:
        split[classify(stack)] += seconds * 1000.0
    out["split_ms"] = split
    out["sampled_ms"] = sampler.total * 1000.0
    out["samples"] = len(sampler.samples)
    out["split_clock"] = "thread CPU" if sampler.cpu else "wall"
    return out

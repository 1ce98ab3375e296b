"""Other seats' moves we could not see just before our turn (sealed and finger bids, face-down
placements): found on the first world and taken back, so the search plays them in its tree."""

from __future__ import annotations

from collections.abc import Callable

from games.core.engine import TERMINAL, Engine

# Legal alternatives tried per step to tell whether the step was unseen.
UNSEEN_PROBES = 6


def unseen_tail(first: Engine, seat: int, fresh: Callable[[Engine], Engine]) -> int:
    """How many of the last steps before our turn are other seats' moves we did not see.

    A step is unseen when any other legal choice there (at most ``UNSEEN_PROBES`` of them,
    spread over the legal range), followed by the same later steps, leaves our information
    set unchanged: a sealed bid, a finger bid, a face-down placement. The count is the same
    in every world of the information set (what we saw is the same in all), so it is found on
    the first. Searching from before those steps, with the movers choosing in their own
    nodes, is what the partially observable moves of MO-ISMCTS (Cowling, Powley and
    Whitehouse 2012, section V) and the public-state root of online outcome sampling (Lisy,
    Lanctot and Bowling 2015) do: the opponents' commits are then answers to our play that
    the search learns, not draws from a fixed model, so it cannot be exploited through them.
    """
    history = list(first.history)
    key = first.info_key(seat)
    # One replay for who moved at each step; states are kept only for the trailing run of
    # other seats' decisions, the only steps that can be unseen moves before our turn.
    engine = fresh(first)
    movers = []
    for action in history:
        movers.append(engine.current_player())
        engine.apply(action)
    start = len(history)
    while start and movers[start - 1] >= 0 and movers[start - 1] != seat:
        start -= 1
    if start == len(history):
        return 0
    engine = rewound(first, len(history) - start, fresh)
    states = {start: engine.copy()}
    for j in range(start, len(history) - 1):
        engine.apply(history[j])
        states[j + 1] = engine.copy()
    tail = 0
    for j in range(len(history) - 1, start - 1, -1):
        state = states[j]
        legal = state.legal_actions()
        if len(legal) < 2:
            break
        step = len(legal) / min(len(legal), UNSEEN_PROBES)
        probes = {legal[int(i * step)] for i in range(min(len(legal), UNSEEN_PROBES))}
        probes.add(legal[-1])
        if not all(_same_view(state, a, history[j + 1 :], seat, key) for a in probes):
            break
        tail += 1
    return tail


def _same_view(state: Engine, action: int, later: list[int], seat: int, key: object) -> bool:
    engine = state.copy()
    engine.apply(action)
    for a in later:
        if engine.current_player() == TERMINAL or a not in engine.legal_actions():
            return False
        engine.apply(a)
    return engine.info_key(seat) == key


def rewound(world: Engine, tail: int, fresh: Callable[[Engine], Engine]) -> Engine:
    """``world`` without its last ``tail`` steps."""
    engine = fresh(world)
    for action in list(world.history)[:-tail]:
        engine.apply(action)
    return engine

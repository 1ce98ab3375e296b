"""The engine contract every game implements.

The engine is the rules in plain Python: ints, tuples and lists, a hand-written ``copy()``, no
numpy per node and no knowledge of OpenSpiel, HTTP or bots. Bots search on engines directly,
so this is where the speed is (see ``docs/architecture.md``).

Two additions to the usual ``apply``/``legal_actions`` surface make information sets work for
every game through one mechanism:

* ``history`` is the list of every action applied so far, chance outcomes included. Replaying
  it on a fresh engine rebuilds the state exactly; that is how structs are rebuilt and how
  sampled information sets are validated.
* ``narrate(action)`` says, *before* the action is applied, what the table learns from it: a
  public event dict, plus an optional hidden part and the seats that see the hidden part. The
  information-set JSON of seat ``p`` is the list of public events plus the hidden parts ``p``
  saw, so a game describes its information structure once, step by step.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Any, TypeVar

T = TypeVar("T")

CHANCE = -1
TERMINAL = -4


def weighted_pick(pairs: Sequence[tuple[T, float]], u: float) -> T:
    """The item whose cumulative weight interval contains ``u`` (in ``[0, total weight)``).

    The one inverse-CDF walk: chance draws, bots sampling from a policy, a search following
    visit counts. ``pairs`` are ``(item, weight)`` in a fixed order, so the same ``u`` gives
    the same item on the same weights; weights need not sum to 1 when ``u`` is scaled to their
    total. A ``u`` that rounding carries past the end gives the last item with a positive
    weight, never one of weight 0.
    """
    for item, weight in pairs:
        u -= weight
        if u < 0.0:
            return item
    for item, weight in reversed(pairs):
        if weight > 0.0:
            return item
    raise ValueError("weighted_pick needs at least one positive weight")


# A chance draw is a weighted pick over ``chance_outcomes()`` (sorted by outcome id).
inverse_cdf = weighted_pick


class Narration:
    """What the table learns from one step.

    ``public`` goes to everybody's event list; ``hidden`` (if any) goes only to the seats in
    ``seen_by``, tagged with the step's index. The public part must not leak the hidden part.

    A step that tells different seats different secrets (the last pass of a draft hands every
    receiver its own cards at once) gives ``hidden_for`` instead: one hidden part per seat that
    sees something. Then ``hidden`` is ``None`` and ``seen_by`` lists the seats of
    ``hidden_for``. Readers use ``private_for(seat)``, which covers both forms.
    """

    __slots__ = ("hidden", "hidden_for", "public", "seen_by")

    def __init__(
        self,
        public: dict[str, Any],
        hidden: dict[str, Any] | None = None,
        seen_by: tuple[int, ...] = (),
        hidden_for: dict[int, dict[str, Any]] | None = None,
    ) -> None:
        self.public = public
        self.hidden = hidden
        self.hidden_for = hidden_for
        self.seen_by = tuple(sorted(hidden_for)) if hidden_for is not None else seen_by

    def private_for(self, seat: int) -> dict[str, Any] | None:
        """The hidden part ``seat`` sees at this step, or ``None``."""
        if self.hidden_for is not None:
            return self.hidden_for.get(seat)
        if self.hidden is not None and seat in self.seen_by:
            return self.hidden
        return None


class Engine:
    """Base class of the game engines; subclasses define ``__slots__`` of their own."""

    __slots__ = ("history", "num_players")

    # --- the core game loop ------------------------------------------------------------------
    def current_player(self) -> int:
        """The seat to move, ``CHANCE`` (-1) or ``TERMINAL`` (-4)."""
        raise NotImplementedError

    def is_terminal(self) -> bool:
        return self.current_player() == TERMINAL

    def is_chance(self) -> bool:
        return self.current_player() == CHANCE

    def legal_actions(self) -> list[int]:
        """Sorted legal actions of the player to move (chance outcomes at chance nodes)."""
        if self.is_chance():
            return [a for a, _ in self.chance_outcomes()]
        return self.player_actions()

    def player_actions(self) -> list[int]:
        raise NotImplementedError

    def chance_outcomes(self) -> list[tuple[int, float]]:
        """(outcome, probability) pairs at a chance node, sorted by outcome."""
        raise NotImplementedError

    def sample_chance(self, rng: random.Random) -> int:
        """Draws a chance outcome by its probability; engines override it with a faster draw."""
        return inverse_cdf(self.chance_outcomes(), rng.random())

    def apply(self, action: int) -> None:
        """Applies a legal action (the caller checks legality) and records it in ``history``."""
        raise NotImplementedError

    def is_legal(self, action: int) -> bool:
        """Whether ``action`` is legal here; engines with huge action ranges answer faster."""
        return action in self.legal_actions()

    def random_playout(self, rng: random.Random) -> list[float]:
        """Plays uniformly random legal actions to the end and returns ``returns()``.

        Chance nodes draw ``sample_chance(rng)``, players ``legal[int(rng.random() * n)]``.
        An engine may override it with a faster loop that makes exactly the same draws and
        actions (Modern Art does; tests/test_modern_art_playout.py pins it against this one).
        """
        # Bound methods looked up once: the loop is every search's rollout.
        current, apply, actions = self.current_player, self.apply, self.player_actions
        sample, random_ = self.sample_chance, rng.random
        while True:
            player = current()
            if player == TERMINAL:
                return self.returns()
            if player == CHANCE:
                apply(sample(rng))
                continue
            legal = actions()
            apply(legal[int(random_() * len(legal))])

    def returns(self) -> list[float]:
        """Returns of every seat; all zeros before the end."""
        raise NotImplementedError

    def copy(self) -> Engine:
        raise NotImplementedError

    # --- what the players know ---------------------------------------------------------------
    def narrate(self, action: int) -> Narration:
        """Describes the step ``action`` would make from this state (before applying it)."""
        raise NotImplementedError

    def info_key(self, player: int) -> Any:
        """A fast hashable key equal for two states exactly when ``player``'s infosets are."""
        raise NotImplementedError

    def observation(self, player: int) -> dict[str, Any]:
        """The current picture ``player`` sees (no history): hand, table, money, whose turn."""
        raise NotImplementedError

    def describe(self) -> dict[str, Any]:
        """The whole state, hidden parts included, in readable form (for ``to_struct``)."""
        raise NotImplementedError


def _deepcopy(self: Engine, memo: dict) -> Engine:
    """``pyspiel`` clones Python states with ``copy.deepcopy``: route it to the fast copy."""
    return self.copy()


Engine.__deepcopy__ = _deepcopy  # type: ignore[attr-defined]

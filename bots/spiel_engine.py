"""OpenSpiel's own games seen through the engine interface the search bots use.

The search bots run on ``games.core.engine.Engine`` objects; this thin adapter gives a
``pyspiel.State`` (Kuhn or Leduc poker, say) the few methods they call, so the same ISMCTS code
runs on OpenSpiel's games as a sanity check against published behaviour. It is slower than a
native engine (every step crosses into C++), which does not matter for such small games.
"""

from __future__ import annotations

import random
from typing import Any

import pyspiel

from games.core.engine import inverse_cdf


class SpielEngine:
    """A ``pyspiel.State`` with the engine methods ISMCTS uses."""

    __slots__ = ("state",)

    def __init__(self, state: pyspiel.State) -> None:
        self.state = state

    def copy(self) -> SpielEngine:
        return SpielEngine(self.state.clone())

    def current_player(self) -> int:
        return self.state.current_player()

    def is_terminal(self) -> bool:
        return self.state.is_terminal()

    def is_chance(self) -> bool:
        return self.state.is_chance_node()

    def legal_actions(self) -> list[int]:
        return self.state.legal_actions()

    def player_actions(self) -> list[int]:
        return self.state.legal_actions()

    def chance_outcomes(self) -> list[tuple[int, float]]:
        return self.state.chance_outcomes()

    def sample_chance(self, rng: random.Random) -> int:
        return inverse_cdf(self.state.chance_outcomes(), rng.random())

    def apply(self, action: int) -> None:
        self.state.apply_action(action)

    def returns(self) -> list[float]:
        return self.state.returns()

    def info_key(self, player: int) -> Any:
        # The seat is part of the key: two seats' strings may coincide in some games.
        return (player, self.state.information_state_string(player))

    @property
    def history(self) -> list[int]:
        return self.state.history()

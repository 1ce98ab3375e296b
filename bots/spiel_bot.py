"""Any bot of this package as a ``pyspiel.Bot``, so OpenSpiel's tools (``evaluate_bots``) run it.

Each ``step`` asks the bot for a hint about the state's acting seat with the adapter's budget
and a seed derived from the adapter's seed and the length of the history (``derive_seed``), so
a game replayed with the same seeds is replayed move for move. The bot still sees only the
acting seat's information set (``Bot.hint_for_state``).
"""

from __future__ import annotations

from typing import Any

import pyspiel

from bots.protocol import Bot, Budget, Hint
from bots.registry import make_bot
from games.core.seeds import derive_seed


class SpielBot(pyspiel.Bot):
    """A ``pyspiel.Bot`` around a bot of this package (or a bot spec)."""

    def __init__(self, bot: Bot | dict[str, Any] | str, budget: Budget, seed: int = 0) -> None:
        pyspiel.Bot.__init__(self)
        self.bot = bot if isinstance(bot, Bot) else make_bot(bot)
        self.budget = budget
        self.seed = seed
        self.last_hint: Hint | None = None

    def _hint(self, state: pyspiel.State) -> Hint:
        seed = derive_seed(self.seed, "move", len(state.history()))
        self.last_hint = self.bot.hint_for_state(state, self.budget, seed)
        return self.last_hint

    def step(self, state: pyspiel.State) -> int:
        return self._hint(state).action

    def step_with_policy(self, state: pyspiel.State) -> tuple[list[tuple[int, float]], int]:
        hint = self._hint(state)
        return [(s.action, s.probability) for s in hint.policy], hint.action

    def provides_policy(self) -> bool:
        return True

    def get_policy(self, state: pyspiel.State) -> list[tuple[int, float]]:
        return self.step_with_policy(state)[0]

    def restart_at(self, state: pyspiel.State) -> None:
        """Nothing to reset: every step searches afresh from the information set."""

    def inform_action(self, state: pyspiel.State, player_id: int, action: int) -> None:
        """Nothing to track: the information set carries the history."""

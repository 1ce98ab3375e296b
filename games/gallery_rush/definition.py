"""Gallery Rush's names, parameters and action encoding.

Action ids are laid out in ``games.gallery_rush.actions``.
"""

from __future__ import annotations

from typing import Any

from games.core.definition import GameDefinition, GameNumbers, InvalidAction
from games.core.engine import CHANCE
from games.core.params import ParamSpec
from games.core.pieces import HistoryFields, Piece
from games.gallery_rush import observation
from games.gallery_rush.actions import SIMPLE, declare, steal
from games.gallery_rush.engine import (
    CALL_BY_NAME,
    NUM_ACTIONS,
    SLOT_NAMES,
    START,
    STEPS_PER_TURN,
    GalleryRushEngine,
    action_struct,
)
from games.paintings import KIND_BY_NAME, KIND_NAMES, NUM_KINDS


class GalleryRush(GameDefinition):
    name = "gallery_rush"
    long_name = "Gallery Rush"
    # 2: the events say what each step led to (``outcomes``: bust, penalty, bonus draws, ...).
    version = 2
    zero_sum = True
    rules_doc = "docs/rules/gallery_rush.md"
    public_history = True  # every flip is public; only the deck's order is hidden
    # The ``type`` of every public event; the service's JSON Schemas enumerate them.
    event_types = (
        "start_player",
        "explore",
        "declare",
        "flip",
        "continue",
        "confirm",
        "pass",
        "steal",
    )
    action_types = event_types
    conformance_params = ({"players": 2}, {"players": 3}, {"players": 4, "max_turns": 12})
    param_specs = (
        ParamSpec("players", 2, "number of players", min=2, max=4),
        ParamSpec(
            "max_turns",
            300,
            "turn cap: after this many turns every player is ranked by Collection size",
            min=1,
            max=10_000,
        ),
    )

    def numbers(self, params: dict[str, Any]) -> GameNumbers:
        n = params["players"]
        return GameNumbers(
            num_distinct_actions=NUM_ACTIONS,
            max_chance_outcomes=max(NUM_KINDS, n),
            num_players=n,
            min_utility=-1.0,
            max_utility=1.0,
            utility_sum=0.0,
            max_game_length=1 + STEPS_PER_TURN * params["max_turns"],
        )

    def new_engine(self, params: dict[str, Any]) -> GalleryRushEngine:
        return GalleryRushEngine(params["players"], params["max_turns"])

    def observation_pieces(self, engine: Any) -> tuple[Piece, ...]:
        return observation.pieces(engine)

    def history_fields(self, engine: Any) -> HistoryFields:
        return observation.history_fields(engine, self.event_types)

    def action_to_struct(self, engine: Any, player: int, action: int) -> dict[str, Any]:
        if player == CHANCE or engine.current_player() == CHANCE:
            if engine.phase == START:
                return {"type": "start_player", "seat": action}
            return {"type": "flip", "card": KIND_NAMES[action]}
        return action_struct(engine, action)

    def action_to_string(self, engine: Any, player: int, action: int) -> str:
        s = self.action_to_struct(engine, player, action)
        kind = s["type"]
        if kind == "declare":
            return f"declare {s['call']}"
        if kind == "steal":
            return f"steal {s['card']} from seat {s['from']}"
        if kind == "flip":
            return f"flip {s['card']}"
        if kind == "start_player":
            return f"start player: seat {s['seat']}"
        return kind

    def struct_to_action(self, engine: Any, struct: Any) -> int:
        """Direct decoding (no scan over legal actions), with errors naming the field."""
        if not isinstance(struct, dict) or "type" not in struct:
            raise InvalidAction("an action must be an object with a 'type'")
        kind = struct["type"]
        if kind in SIMPLE:
            action = SIMPLE[kind]
        elif kind == "declare":
            call = struct.get("call")
            if not isinstance(call, str) or call not in CALL_BY_NAME:
                raise InvalidAction(
                    f"field 'call' must be one of {list(CALL_BY_NAME)}, got {call!r}"
                )
            action = declare(CALL_BY_NAME[call])
        elif kind == "steal":
            card = struct.get("card")
            if not isinstance(card, str) or card not in SLOT_NAMES:
                raise InvalidAction(f"field 'card' must be one of {list(SLOT_NAMES)}, got {card!r}")
            action = steal(SLOT_NAMES.index(card))
        elif kind == "flip":
            card = struct.get("card")
            if not isinstance(card, str) or card not in KIND_BY_NAME:
                raise InvalidAction(f"field 'card' must be one of {list(KIND_NAMES)}, got {card!r}")
            action = KIND_BY_NAME[card]
        elif kind == "start_player":
            action = struct.get("seat")
            if not isinstance(action, int) or isinstance(action, bool):
                raise InvalidAction(f"field 'seat' must be a seat number, got {action!r}")
        else:
            raise InvalidAction(f"unknown action type {kind!r}")
        if engine.is_terminal() or action not in engine.legal_actions():
            raise InvalidAction(f"action {struct} is not legal here; {self._legal_summary(engine)}")
        if self.action_to_struct(engine, engine.current_player(), action) != struct:
            raise InvalidAction(
                f"action {struct} does not match the state: expected "
                f"{self.action_to_struct(engine, engine.current_player(), action)}"
            )
        return action


GALLERY_RUSH = GalleryRush()

"""Detective Eye's names, parameters and action encoding.

Player action ids, with ``P`` painters, ``H`` the hand size and ``Q = players * H`` the largest
possible quantity:

* ``0..P-1``: place a card of painter ``c`` face down (first placement or a Place turn);
* ``P..2P-1``: discard a card of painter ``c`` after a successful challenge;
* ``2P``: pass in the bidding;
* ``2P+1 + (q-1)*P + c``: declare (on a turn) or raise (in the bidding) painter ``c``,
  quantity ``q`` in ``1..Q``; ids grow with the quantity, so a raise is a contiguous range;
* then ``owner * H + position``: flip the face-down card at that position of that seat's row;
* then one id per composition of the ``draft_size`` cards passed in the draft.

Chance outcomes: a deal is the index of the dealt hand's composition (cards per painter) in a
fixed enumeration; the start player is the seat.
"""

from __future__ import annotations

import random
from typing import Any

from cachetools import LRUCache

from games.core.definition import GameDefinition, GameNumbers, InvalidAction, Prior, replayed
from games.core.engine import Engine
from games.core.params import InvalidParams, ParamSpec
from games.core.pieces import HistoryFields, Piece
from games.detective_eye import observation
from games.detective_eye.actions import BID as BID_ACTION
from games.detective_eye.actions import DISCARD as DISCARD_ACTION
from games.detective_eye.actions import FLIP as FLIP_ACTION
from games.detective_eye.actions import PASS as PASS_ACTION
from games.detective_eye.actions import PLACE, Config
from games.detective_eye.engine import (
    BID,
    DEAL,
    DISCARD,
    DRAFT,
    FIRST,
    FLIP,
    START,
    TURN,
    DetectiveEyeEngine,
    painter_counts,
)
from games.detective_eye.sampler import sample_history

# The 2-player variant small enough for exact solving by tabular CFR (docs/rules).
SMALL_VARIANT: dict[str, Any] = {
    "players": 2,
    "painters": 2,
    "cards_per_painter": 2,
    "hand_size": 2,
    "draft_size": 1,
    "forgeries": 1,
    "max_rounds": 1,
}


class DetectiveEye(GameDefinition):
    name = "detective_eye"
    long_name = "Detective Eye"
    version = 1
    zero_sum = True
    rules_doc = "docs/rules/detective_eye.md"
    # Every event and action struct "type" (the service's JSON Schemas enumerate them).
    event_types = (
        "deal",
        "pass_cards",
        "start_player",
        "place",
        "declare",
        "raise",
        "pass",
        "flip",
        "discard",
    )
    action_types = event_types
    small_variant = SMALL_VARIANT
    conformance_params = (
        {"players": 2},
        {"players": 3, "max_rounds": 6},
        {"players": 4, "max_rounds": 4},
        SMALL_VARIANT,
    )
    param_specs = (
        ParamSpec("players", 2, "number of players", min=2, max=4),
        ParamSpec(
            "max_rounds",
            60,
            "round cap: after this many rounds the game ends as when the forgery supply is "
            "empty (fewest forgeries, then fewest cards, win)",
            min=1,
            max=10_000,
        ),
        ParamSpec("painters", 3, "painters in the deck (reduced variants use fewer)", min=1, max=3),
        ParamSpec("cards_per_painter", 8, "paintings of each painter in the deck", min=1, max=8),
        ParamSpec("hand_size", 5, "cards dealt to each player", min=2, max=12),
        ParamSpec("draft_size", 2, "cards each player passes to the next seat", min=0, max=12),
        ParamSpec("forgeries", 3, "forgeries in the central supply", min=1, max=12),
    )

    def __init__(self) -> None:
        # Bounded: the service loads games with any parameters its clients send.
        self._fresh: LRUCache[tuple, DetectiveEyeEngine] = LRUCache(maxsize=64)

    def check_params(self, params: dict[str, Any]) -> None:
        deck = params["painters"] * params["cards_per_painter"]
        if params["players"] * params["hand_size"] > deck:
            raise InvalidParams(
                f"parameter 'hand_size': {params['players']} hands of {params['hand_size']} "
                f"need more than the {deck} paintings of the deck"
            )
        if params["draft_size"] > params["hand_size"]:
            raise InvalidParams(
                f"parameter 'draft_size' must be <= hand_size ({params['hand_size']}), "
                f"got {params['draft_size']}"
            )

    def new_engine(self, params: dict[str, Any]) -> DetectiveEyeEngine:
        # A copy of a cached fresh engine: the constructor's set-up costs twice a copy.
        key = tuple(params.items())
        fresh = self._fresh.get(key)
        if fresh is None:
            fresh = DetectiveEyeEngine(Config.from_params(params))
            self._fresh[key] = fresh
        return fresh.copy()

    def numbers(self, params: dict[str, Any]) -> GameNumbers:
        engine = self.new_engine(params)
        n = params["players"]
        cards = n * params["hand_size"]
        per_round = 3 * cards + 2 * n - 1
        return GameNumbers(
            num_distinct_actions=engine.num_actions,
            max_chance_outcomes=max(len(engine.deal_comps), n),
            num_players=n,
            min_utility=-1.0,
            max_utility=1.0,
            utility_sum=0.0,
            max_game_length=2 * n + 1 + params["max_rounds"] * per_round,
        )

    # --- actions -----------------------------------------------------------------------------
    def observation_pieces(self, engine: Any) -> tuple[Piece, ...]:
        return observation.pieces(engine)

    def history_fields(self, engine: Any) -> HistoryFields:
        return observation.history_fields(engine, self.event_types)

    def action_to_struct(self, engine: Any, player: int, action: int) -> dict[str, Any]:
        names = engine.names
        phase = engine.phase
        if phase == DEAL:
            comp = engine.deal_comps[action]
            return {"type": "deal", "seat": engine.dealt, "cards": painter_counts(names, comp)}
        if phase == START:
            return {"type": "start_player", "seat": action}
        ids = engine.ids
        kind = ids.kind(action)
        if kind == PLACE:
            return {"type": "place", "card": names[action]}
        if kind == DISCARD_ACTION:
            return {"type": "discard", "card": names[ids.discarded(action)]}
        if kind == PASS_ACTION:
            return {"type": "pass"}
        if kind == BID_ACTION:
            painter, quantity = ids.bid_of(action)
            kind = "raise" if phase == BID else "declare"
            return {"type": kind, "painter": names[painter], "quantity": quantity}
        if kind == FLIP_ACTION:
            owner, pos = ids.flip_of(action)
            return {"type": "flip", "owner": owner, "position": pos}
        return {"type": "pass_cards", "cards": painter_counts(names, ids.draft_of(action))}

    def action_to_string(self, engine: Any, player: int, action: int) -> str:
        s = self.action_to_struct(engine, player, action)
        kind = s["type"]
        if kind in ("deal", "pass_cards"):
            cards = ", ".join(f"{k} {name}" for name, k in s["cards"].items())
            return f"deal {cards} to seat {s['seat']}" if kind == "deal" else f"pass {cards}"
        if kind == "start_player":
            return f"start player: seat {s['seat']}"
        if kind in ("place", "discard"):
            return f"{kind} {s['card']}"
        if kind in ("declare", "raise"):
            return f"{kind} {s['quantity']} {s['painter']}"
        if kind == "flip":
            # Positions count from 1 for people (the struct's ``position`` stays 0-based).
            return f"flip card {s['position'] + 1} of seat {s['owner']}'s row"
        return kind

    def struct_to_action(self, engine: Any, struct: Any) -> int:
        """Direct decoding (no scan over legal actions), with errors naming the field."""
        if not isinstance(struct, dict) or "type" not in struct:
            raise InvalidAction("an action must be an object with a 'type'")
        kind = struct["type"]
        by_name = {name: c for c, name in enumerate(engine.names)}
        ids = engine.ids
        p = engine.painters

        def painter(key: str) -> int:
            value = struct.get(key)
            if not isinstance(value, str) or value not in by_name:  # [] or {} are unhashable
                raise InvalidAction(f"field '{key}' must be one of {list(by_name)}, got {value!r}")
            return by_name[value]

        def number(key: str) -> int:
            value = struct.get(key)
            if isinstance(value, bool) or not isinstance(value, int):
                raise InvalidAction(f"field '{key}' must be a whole number, got {value!r}")
            return value

        def comp(key: str, total: int) -> tuple[int, ...]:
            value = struct.get(key)
            if not isinstance(value, dict):
                raise InvalidAction(f"field '{key}' must map painters to counts, got {value!r}")
            out = [0] * p
            for name, k in value.items():
                if name not in by_name or isinstance(k, bool) or not isinstance(k, int):
                    raise InvalidAction(f"field '{key}' has a bad entry {name!r}: {k!r}")
                out[by_name[name]] = k
            return tuple(out)

        if kind == "place":
            action = ids.place(painter("card"))
        elif kind == "discard":
            action = ids.discard(painter("card"))
        elif kind == "pass":
            action = ids.pass_action
        elif kind in ("declare", "raise"):
            q = number("quantity")
            if not 1 <= q <= engine.max_quantity:
                raise InvalidAction(f"field 'quantity' must be 1..{engine.max_quantity}, got {q}")
            action = ids.bid(painter("painter"), q)
        elif kind == "flip":
            owner, pos = number("owner"), number("position")
            if not (0 <= owner < engine.num_players and 0 <= pos < engine.hand_size):
                raise InvalidAction(f"no card at owner {owner}, position {pos}")
            action = ids.flip(owner, pos)
        elif kind == "pass_cards":
            key = comp("cards", engine.draft_size)
            if key not in engine.draft_index:
                raise InvalidAction(f"field 'cards' must hold {engine.draft_size} cards")
            action = ids.draft(key)
        elif kind == "deal":
            key = comp("cards", engine.hand_size)
            if key not in engine.deal_comps:
                raise InvalidAction(f"field 'cards' must hold {engine.hand_size} cards")
            action = engine.deal_comps.index(key)
        elif kind == "start_player":
            action = number("seat")
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

    # --- information sets --------------------------------------------------------------------
    def sample_history(
        self,
        params: dict[str, Any],
        infoset: dict[str, Any],
        rng: random.Random,
        prior: Prior | None = None,
    ) -> list[int]:
        """Deals the unseen cards consistently with every known location (see sampler.py)."""
        return sample_history(params, infoset, rng)

    def sample_world(
        self,
        params: dict[str, Any],
        infoset: dict[str, Any],
        rng: random.Random,
        prior: Prior | None = None,
        memo: dict[str, Any] | None = None,
    ) -> Engine:
        """The planned history (which builds no state) replayed with legality checks."""
        return replayed(self, params, self.sample_history(params, infoset, rng, prior))


DETECTIVE_EYE = DetectiveEye()

# Phases a client may meet, re-exported for tests and docs.
PHASES = {
    "deal": DEAL,
    "draft": DRAFT,
    "start": START,
    "first_placement": FIRST,
    "turn": TURN,
    "bidding": BID,
    "challenge": FLIP,
    "discard": DISCARD,
}

"""Finger Auction's names, parameters, action encoding and information-set sampler.

Action ids are laid out in ``games.finger_auction.actions``; chance outcomes are the kind of
card revealed (0-6), or the seat a capped tie-break picks.

Bids are hidden commits revealed together by the auction's last bid, so an earlier bid is
fixed by a later public event. ``sample_world`` therefore reads the revealed bids from the
reveal events and samples only the bids still hidden (uniformly, or by the ``prior`` hook);
the generic sequential filler would choose them before seeing the reveal.
"""

from __future__ import annotations

import random
from collections.abc import Mapping
from typing import Any

from games.core.definition import (
    GameDefinition,
    GameNumbers,
    InvalidAction,
    InvalidInfoset,
    Prior,
)
from games.core.engine import CHANCE, Engine
from games.core.params import InvalidParams, ParamSpec
from games.core.pieces import HistoryFields, Piece
from games.finger_auction import observation
from games.finger_auction.actions import bid as bid_id
from games.finger_auction.actions import num_actions, pick, picked, take_block
from games.finger_auction.engine import (
    BID,
    PICK,
    REVEAL,
    TIE,
    FingerAuctionEngine,
)
from games.paintings import FULL_DECK, KIND_BY_NAME, KIND_NAMES, NUM_KINDS

# One parameter per kind, in ``games.paintings`` order: (name, limit). The scoring tables stop at
# a count of 9 (8 paintings + the Mona Lisa), hence the limits.
DECK_PARAMS = (
    ("deck_monet", 8),
    ("deck_van_gogh", 8),
    ("deck_vermeer", 8),
    ("deck_monet_forgery", 1),
    ("deck_van_gogh_forgery", 1),
    ("deck_vermeer_forgery", 1),
    ("deck_mona_lisa", 1),
)

# A 2-player variant small enough for tabular CFR (see docs/rules/finger_auction.md).
SMALL_VARIANT: dict[str, Any] = {
    "players": 2,
    "rounds": 1,
    "cards_per_round": 2,
    "max_bid": 2,
    "max_void_auctions": 2,
    "deck_monet": 1,
    "deck_van_gogh": 1,
    "deck_vermeer": 1,
    "deck_monet_forgery": 1,
    "deck_van_gogh_forgery": 0,
    "deck_vermeer_forgery": 0,
    "deck_mona_lisa": 0,
}


def deck_of(params: Mapping[str, Any]) -> tuple[int, ...]:
    """The deck composition (counts per kind) a parameter setting asks for."""
    return tuple(params[name] for name, _ in DECK_PARAMS)


class FingerAuction(GameDefinition):
    name = "finger_auction"
    long_name = "Finger Auction"
    # 2: the events name the cards taken without a pick (auto_picked, leftover).
    version = 2
    zero_sum = True
    rules_doc = "docs/rules/finger_auction.md"
    # The ``type`` of every public event; the service's JSON Schemas enumerate them.
    event_types = ("reveal", "bid", "tie_break", "pick")
    action_types = event_types
    small_variant = SMALL_VARIANT
    # Reveals, tie-breaks and picks are public and each auction's last bid reveals its bids:
    # only the bids of the auction in progress are hidden, just before the seat's own bid.
    hidden_in_tail = True
    conformance_params = (
        {"players": 2},
        {"players": 3},
        {"players": 4, "rounds": 2, "max_void_auctions": 3},
        SMALL_VARIANT,
    )
    param_specs = (
        ParamSpec("players", 2, "number of players", min=2, max=4),
        ParamSpec(
            "max_void_auctions",
            20,
            "void auctions in a row after which a chance draw picks the winner among the tied "
            "lowest bidders (both players in a two-player auction), who takes their own bid",
            min=1,
            max=1000,
        ),
        ParamSpec("rounds", 4, "rounds (reduced variants)", min=1, max=28),
        ParamSpec(
            "cards_per_round", 7, "cards revealed each round (reduced variants)", min=1, max=28
        ),
        ParamSpec(
            "max_bid",
            5,
            "highest bid (fingers); at least 2 so the no-repeat rule leaves a take",
            min=2,
            max=9,
        ),
        *(
            ParamSpec(
                name,
                FULL_DECK[kind],
                f"{KIND_NAMES[kind]} cards in the deck (reduced variants)",
                min=0,
                max=limit,
            )
            for kind, (name, limit) in enumerate(DECK_PARAMS)
        ),
    )

    def check_params(self, params: dict[str, Any]) -> None:
        cards = sum(deck_of(params))
        need = params["rounds"] * params["cards_per_round"]
        if need > cards:
            raise InvalidParams(
                f"parameter 'cards_per_round': rounds x cards_per_round = {need} but the deck "
                f"(parameters deck_*) holds {cards} cards"
            )

    # --- sizes and engines ---------------------------------------------------------------------
    def numbers(self, params: dict[str, Any]) -> GameNumbers:
        n = params["players"]
        m = params["max_bid"]
        cards = params["cards_per_round"]
        # Per round: the reveals, at most one pick step per card, and for the auctions of
        # n, n-1, ..., 2 seats up to max_void_auctions bidding rounds plus a tie-break each.
        auctions = sum(params["max_void_auctions"] * k + 1 for k in range(2, n + 1))
        return GameNumbers(
            num_distinct_actions=num_actions(m),
            max_chance_outcomes=max(NUM_KINDS, n),
            num_players=n,
            min_utility=-1.0,
            max_utility=1.0,
            utility_sum=0.0,
            max_game_length=params["rounds"] * (2 * cards + auctions),
        )

    def new_engine(self, params: dict[str, Any]) -> FingerAuctionEngine:
        return FingerAuctionEngine(
            params["players"],
            max_void=params["max_void_auctions"],
            rounds=params["rounds"],
            cards_per_round=params["cards_per_round"],
            max_bid=params["max_bid"],
            deck=deck_of(params),
        )

    # --- actions -------------------------------------------------------------------------------
    def observation_pieces(self, engine: Any) -> tuple[Piece, ...]:
        return observation.pieces(engine)

    def history_fields(self, engine: Any) -> HistoryFields:
        return observation.history_fields(engine, self.event_types)

    def action_to_struct(self, engine: Any, player: int, action: int) -> dict[str, Any]:
        phase = engine.phase
        if phase == REVEAL:
            return {"type": "reveal", "card": KIND_NAMES[action]}
        if phase == TIE:
            return {"type": "tie_break", "winner": action}
        if phase == PICK:
            return {"type": "pick", "card": KIND_NAMES[picked(action, engine.max_bid)]}
        if phase == BID:
            return {"type": "bid", **engine.bid_struct(len(engine.bids), action)}
        raise InvalidAction("the game is over")

    def action_to_string(self, engine: Any, player: int, action: int) -> str:
        s = self.action_to_struct(engine, player, action)
        kind = s["type"]
        if kind == "bid":
            if "take" in s:
                return f"take {s['take']} block {s['block']}"
            return f"bid {s['bid']}"
        if kind == "tie_break":
            return f"tie-break: seat {s['winner']}"
        return f"{kind} {s['card']}"

    def struct_to_action(self, engine: Any, struct: Any) -> int:
        """Direct decoding (no scan over legal actions), with errors naming the field."""
        if not isinstance(struct, Mapping) or "type" not in struct:
            raise InvalidAction("an action must be an object with a 'type'")
        if engine.is_terminal():
            raise InvalidAction(f"action {dict(struct)} is not legal: the game is over")
        kind = struct["type"]
        phase = engine.phase
        expected = {REVEAL: "reveal", TIE: "tie_break", PICK: "pick", BID: "bid"}[phase]
        if kind not in ("reveal", "tie_break", "pick", "bid"):
            raise InvalidAction(f"unknown action type {kind!r}")
        if kind != expected:
            raise InvalidAction(
                f"action type {kind!r} is not legal here; {self._legal_summary(engine)}"
            )
        if kind in ("reveal", "pick"):
            card = struct.get("card")
            if not isinstance(card, str) or card not in KIND_BY_NAME:
                raise InvalidAction(f"field 'card' must be one of {list(KIND_NAMES)}, got {card!r}")
            action = KIND_BY_NAME[card]
            if kind == "pick":
                action = pick(action, engine.max_bid)
        elif kind == "tie_break":
            action = struct.get("winner")
            if not isinstance(action, int) or isinstance(action, bool):
                raise InvalidAction(f"field 'winner' must be a seat number, got {action!r}")
        else:
            action = encode_bid(engine, struct, InvalidAction)
        if action not in engine.legal_actions():
            raise InvalidAction(
                f"action {dict(struct)} is not legal here; {self._legal_summary(engine)}"
            )
        if self.action_to_struct(engine, engine.current_player(), action) != dict(struct):
            raise InvalidAction(
                f"action {dict(struct)} does not match the state: expected "
                f"{self.action_to_struct(engine, engine.current_player(), action)}"
            )
        return action

    # --- information sets ----------------------------------------------------------------------
    def sample_world(
        self,
        params: dict[str, Any],
        infoset: dict[str, Any],
        rng: random.Random,
        prior: Prior | None = None,
        memo: dict[str, Any] | None = None,
    ) -> Engine:
        """A full state consistent with ``infoset``, read from its events and private entries.

        Every step but a still-hidden bid is fixed by the JSON: reveals, tie-breaks and picks
        name their card or seat, and each auction's last bid reveals all of its bids. Only the
        bids of the auction in progress that ``seat`` did not make are drawn.
        """
        seat = infoset["seat"]
        events = infoset["events"]
        private = {e["at"]: e for e in infoset["private"]}
        known = revealed_bids(events)
        engine = self.new_engine(params)
        for i, event in enumerate(events):
            if engine.is_terminal():
                raise InvalidInfoset(f"events[{i}] comes after the end of the game")
            kind = event.get("type")
            phase = engine.phase
            card = event.get("card")
            card_kind = KIND_BY_NAME.get(card) if isinstance(card, str) else None
            if kind == "bid" and phase == BID:
                if i in known:
                    action = encode_bid(engine, known[i], InvalidInfoset, f"events[{i}]")
                elif i in private:
                    action = encode_bid(engine, private[i], InvalidInfoset, f"private at {i}")
                else:
                    candidates = engine.player_actions()
                    if prior is not None:
                        weights = list(prior(engine, candidates))
                        action = rng.choices(candidates, weights=weights)[0]
                    else:
                        action = candidates[rng.randrange(len(candidates))]
            elif kind == "reveal" and phase == REVEAL and card_kind is not None:
                action = card_kind
            elif kind == "pick" and phase == PICK and card_kind is not None:
                action = engine.max_bid**2 + card_kind
            elif kind == "tie_break" and phase == TIE:
                action = event.get("winner")
            else:
                action = None
            if action is None or action not in engine.legal_actions():
                raise InvalidInfoset(f"events[{i}] {event} is not possible here ({_who(engine)})")
            story = engine.narrate(action)
            if story.public != event:
                raise InvalidInfoset(
                    f"events[{i}] {event} is not possible here: the table would see {story.public}"
                )
            sees = story.hidden is not None and seat in story.seen_by
            if sees != (i in private):
                raise InvalidInfoset(
                    f"events[{i}]: seat {seat} "
                    + ("has no private entry for its own bid" if sees else "sees nothing here")
                    + f" (private entry: {private.get(i)})"
                )
            engine.apply(action)
        return engine


def _who(engine: FingerAuctionEngine) -> str:
    player = engine.current_player()
    return "chance to move" if player == CHANCE else f"seat {player} to move"


def revealed_bids(events: list[dict[str, Any]]) -> dict[int, dict[str, Any]]:
    """Event index -> the bid that step made, for every bid a later reveal made public.

    An auction's bid events run in seat order and end with the one carrying ``revealed``; the
    bid steps before it belong to the same auction.
    """
    known: dict[int, dict[str, Any]] = {}
    open_steps: list[int] = []
    for i, event in enumerate(events):
        if event.get("type") != "bid":
            open_steps = []
            continue
        open_steps.append(i)
        revealed = event.get("revealed")
        if revealed is None:
            continue
        if isinstance(revealed, list):
            by_seat = {
                entry.get("seat"): entry
                for entry in revealed
                if isinstance(entry, dict) and isinstance(entry.get("seat"), int)
            }
            for j in open_steps:
                entry = by_seat.get(events[j].get("seat"))
                if entry is not None:
                    known[j] = {k: v for k, v in entry.items() if k != "seat"}
        open_steps = []
    return known


def encode_bid(
    engine: FingerAuctionEngine,
    bid: Mapping[str, Any],
    error: type[ValueError],
    where: str = "action",
) -> int:
    """The action id of a bid struct in ``engine``'s auction; ``error`` naming the field."""
    m = engine.max_bid
    fields = ("take", "block") if len(engine.active) == 2 else ("bid",)
    values = []
    for name in fields:
        value = bid.get(name)
        if isinstance(value, bool) or not isinstance(value, int) or not 1 <= value <= m:
            raise error(f"{where}: field '{name}' must be a whole number 1..{m}, got {value!r}")
        values.append(value)
    if len(values) == 2:
        return take_block(values[0], values[1], m)
    return bid_id(values[0])


FINGER_AUCTION = FingerAuction()

"""Modern Art's names, parameters, sizes and action encoding.

Player actions (ids, see ``games.modern_art.engine``): 0 pass, 1 accept, 2 decline, 3-6 add
an Open / Once Around / Sealed / Fixed partner to a Double, 7-31 offer one card
(``7 + artist * 5 + type``), 32-51 offer a Double with a partner of the same artist
(``32 + artist * 4 + partner type``), and ``52 + x`` for a bid, sealed bid or fixed price of
exactly ``x``, for every ``0 <= x <= max_money`` (``Config.max_money`` proves nobody's money
can exceed it; 2700 / 2800 / 2900 for 3 / 4 / 5 players in the full game). Chance outcomes:
the kind of a dealt card (``artist * 5 + type``) or the first seller's seat.
"""

from __future__ import annotations

import random
import re
from collections.abc import Mapping
from typing import Any

from cachetools import LRUCache

from games.core.definition import GameDefinition, GameNumbers, InvalidAction, Prior
from games.core.engine import CHANCE, Engine
from games.core.params import InvalidParams, ParamSpec
from games.core.pieces import HistoryFields, Piece
from games.modern_art import observation
from games.modern_art.actions import ACCEPT, DECLINE, PASS, add, amount, offer, offer_pair
from games.modern_art.cards import (
    ARTIST_BY_NAME,
    DOUBLE,
    NUM_TYPES,
    TYPE_BY_NAME,
    Config,
    card_name,
    card_struct,
    kind_of,
)
from games.modern_art.engine import (
    DEAL,
    FIRST,
    ModernArtEngine,
    action_string,
    action_struct,
    num_actions,
)
from games.modern_art.sampler import sample_world

_SIMPLE = {"pass": PASS, "accept": ACCEPT, "decline": DECLINE}
_AMOUNT_TYPES = ("bid", "sealed_bid", "price")
_AMOUNT_STRING = re.compile(r"^(bid|sealed bid|price) (0|[1-9][0-9]*)$")
_FIRST_STRING = re.compile(r"^first seller: seat ([0-9])$")
_DEAL_STRING = re.compile(r"^deal (.+) to seat ([0-9])$")


class ModernArt(GameDefinition):
    name = "modern_art"
    long_name = "Modern Art"
    version = 1
    zero_sum = False
    rules_doc = "docs/rules/modern_art.md"
    # The ``type`` of every public event and every action struct (chance outcomes included);
    # the service's JSON Schemas enumerate them.
    event_types = (
        "deal",
        "first_seller",
        "offer",
        "offer_double",
        "add",
        "pass",
        "bid",
        "sealed_bid",
        "price",
        "accept",
        "decline",
    )
    action_types = event_types
    # Reduced variants (fewer artists, cards, rounds and money; see ``docs/rules/modern_art.md``)
    # cover 3, 4 and 5 players and both rulesets within the suite's time budget: the suite
    # rebuilds information sets from the whole history at every step, which the full game's
    # ~300 steps make too slow. tests/test_modern_art_rules.py runs the full game for every
    # player count and ruleset (and the whole suite on it under ``-m slow``).
    conformance_params = (
        {
            "players": 3,
            "artists": 3,
            "cards_per_artist": 6,
            "rounds": 3,
            "money": 6,
            "deal": 2,
            "refill": 2,
        },
        {
            "players": 4,
            "ruleset": "classic",
            "payoff": "money",
            "artists": 2,
            "cards_per_artist": 6,
            "rounds": 2,
            "money": 8,
            "deal": 2,
            "refill": 1,
        },
        {
            "players": 5,
            "artists": 2,
            "cards_per_artist": 7,
            "rounds": 2,
            "money": 4,
            "deal": 2,
            "refill": 0,
        },
    )
    param_specs = (
        ParamSpec("players", 4, "number of players", min=3, max=5),
        ParamSpec(
            "ruleset",
            "seed",
            "'seed' follows the seed text; 'classic' the published game (3-player deal 10, "
            "no bid takes the painting free, Double revenue to the second auctioneer, sealed "
            "ties to the auctioneer first)",
            choices=("seed", "classic"),
        ),
        ParamSpec(
            "payoff",
            "points",
            "'points': the seed's points table by final money (ties share the places' "
            "points); 'money': final money",
            choices=("points", "money"),
        ),
        ParamSpec("artists", 5, "reduced variant: play with the first N artists", min=1, max=5),
        ParamSpec(
            "cards_per_artist",
            0,
            "reduced variant: 0 is the real deck (12-16 cards per artist); N > 0 gives every "
            "artist N cards whose types cycle Open, Once Around, Sealed, Fixed, Double",
            min=0,
            max=16,
        ),
        ParamSpec("rounds", 4, "number of rounds", min=1, max=4),
        ParamSpec("money", 100, "starting money of every player", min=0, max=10_000),
        ParamSpec(
            "deal",
            -1,
            "cards dealt to each player at the start; -1: 11/9/8 for 3/4/5 players "
            "(10 for 3 players in the classic rules)",
            min=-1,
            max=70,
        ),
        ParamSpec(
            "refill",
            -1,
            "cards each player draws before rounds 2 and 3; -1: 6/4/3 for 3/4/5 players",
            min=-1,
            max=70,
        ),
    )

    def __init__(self) -> None:
        # Bounded: the service loads games with any parameters its clients send.
        self._configs: LRUCache[tuple, Config] = LRUCache(maxsize=64)

    # --- parameters and sizes ----------------------------------------------------------------
    def check_params(self, params: dict[str, Any]) -> None:
        """Valid combinations: a deal of at least one card, and a deck that covers every deal."""
        if params["deal"] == 0:
            raise InvalidParams("parameter 'deal' must be -1 (by player count) or >= 1, got 0")
        cfg = Config(params)
        if cfg.cards_dealt > cfg.deck_size:
            raise InvalidParams(
                f"parameter 'deal'/'refill': {cfg.n} players are dealt {cfg.deal} and draw "
                f"{cfg.refill} x {cfg.refills} cards each, {cfg.cards_dealt} in all, but the "
                f"deck has only {cfg.deck_size} (artists={cfg.artists}, "
                f"cards_per_artist={params['cards_per_artist']})"
            )

    def config(self, params: dict[str, Any]) -> Config:
        """The engine configuration for validated ``params``, built once and shared."""
        key = tuple(sorted(params.items()))
        cfg = self._configs.get(key)
        if cfg is None:
            cfg = self._configs[key] = Config(params)
        return cfg

    def numbers(self, params: dict[str, Any]) -> GameNumbers:
        cfg = self.config(params)
        n = cfg.n
        dealt = cfg.cards_dealt
        # An Open auction has at most max_money raises (each one higher, none above anybody's
        # money), with at most n - 2 passes between two raises and n - 1 after the last one.
        open_steps = cfg.max_money * (n - 1) + n
        auction_steps = max(open_steps, n, n + 1)
        per_offer = 1 + (n - 1) + auction_steps  # the offer, partner answers, the auction
        return GameNumbers(
            num_distinct_actions=num_actions(cfg),
            max_chance_outcomes=max(cfg.kinds, n),
            num_players=n,
            min_utility=0.0,
            max_utility=float(cfg.points_table[0] if cfg.points else cfg.max_money),
            utility_sum=None,
            max_game_length=dealt + 1 + dealt * per_offer,
        )

    def new_engine(self, params: dict[str, Any]) -> ModernArtEngine:
        return ModernArtEngine(self.config(params))

    # --- actions -----------------------------------------------------------------------------
    def observation_pieces(self, engine: Any) -> tuple[Piece, ...]:
        return observation.pieces(engine)

    def history_fields(self, engine: Any) -> HistoryFields:
        return observation.history_fields(engine, self.event_types)

    def action_to_struct(self, engine: Any, player: int, action: int) -> dict[str, Any]:
        if engine.current_player() == CHANCE:
            if engine.phase == FIRST:
                return {"type": "first_seller", "seat": action}
            return {"type": "deal", "seat": engine.deal_seat, **card_struct(action)}
        return action_struct(engine, action)

    def action_to_string(self, engine: Any, player: int, action: int) -> str:
        if engine.current_player() == CHANCE:
            if engine.phase == FIRST:
                return f"first seller: seat {action}"
            return f"deal {card_name(action)} to seat {engine.deal_seat}"
        return action_string(engine, action)

    def struct_to_action(self, engine: Any, struct: Any) -> int:
        """Direct decoding (no scan over the legal bids), with errors naming the field."""
        if not isinstance(struct, Mapping) or not isinstance(struct.get("type"), str):
            raise InvalidAction("an action must be an object with a string 'type'")
        if engine.is_terminal():
            raise InvalidAction("the game is over")
        kind = struct["type"]
        if kind in _SIMPLE:
            action = _SIMPLE[kind]
        elif kind in _AMOUNT_TYPES:
            x = struct.get("amount")
            if isinstance(x, bool) or not isinstance(x, int) or x < 0:
                raise InvalidAction(f"field 'amount' must be a whole number >= 0, got {x!r}")
            action = amount(x)
        elif kind == "offer":
            action = offer(_kind(engine, struct, "auction"))
        elif kind == "deal":
            action = _kind(engine, struct, "auction")
        elif kind == "offer_double":
            partner = _kind(engine, struct, "partner")
            if partner % NUM_TYPES == DOUBLE:
                raise InvalidAction("field 'partner' must not be a Double")
            action = offer_pair(*divmod(partner, NUM_TYPES))
        elif kind == "add":
            t = TYPE_BY_NAME.get(struct.get("auction"), DOUBLE)
            if t == DOUBLE:
                raise InvalidAction(
                    f"field 'auction' must be Open, Once Around, Sealed or Fixed, got "
                    f"{struct.get('auction')!r}"
                )
            action = add(t)
        elif kind == "first_seller":
            action = struct.get("seat")
            if isinstance(action, bool) or not isinstance(action, int):
                raise InvalidAction(f"field 'seat' must be a seat number, got {action!r}")
        else:
            raise InvalidAction(f"unknown action type {kind!r}")
        return self._checked(engine, action, dict(struct))

    def _checked(self, engine: Any, action: int, want: Any) -> int:
        """``action`` if it is legal and reads back as ``want``; ``InvalidAction`` otherwise."""
        legal = (
            engine.is_legal(action)
            if engine.current_player() >= 0
            else action in engine.legal_actions()
        )
        if not legal:
            raise InvalidAction(f"action {want} is not legal here; {self._legal_summary(engine)}")
        player = engine.current_player()
        got = (
            self.action_to_struct(engine, player, action)
            if isinstance(want, dict)
            else self.action_to_string(engine, player, action)
        )
        if got != want:
            raise InvalidAction(f"action {want!r} does not match the state: expected {got!r}")
        return action

    def string_to_action(self, engine: Any, text: str) -> int:
        """Parses the strings of ``action_to_string`` directly (bids can number thousands)."""
        if not isinstance(text, str):
            raise InvalidAction(f"an action string must be a string, got {text!r}")
        if engine.is_terminal():
            raise InvalidAction("the game is over")
        action = _parse_string(self, engine, text)
        if action is None:  # not written exactly: the lenient scan, or its "ambiguous"/"unknown"
            return super().string_to_action(engine, text)
        return self._checked(engine, action, text)

    # --- information sets --------------------------------------------------------------------
    def sample_world(
        self,
        params: dict[str, Any],
        infoset: dict[str, Any],
        rng: random.Random,
        prior: Prior | None = None,
        memo: dict[str, Any] | None = None,
    ) -> Engine:
        """Deals every unseen card consistently and fills unrevealed sealed bids.

        See ``games.modern_art.sampler``: cards other seats later played are dealt to them
        before they played them, the rest of the unseen cards are dealt at random, and sealed
        bids not yet revealed are drawn uniformly (or by ``prior``) among the legal amounts.
        """
        return sample_world(self, params, infoset, rng, prior, memo)


def _kind(engine: Engine, struct: Mapping[str, Any], type_field: str) -> int:
    artist = ARTIST_BY_NAME.get(struct.get("artist"))
    if artist is None or artist >= engine.cfg.artists:
        raise InvalidAction(f"field 'artist' names no artist here: {struct.get('artist')!r}")
    t = TYPE_BY_NAME.get(struct.get(type_field))
    if t is None:
        raise InvalidAction(
            f"field '{type_field}' must be an auction type, got {struct.get(type_field)!r}"
        )
    return kind_of(artist, t)


def _card_from_text(text: str) -> int | None:
    """``"Yoko Once Around"`` -> its kind, or ``None``."""
    for name, artist in ARTIST_BY_NAME.items():
        if text.startswith(name + " "):
            t = TYPE_BY_NAME.get(text[len(name) + 1 :])
            return None if t is None else kind_of(artist, t)
    return None


def _parse_string(defn: ModernArt, engine: Any, text: str) -> int | None:
    if engine.current_player() == CHANCE:
        if engine.phase == FIRST:
            m = _FIRST_STRING.match(text)
            return int(m.group(1)) if m else None
        if engine.phase == DEAL:
            m = _DEAL_STRING.match(text)
            return _card_from_text(m.group(1)) if m else None
        return None
    if text in _SIMPLE:
        return _SIMPLE[text]
    m = _AMOUNT_STRING.match(text)
    if m:
        return amount(int(m.group(2)))
    if text.startswith("offer "):
        rest = text[len("offer ") :]
        if " Double with " in rest:
            head, partner = rest.rsplit(" Double with ", 1)
            kind = _card_from_text(f"{head} {partner}")
            if kind is None or kind % NUM_TYPES == DOUBLE:
                return None
            return offer_pair(*divmod(kind, NUM_TYPES))
        kind = _card_from_text(rest)
        return None if kind is None else offer(kind)
    if text.startswith("add "):
        kind = _card_from_text(text[len("add ") :])
        if kind is None or kind % NUM_TYPES == DOUBLE:
            return None
        return add(kind % NUM_TYPES)
    return None


MODERN_ART = ModernArt()

"""Gallery Rush rules: push-your-luck with the 28-card deck (see ``docs/rules/gallery_rush.md``).

Every card flipped is public, so the only hidden thing is the order of the deck; each flip is
a chance node over the remaining deck's composition. Collections hold counts per kind
(Monet, van Gogh, Vermeer, Mona Lisa); the Keep holds at most one painting per painter,
because a second one busts.
"""

from __future__ import annotations

import random
from typing import Any

from games.core.engine import CHANCE, TERMINAL, Engine, Narration
from games.gallery_rush.actions import (  # noqa: F401 (re-exported: the engine's vocabulary)
    CALL_BY_NAME,
    CALL_FORGERY,
    CALL_MONA_LISA,
    CALL_NAMES,
    CONFIRM,
    CONTINUE,
    DECLARATIONS,
    DECLARE_FORGERY,
    DECLARE_MONA_LISA,
    DECLARE_MONET,
    DECLARE_VAN_GOGH,
    DECLARE_VERMEER,
    EXPLORE,
    ML_SLOT,
    NUM_ACTIONS,
    PASS,
    SLOT_NAMES,
    STEAL_BASE,
    TURN_ACTIONS,
    call_of,
    is_declare,
    slot_of,
    steal,
)
from games.paintings import (
    FORGERY_MONET,
    FORGERY_VAN_GOGH,
    FORGERY_VERMEER,
    FULL_DECK,
    KIND_NAMES,
    MONA_LISA,
    NUM_KINDS,
    PAINTER_NAMES,
    counts_to_names,
    forgery_painter,
    is_forgery,
    shared_returns,
)

# Phases.
START, TURN, FLIP, CHOOSE, STEAL, OVER = range(6)
PHASE_NAMES = ("start", "turn", "flip", "choose", "steal", "over")

# What a pending flip is for.
FOR_EXPLORE, FOR_DECLARE, FOR_BONUS = range(3)

COLLECTION_GOAL = 7
PAINTER_GOAL = 4
BONUS_DRAWS = 2
STEPS_PER_TURN = 9  # explore + 4 flips + 3 continues + confirm bounds every kind of turn


class GalleryRushEngine(Engine):
    """The full game state; ``history`` replays it exactly."""

    __slots__ = (
        "bonus_left",
        "collections",
        "deck",
        "deck_size",
        "declared",
        "discard",
        "flip_for",
        "keep",
        "max_turns",
        "mona_lisa_winner",
        "phase",
        "player",
        "qualified",
        "start",
        "to_move",
        "turns",
        "victims",
    )

    def __init__(self, num_players: int, max_turns: int) -> None:
        self.num_players = num_players
        self.max_turns = max_turns
        self.history: list[int] = []
        self.phase = START
        self.player = CHANCE
        self.to_move = CHANCE  # current_player(), kept in step with phase and player
        self.start = -1
        self.turns = 0
        self.deck = list(FULL_DECK)
        self.deck_size = sum(FULL_DECK)
        self.discard = [0] * NUM_KINDS
        self.keep = [0, 0, 0]
        self.collections = [[0, 0, 0, 0] for _ in range(num_players)]
        self.qualified = [False] * num_players
        self.flip_for = FOR_EXPLORE
        self.declared = -1
        self.bonus_left = 0
        self.victims: list[int] = []
        self.mona_lisa_winner = -1

    def copy(self) -> GalleryRushEngine:
        new = GalleryRushEngine.__new__(GalleryRushEngine)
        new.num_players = self.num_players
        new.max_turns = self.max_turns
        new.history = self.history.copy()
        new.phase = self.phase
        new.to_move = self.to_move
        new.player = self.player
        new.start = self.start
        new.turns = self.turns
        new.deck = self.deck.copy()
        new.deck_size = self.deck_size
        new.discard = self.discard.copy()
        new.keep = self.keep.copy()
        new.collections = [c.copy() for c in self.collections]
        new.qualified = self.qualified.copy()
        new.flip_for = self.flip_for
        new.declared = self.declared
        new.bonus_left = self.bonus_left
        new.victims = self.victims.copy()
        new.mona_lisa_winner = self.mona_lisa_winner
        return new

    # --- game loop ---------------------------------------------------------------------------
    def current_player(self) -> int:
        return self.to_move

    def is_terminal(self) -> bool:
        return self.to_move == TERMINAL

    def is_chance(self) -> bool:
        return self.to_move == CHANCE

    def sample_chance(self, rng: random.Random) -> int:
        if self.phase == START:
            return rng.randrange(self.num_players)
        deck = self.deck
        r = int(rng.random() * self.deck_size)
        for kind in range(NUM_KINDS):
            r -= deck[kind]
            if r < 0:
                return kind
        raise AssertionError("empty deck at a flip")

    def chance_outcomes(self) -> list[tuple[int, float]]:
        if self.phase == START:
            p = 1.0 / self.num_players
            return [(s, p) for s in range(self.num_players)]
        total = self.deck_size
        return [(k, c / total) for k, c in enumerate(self.deck) if c]

    def legal_actions(self) -> list[int]:
        phase = self.phase
        if phase == START:
            return list(range(self.num_players))
        if phase == FLIP:
            return [k for k, c in enumerate(self.deck) if c]
        return self.player_actions()

    def player_actions(self) -> list[int]:
        return list(self._choices())

    def _choices(self) -> tuple[int, ...]:
        """The mover's legal actions (``player_actions``), as a tuple that may be shared: the
        random playout picks from it without copying a list."""
        phase = self.phase
        if phase == TURN:
            return TURN_ACTIONS if self._cards_left() else _PASS_ONLY
        if phase == CHOOSE:
            return _CONTINUE_OR_CONFIRM if self._cards_left() else _CONFIRM_ONLY
        if phase == STEAL:
            victim = self.collections[self.victims[0]]
            return tuple([steal(s) for s in range(4) if victim[s]])
        return ()

    def _cards_left(self) -> bool:
        return self.deck_size > 0 or sum(self.discard) > 0

    def apply(self, action: int) -> None:
        self.history.append(action)
        _APPLY[self.phase](self, action)

    def random_playout(self, rng: random.Random) -> list[float]:
        """Plays uniformly random legal actions to the end; returns ``returns()``.

        Exactly ``Engine.random_playout``'s loop (chance by ``sample_chance(rng)``, a player
        by ``legal[int(rng.random() * len(legal))]``, one draw even with one legal action):
        the same draws, actions, history and state (tests/test_gallery_rush_playout.py
        compares the two from every phase). What it saves is the plumbing, not the rules: the
        move is picked from ``_choices`` (shared tuples, no list per step) and the step goes
        to the phase's handler without the ``apply`` call. Uniform ISMCTS rollouts run here.
        """
        random_ = rng.random
        push = self.history.append
        while True:
            player = self.to_move
            if player == TERMINAL:
                return self.returns()
            if player == CHANCE:
                action = self.sample_chance(rng)
            else:
                legal = self._choices()
                action = legal[int(random_() * len(legal))]
            push(action)
            _APPLY[self.phase](self, action)

    # --- one handler per step, in game order (``_APPLY`` at the end of the module) -----------
    def _start_player(self, seat: int) -> None:
        """Chance names the start player; the first turn is theirs."""
        self.start = seat
        self.player = seat
        self.to_move = seat
        self.phase = TURN

    def _turn(self, action: int) -> None:
        """Explore (flip for the Keep), declare a call (flip to check it) or, with no card
        left anywhere, pass."""
        if action == EXPLORE:
            self._start_flip(FOR_EXPLORE)
        elif action == PASS:
            self._end_turn()
        else:
            self.declared = call_of(action)
            self._start_flip(FOR_DECLARE)

    def _flip(self, kind: int) -> None:
        """A card of ``kind`` leaves the deck; what it does depends on what it was flipped
        for (``_FLIPPED``: explore, declare, bonus)."""
        self.deck[kind] -= 1
        self.deck_size -= 1
        _FLIPPED[self.flip_for](self, kind)

    def _choose(self, action: int) -> None:
        """After a kept card: flip another, or bank the Keep and end the turn."""
        if action == CONTINUE:
            self._start_flip(FOR_EXPLORE)
        else:
            self._confirm_keep()
            self._end_turn()

    def _steal(self, action: int) -> None:
        """One painting from the next victim; the turn ends when every victim has paid."""
        slot = slot_of(action)
        victim = self.victims.pop(0)
        self.collections[victim][slot] -= 1
        self.collections[self.player][slot] += 1
        if not self.victims:
            self._check_goal(self.player)
            self._end_turn()

    def _over(self, action: int) -> None:
        raise ValueError("the game is over")

    # --- what a flipped card does ---------------------------------------------------------------
    def _explored(self, kind: int) -> None:
        """Exploring: the Mona Lisa banks the Keep with it; a forgery discards the Keep and
        the collection of its painter; a painter already in the Keep busts it; else it joins
        the Keep and the player chooses."""
        me = self.collections[self.player]
        if kind == MONA_LISA:
            me[ML_SLOT] += 1
            self._confirm_keep()
            self._after_card()
            self._end_turn()
        elif _FORGERY[kind]:
            self._discard_keep()
            self.discard[kind] += 1
            painter = forgery_painter(kind)
            self.discard[painter] += me[painter]
            me[painter] = 0
            self._after_card()
            self._end_turn()
        elif self.keep[kind]:
            self._discard_keep()
            self.discard[kind] += 1
            self._after_card()
            self._end_turn()
        else:
            self.keep[kind] = 1
            self.phase = CHOOSE
            self.to_move = self.player

    def _bonus_drawn(self, kind: int) -> None:
        """A bonus draw after a correct painter declaration: kept, unless a forgery."""
        if _FORGERY[kind]:
            self.discard[kind] += 1
        else:
            self.collections[self.player][ML_SLOT if kind == MONA_LISA else kind] += 1
        self._after_card()
        self.bonus_left -= 1
        self._next_bonus_or_end()

    def _start_flip(self, purpose: int) -> None:
        """Moves to a chance flip, refilling an empty deck from the discard first."""
        if not self.deck_size:
            self._reshuffle()
        self.flip_for = purpose
        self.phase = FLIP
        self.to_move = CHANCE

    def _reshuffle(self) -> None:
        for k in range(NUM_KINDS):
            self.deck[k] += self.discard[k]
            self.deck_size += self.discard[k]
            self.discard[k] = 0

    def _after_card(self) -> None:
        """The reshuffle trigger: all three forgeries in the discard."""
        discard = self.discard
        if discard[FORGERY_MONET] and discard[FORGERY_VAN_GOGH] and discard[FORGERY_VERMEER]:
            self._reshuffle()

    def _declared(self, kind: int) -> None:
        """Checking a declaration: the card flipped against the call."""
        me = self.collections[self.player]
        called = self.declared
        if called == CALL_MONA_LISA:
            if kind == MONA_LISA:
                self.mona_lisa_winner = self.player
                self.phase = OVER
                self.to_move = TERMINAL
                return
            self.discard[kind] += 1
        elif called == CALL_FORGERY:
            self.discard[kind] += 1
            if _FORGERY[kind]:
                self._after_card()
                self.victims = [
                    s for s in self._seats_after(self.player) if sum(self.collections[s])
                ]
                if self.victims:
                    self.phase = STEAL
                    self.to_move = self.player
                    return
                self._end_turn()
                return
        elif kind == called:
            me[kind] += 1
            self.bonus_left = BONUS_DRAWS
            self._after_card()
            self._next_bonus_or_end()
            return
        elif kind == MONA_LISA:
            me[ML_SLOT] += 1
            self._check_goal(self.player)
        elif _FORGERY[kind]:
            self.discard[kind] += 1
            self.discard[called] += me[called]
            me[called] = 0
        else:
            self.discard[kind] += 1
        self._after_card()
        self._end_turn()

    def _next_bonus_or_end(self) -> None:
        if self.bonus_left and self._cards_left():
            self._start_flip(FOR_BONUS)
        else:
            self.bonus_left = 0
            self._check_goal(self.player)
            self._end_turn()

    def _seats_after(self, seat: int) -> list[int]:
        n = self.num_players
        return [(seat + i) % n for i in range(1, n)]

    def _confirm_keep(self) -> None:
        me = self.collections[self.player]
        for painter in range(3):
            me[painter] += self.keep[painter]
            self.keep[painter] = 0
        self._check_goal(self.player)

    def _discard_keep(self) -> None:
        for painter in range(3):
            self.discard[painter] += self.keep[painter]
            self.keep[painter] = 0

    def _check_goal(self, seat: int) -> None:
        c = self.collections[seat]
        ml = c[ML_SLOT]
        if sum(c) >= COLLECTION_GOAL or max(c[0], c[1], c[2]) + ml >= PAINTER_GOAL:
            self.qualified[seat] = True

    def _end_turn(self) -> None:
        self.turns += 1
        self.declared = -1
        nxt = (self.player + 1) % self.num_players
        if (any(self.qualified) and nxt == self.start) or self.turns >= self.max_turns:
            self.phase = OVER
            self.to_move = TERMINAL
            return
        self.player = nxt
        self.to_move = nxt
        self.phase = TURN

    # --- results -----------------------------------------------------------------------------
    def winners(self) -> list[int]:
        """The seats sharing the win (only meaningful once the game is over)."""
        if self.mona_lisa_winner >= 0:
            return [self.mona_lisa_winner]
        pool = [s for s in range(self.num_players) if self.qualified[s]]
        if not pool:  # the turn cap ended the game: everybody is ranked
            pool = list(range(self.num_players))
        best = max(sum(self.collections[s]) for s in pool)
        return [s for s in pool if sum(self.collections[s]) == best]

    def returns(self) -> list[float]:
        n = self.num_players
        if self.phase != OVER:
            return [0.0] * n
        return shared_returns(n, self.winners())

    # --- what players know -------------------------------------------------------------------
    def narrate(self, action: int) -> Narration:
        """Everything in Gallery Rush is public: each step is one public event.

        The event also says what the step led to, as ``outcomes`` (a list of typed entries: a
        bust, a forgery penalty with the paintings lost, a correct declaration and its bonus
        draws, a discard, a reshuffle, who qualified, the end), read off the state after the
        step, so a client never re-derives the rules.
        """
        phase = self.phase
        if phase == START:
            return Narration({"type": "start_player", "seat": action})
        if phase == FLIP:
            event = {"type": "flip", "seat": self.player, "card": KIND_NAMES[action]}
        else:
            event = {**action_struct(self, action), "seat": self.player}
        after = self.copy()
        after.apply(action)
        outcomes = self._outcomes(action, after)
        if outcomes:
            event["outcomes"] = outcomes
        return Narration(event)

    def _outcomes(self, action: int, after: GalleryRushEngine) -> list[dict[str, Any]]:
        """What the step ``self -> after`` (by ``action``) did, in the order it happened."""
        out: list[dict[str, Any]] = []
        if self.phase == FLIP:
            out.extend(self._flip_outcomes(action, after))
            refilled = after.deck_size - (self.deck_size - 1)
        else:
            if self.phase == CHOOSE and action == CONFIRM:
                out.append({"type": "bank", "cards": self._keep_names()})
            refilled = after.deck_size - self.deck_size
        if refilled > 0:  # the discard went back into the deck
            out.append({"type": "reshuffle", "cards": refilled})
        out.extend(
            {"type": "qualify", "seat": s}
            for s in range(self.num_players)
            if after.qualified[s] and not self.qualified[s]
        )
        if after.phase == OVER:
            reason = after._end_reason()
            out.append({"type": "game_over", "reason": reason, "winners": after.winners()})
        return out

    def _flip_outcomes(self, kind: int, after: GalleryRushEngine) -> list[dict[str, Any]]:
        """The result of flipping ``kind`` for the pending purpose (explore, declare, bonus)."""
        seat = self.player
        lost = [b - a for b, a in zip(self.collections[seat], after.collections[seat], strict=True)]
        card = KIND_NAMES[kind]
        if self.flip_for == FOR_EXPLORE:
            if kind == MONA_LISA:
                return [{"type": "mona_lisa", "banked": self._keep_names()}]
            if is_forgery(kind):
                painter = forgery_painter(kind)
                return [
                    {
                        "type": "forgery_penalty",
                        "painter": PAINTER_NAMES[painter],
                        "lost": lost[painter],
                        "discarded": self._keep_names(),
                    }
                ]
            if self.keep[kind]:
                return [{"type": "bust", "discarded": [*self._keep_names(), card]}]
            return [{"type": "keep"}]
        if self.flip_for == FOR_BONUS:
            return [{"type": "bonus", "kept": not is_forgery(kind), "left": after.bonus_left}]
        called = self.declared
        call = CALL_NAMES[called]
        if after.mona_lisa_winner == seat:
            return [{"type": "correct", "call": call}]
        if called == CALL_FORGERY and is_forgery(kind):
            return [{"type": "correct", "call": call, "steal_from": list(after.victims)}]
        if called < CALL_FORGERY:  # a painter was named
            if kind == called:
                return [{"type": "correct", "call": call, "bonus_draws": after.bonus_left}]
            if kind == MONA_LISA:
                return [{"type": "mona_lisa", "banked": []}]
            if is_forgery(kind):
                penalty = {"type": "forgery_penalty", "painter": call, "lost": lost[called]}
                return [{**penalty, "discarded": []}]
        return [{"type": "discard", "card": card}]

    def _keep_names(self) -> list[str]:
        return [PAINTER_NAMES[p] for p in range(3) if self.keep[p]]

    def _end_reason(self) -> str:
        """Why a finished game ended: a Mona Lisa declared, the round played out, the cap."""
        if self.mona_lisa_winner >= 0:
            return "mona_lisa"
        if any(self.qualified) and (self.player + 1) % self.num_players == self.start:
            return "round_over"
        return "turn_cap"

    def info_key(self, player: int) -> Any:
        return (player, *self.history)

    def observation(self, player: int) -> dict[str, Any]:
        return {"seat": player, **self.describe()}

    def describe(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "phase": PHASE_NAMES[self.phase],
            "start_player": self.start if self.start >= 0 else None,
            "turns_played": self.turns,
            "deck": counts_to_names(self.deck),
            "deck_size": self.deck_size,
            "discard": counts_to_names(self.discard),
            "keep": [PAINTER_NAMES[p] for p in range(3) if self.keep[p]],
            "collections": [
                {SLOT_NAMES[s]: c[s] for s in range(4) if c[s]} for c in self.collections
            ],
            "qualified": [s for s in range(self.num_players) if self.qualified[s]],
        }
        if self.declared >= 0:
            out["declared"] = CALL_NAMES[self.declared]
        if self.bonus_left:
            out["bonus_draws_left"] = self.bonus_left
        if self.phase == STEAL:
            out["stealing_from"] = list(self.victims)
        if self.mona_lisa_winner >= 0:
            out["mona_lisa_winner"] = self.mona_lisa_winner
        if self.phase == OVER:
            out["winners"] = self.winners()
        return out


def action_struct(engine: GalleryRushEngine, action: int) -> dict[str, Any]:
    """The JSON form of a player action in ``engine``'s current phase."""
    if action == EXPLORE:
        return {"type": "explore"}
    if is_declare(action):
        return {"type": "declare", "call": CALL_NAMES[call_of(action)]}
    if action == CONTINUE:
        return {"type": "continue"}
    if action == CONFIRM:
        return {"type": "confirm"}
    if action == PASS:
        return {"type": "pass"}
    victim = engine.victims[0] if engine.victims else None
    return {"type": "steal", "from": victim, "card": SLOT_NAMES[slot_of(action)]}


# ``apply``'s handler per phase (START, TURN, FLIP, CHOOSE, STEAL, OVER) and ``_flip``'s per
# purpose (FOR_EXPLORE, FOR_DECLARE, FOR_BONUS).
_APPLY = (
    GalleryRushEngine._start_player,
    GalleryRushEngine._turn,
    GalleryRushEngine._flip,
    GalleryRushEngine._choose,
    GalleryRushEngine._steal,
    GalleryRushEngine._over,
)
assert len(_APPLY) == len(PHASE_NAMES)
_FLIPPED = (
    GalleryRushEngine._explored,
    GalleryRushEngine._declared,
    GalleryRushEngine._bonus_drawn,
)
# ``_choices``' shared answers.
_PASS_ONLY = (PASS,)
_CONTINUE_OR_CONFIRM = (CONTINUE, CONFIRM)
_CONFIRM_ONLY = (CONFIRM,)
# Whether a kind is a forgery, by kind (``games.paintings.is_forgery``, looked up per flip).
_FORGERY = tuple(is_forgery(kind) for kind in range(NUM_KINDS))

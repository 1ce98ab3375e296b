"""Gallery Rush heuristic: every choice from the exact odds of the visible deck.

Everything in Gallery Rush is face-up except the deck's order, and the deck's *composition* is
public (the 28 cards minus every card seen and not reshuffled). The heuristic therefore knows
the exact probability of each kind on the next flip, and plays the turn that maximises the
expected value of the Collection it ends with:

* **Explore / Continue / Confirm** is an exact expectimax over the rest of the turn (the Keep
  holds at most one card per painter, so a turn has at most four flips): continue while the
  expected value of flipping beats banking the Keep, counting busts, forgery penalties and the
  Mona Lisa's auto-confirm.
* **Declare a painter** is valued with the chance of that painter, the two bonus draws (exact
  over the deck after the first card), and the forgery risk to that painter's cards.
* **Declare forgery** is valued by the chance of a forgery times the best card stolen from each
  other non-empty Collection (what helps us most plus what hurts the victim).
* **Declare Mona Lisa** is the chance of the Mona Lisa times an instant win.

The value of a Collection depends on the situation:

* while nobody has qualified, it is progress towards a goal: minus the cards still missing for
  the nearer goal (7 cards, or 4 of one painter with the Mona Lisa as a joker), plus a bonus for
  qualifying and a little for size (qualifiers are ranked by size);
* once another seat has qualified (or the turn cap makes this our last turn), the game ends this
  round, so it is the chance of winning now: 1 for qualifying with more cards than the best
  qualifier, 1/2 for a tie, 0 otherwise, and the Mona Lisa declaration is worth a win.

All of this reads public parts of the engine only (in this game everything but the deck order
is public).
"""

from __future__ import annotations

import functools
import itertools
from typing import Any

from bots.heuristics.base import GameKnowledge, race_returns
from games.gallery_rush import actions as codec
from games.gallery_rush.engine import (
    BONUS_DRAWS,
    CHOOSE,
    COLLECTION_GOAL,
    CONFIRM,
    CONTINUE,
    DECLARE_FORGERY,
    DECLARE_MONA_LISA,
    EXPLORE,
    PAINTER_GOAL,
    PASS,
    STEAL,
    TURN,
    GalleryRushEngine,
)
from games.paintings import FULL_DECK, KIND_NAMES

# Values in the race are in units of "turns": a Collection is worth minus the expected number of
# turns it still needs to qualify (``turns_to_qualify``). Once qualified, size breaks ties.
SIZE_WEIGHT = 0.05
INSTANT_WIN = 1.0  # a Mona Lisa win: better than merely qualifying with a typical Collection
HARM_WEIGHT = 0.5  # how much hurting a victim is worth next to helping ourselves
EVAL_SHARPNESS = 0.8  # win-chance softmax over race values (expected turns) in ``evaluate``

Collection = tuple[int, int, int, int]
Deck = tuple[int, ...]


def goal_distance(c: Collection) -> int:
    """Cards still missing for the nearer goal (0 once qualified)."""
    size = c[0] + c[1] + c[2] + c[3]
    best = max(c[0], c[1], c[2]) + c[3]
    return max(0, min(COLLECTION_GOAL - size, PAINTER_GOAL - best))


def race_value(c: Collection) -> float:
    """Minus the expected turns to qualify from ``c``; qualified: a little per card.

    Memoised (a Collection's race value never changes once the turns are solved)."""
    known = _RACE_VALUES.get(c)
    if known is None:
        if goal_distance(c) == 0:
            known = SIZE_WEIGHT * (c[0] + c[1] + c[2] + c[3])
        else:
            known = -turns_to_qualify()[c]
        _RACE_VALUES[c] = known  # at most about a thousand Collections (28 cards)
    return known


_RACE_VALUES: dict[Collection, float] = {}


class _TurnsTable:
    """The ``Situation`` interface over a table of expected turns (for the solver)."""

    __slots__ = ("table", "target", "win")

    def __init__(self, table: dict[Collection, float]) -> None:
        self.table = table
        self.target = -1
        self.win = 0.0

    def value(self, c: Collection) -> float:
        found = self.table.get(c)
        return 0.0 if found is None else -found


def turns_to_qualify() -> dict[Collection, float]:
    """Expected turns to qualify alone, from every unqualified Collection, under best play."""
    return _solve_turns()[0]


def turn_policy() -> dict[Collection, int]:
    """The solved turn action (Explore or a declaration) for every unqualified Collection."""
    return _solve_turns()[1]


@functools.cache
def _solve_turns() -> tuple[dict[Collection, float], dict[Collection, int]]:
    """Expected turns to qualify alone (and the best turn action), under best play.

    A one-player Markov decision process with the full deck's odds (the deck's composition
    drifts during a game; the current turn is always valued with the exact visible deck, and
    this table only values where the turn leaves us). Each turn is Explore (with the best
    stop rule), a painter declaration, a forgery declaration (stealing one card of the painter
    we hold most of) or a Mona Lisa declaration (finishing like qualifying). Solved by
    Gauss-Seidel value iteration to 1e-6; about 80 unqualified states, computed once.
    """
    states = [
        c for c in itertools.product(range(4), range(4), range(4), range(2)) if goal_distance(c) > 0
    ]
    states.sort(key=lambda c: -sum(c))  # bigger Collections first: their values feed the rest
    table = dict.fromkeys(states, 4.0)
    sit = _TurnsTable(table)
    deck = tuple(FULL_DECK)
    size = sum(deck)
    p_forgery = (deck[3] + deck[4] + deck[5]) / size
    p_mona = deck[6] / size
    policy: dict[Collection, int] = {}
    for _ in range(500):
        delta = 0.0
        for c in states:
            odds = TurnOdds(sit, c)  # type: ignore[arg-type]
            stay = sit.value(c)
            steal = max(range(3), key=lambda p: c[p])
            options = [
                (odds.flip_value(0, deck), EXPLORE),
                *((odds.declare_painter(p, deck), codec.declare(p)) for p in range(3)),
                (p_forgery * sit.value(_add(c, steal)) + (1 - p_forgery) * stay, DECLARE_FORGERY),
                ((1 - p_mona) * stay, DECLARE_MONA_LISA),
            ]
            best, policy[c] = max(options)
            new = 1.0 - best
            delta = max(delta, abs(new - table[c]))
            table[c] = new
        if delta < 1e-6:
            break
    return dict(table), policy


class _Race:
    """The ``Situation`` interface of the race (nobody qualified yet): ``race_value``."""

    __slots__ = ()
    target = -1
    win = INSTANT_WIN

    def value(self, c: Collection) -> float:
        return race_value(c)


_RACE = _Race()


# ``Situation.value`` when the game is ending: a table by Collection per (target, must
# qualify); at most about a thousand Collections (28 cards) in each of a few dozen tables.
_ENDING_VALUES: dict[tuple[int, bool], dict[Collection, float]] = {}


class Situation:
    """How a seat values Collections at one decision: ``value(c)`` and an instant win."""

    __slots__ = ("ending", "must_qualify", "target", "win")

    def __init__(self, engine: GalleryRushEngine, seat: int) -> None:
        n = engine.num_players
        others = [s for s in range(n) if s != seat]
        qualified = [s for s in others if engine.qualified[s]]
        last_turn = engine.turns + 1 >= engine.max_turns
        if qualified or last_turn:
            # The game ends with this round (or this turn): only winning now counts.
            pool = qualified if qualified else others
            self.target = max(sum(engine.collections[s]) for s in pool)
            self.must_qualify = bool(qualified)
            self.win = 1.0
            self.ending: dict[Collection, float] | None = _ENDING_VALUES.setdefault(
                (self.target, self.must_qualify), {}
            )
        else:
            self.target = -1
            self.must_qualify = False
            self.win = INSTANT_WIN
            self.ending = None

    def value(self, c: Collection) -> float:
        ending = self.ending
        if ending is None:
            return race_value(c)
        known = ending.get(c)
        if known is None:
            known = ending[c] = self._ending_value(c)
        return known

    def _ending_value(self, c: Collection) -> float:
        """``value`` when the game ends this round (memoised by ``value``)."""
        size = c[0] + c[1] + c[2] + c[3]
        # A hair of progress breaks ties between options that cannot win now.
        tiebreak = 0.001 * race_value(c)
        if self.must_qualify and goal_distance(c) > 0:
            return tiebreak
        if size > self.target:
            return 1.0 + tiebreak
        if size == self.target:
            return 0.5 + tiebreak
        return tiebreak


def flip_deck(engine: GalleryRushEngine) -> Deck:
    """The composition the next flip comes from (an empty deck is refilled from the discard)."""
    if engine.deck_size:
        return tuple(engine.deck)
    return tuple(d + x for d, x in zip(engine.deck, engine.discard, strict=True))


def _add(c: Collection, slot: int) -> Collection:
    out = list(c)
    out[slot] += 1
    return (out[0], out[1], out[2], out[3])


def _without_painter(c: Collection, painter: int) -> Collection:
    out = list(c)
    out[painter] = 0
    return (out[0], out[1], out[2], out[3])


def _with_keep(c: Collection, keep: int) -> Collection:
    return (c[0] + (keep & 1), c[1] + (keep >> 1 & 1), c[2] + (keep >> 2 & 1), c[3])


# A deck as one integer: four bits per kind, kind 0 lowest (no kind has more than 8 cards:
# ``FULL_DECK``, and a refill only returns cards of the 28), and the bits it takes.
DECK_BITS = 4 * len(FULL_DECK)


def deck_code(deck: Deck) -> int:
    """``deck`` (counts by kind) as one integer, four bits per kind."""
    code = 0
    for kind in range(7):
        code |= deck[kind] << 4 * kind
    return code


def _minus(deck: Deck, kind: int) -> Deck:
    out = list(deck)
    out[kind] -= 1
    return tuple(out)


class TurnOdds:
    """Exact expected values of one seat's options this turn, for a given ``Situation``.

    The values a flip can land on that do not depend on the deck (a bust, a forgery's loss,
    the Keep banked, the Mona Lisa banking it) are looked up once per instance, not at every
    node of the expectimax: the same floats, summed in the same order."""

    __slots__ = ("banked", "c", "forged", "memo", "mona", "sit", "unchanged")

    def __init__(self, situation: Situation, collection: Collection) -> None:
        self.sit = situation
        self.c = collection
        self.memo: dict[int, float] = {}  # by Keep and deck code (``_best``)
        value = situation.value
        # The Collection as it is (a bust, a declaration that fails) and after a forgery of
        # each painter (that painter's cards lost).
        self.unchanged = value(collection)
        self.forged = (
            value(_without_painter(collection, 0)),
            value(_without_painter(collection, 1)),
            value(_without_painter(collection, 2)),
        )
        # Per Keep (a bit mask of painters): it banked, and it banked with the Mona Lisa.
        self.banked: list[float | None] = [None] * 8
        self.mona: list[float | None] = [None] * 8

    def banked_value(self, keep: int) -> float:
        """The value of banking ``keep`` (Confirm)."""
        known = self.banked[keep]
        if known is None:
            known = self.banked[keep] = self.sit.value(_with_keep(self.c, keep))
        return known

    def mona_value(self, keep: int) -> float:
        """The value of the Mona Lisa flipped with ``keep``: it banks the Keep with itself."""
        known = self.mona[keep]
        if known is None:
            known = self.mona[keep] = self.sit.value(_add(_with_keep(self.c, keep), 3))
        return known

    def best_with_keep(self, keep: int, deck: Deck) -> float:
        """Value of the better of Confirm and Continue with ``keep`` in the Keep."""
        return self._best(keep, deck_code(deck), sum(deck))

    def flip_value(self, keep: int, deck: Deck) -> float:
        """Expected value of flipping once more (Explore or Continue) with ``keep``."""
        return self._flip(keep, deck_code(deck), sum(deck))

    # The expectimax itself runs on the deck as one integer (``deck_code``: four bits a kind),
    # so a flip's deck and its memo key are integer arithmetic, not a tuple built per node.
    def _best(self, keep: int, code: int, size: int) -> float:
        """``best_with_keep`` on the deck ``code`` of ``size`` cards (memoised)."""
        key = keep << DECK_BITS | code
        found = self.memo.get(key)
        if found is None:
            found = max(self.banked_value(keep), self._flip(keep, code, size))
            self.memo[key] = found
        return found

    def _flip(self, keep: int, code: int, size: int) -> float:
        """``flip_value`` on the deck ``code`` of ``size`` cards."""
        if not size:
            return float("-inf")
        total = 0.0
        for kind in range(7):
            count = code >> 4 * kind & 15
            if not count:
                continue
            if kind < 3:
                if keep >> kind & 1:
                    v = self.unchanged  # bust: the Keep is lost
                else:
                    v = self._best(keep | 1 << kind, code - (1 << 4 * kind), size - 1)
            elif kind < 6:
                v = self.forged[kind - 3]
            else:
                v = self.mona_value(keep)  # the Mona Lisa confirms the Keep
            total += count * v
        return total / size

    def declare_painter(self, painter: int, deck: Deck) -> float:
        gains, p_lose = declare_outcomes(painter, deck)
        value = self.sit.value
        c = self.c
        total = p_lose * self.forged[painter] if p_lose else 0.0
        for p, d in gains:
            total += p * value((c[0] + d[0], c[1] + d[1], c[2] + d[2], c[3] + d[3]))
        return total

    def declare_mona_lisa(self, deck: Deck) -> float:
        p = deck[6] / sum(deck)
        return p * self.sit.win + (1.0 - p) * self.unchanged

    def declare_forgery(self, deck: Deck, victims: list[Collection]) -> float:
        p = (deck[3] + deck[4] + deck[5]) / sum(deck)
        gained = self.c
        harm = 0.0
        for victim in victims:
            slot, their_loss = best_steal(self.sit, gained, victim)
            gained = _add(gained, slot)
            harm += their_loss
        success = self.sit.value(gained)
        if self.sit.target < 0:
            success += HARM_WEIGHT * harm
        return p * success + (1.0 - p) * self.unchanged


# Where a bonus card goes in a Collection: its painter, the Mona Lisa's slot, or nowhere (a
# forgery drawn as a bonus is discarded).
_BONUS_SLOT = (0, 1, 2, -1, -1, -1, 3)


@functools.lru_cache(maxsize=1 << 15)
def declare_outcomes(
    painter: int, deck: Deck
) -> tuple[tuple[tuple[float, Collection], ...], float]:
    """What declaring ``painter`` adds to a Collection: ``((prob, added cards), ...)`` and the
    probability of a forgery (which empties that painter instead).

    Exact over the first card and both bonus draws (a forgery drawn as a bonus is discarded
    without penalty; the bonus draws stop if the deck runs out).
    """
    size = sum(deck)
    gains: dict[Collection, float] = {}
    p_lose = 0.0
    for kind, count in enumerate(deck):
        if not count:
            continue
        p = count / size
        if kind == painter:
            first = [0, 0, 0, 0]
            first[painter] = 1
            _bonus_draws(gains, first, _minus(deck, painter), BONUS_DRAWS, p)
        elif kind < 3:
            _add_gain(gains, (0, 0, 0, 0), p)
        elif kind < 6:
            p_lose += p
        else:
            _add_gain(gains, (0, 0, 0, 1), p)
    return tuple((p, d) for d, p in gains.items()), p_lose


# ``declare_outcomes``' helpers live at module level: as closures (the recursive one holding
# itself) every uncached call left a reference cycle for the garbage collector to find, which
# made its collections in a search more frequent.
def _add_gain(gains: dict[Collection, float], d: Collection, p: float) -> None:
    gains[d] = gains.get(d, 0.0) + p


def _bonus_draws(
    gains: dict[Collection, float], d: list[int], rest: Deck, left: int, p: float
) -> None:
    """Adds to ``gains`` the bonus cards ``d`` so far grows into over ``left`` more draws."""
    n = sum(rest)
    if not left or not n:
        _add_gain(gains, (d[0], d[1], d[2], d[3]), p)
        return
    for kind, count in enumerate(rest):
        if count:
            slot = _BONUS_SLOT[kind]
            if slot >= 0:
                d[slot] += 1
            if left == 1 or n == 1:  # the last draw, or the deck runs out with it
                _add_gain(gains, (d[0], d[1], d[2], d[3]), p * count / n)
            else:
                _bonus_draws(gains, d, _minus(rest, kind), left - 1, p * count / n)
            if slot >= 0:
                d[slot] -= 1


def steal_loss(victim: Collection, slot: int) -> float:
    """How much ``victim``'s race value drops when it loses a card of ``slot``."""
    taken = list(victim)
    taken[slot] -= 1
    return race_value(victim) - race_value((taken[0], taken[1], taken[2], taken[3]))


def steal_scores(sit: Situation, mine: Collection, victim: Collection) -> list[tuple[int, float]]:
    """``(slot, score)`` for every card ``victim`` has: our gain plus the victim's loss."""
    return [
        (slot, sit.value(_add(mine, slot)) + HARM_WEIGHT * steal_loss(victim, slot))
        for slot in range(4)
        if victim[slot]
    ]


def best_steal(sit: Situation, mine: Collection, victim: Collection) -> tuple[int, float]:
    """The slot to steal from ``victim`` and how much the victim's race value drops."""
    slot = max(steal_scores(sit, mine, victim), key=lambda x: x[1])[0]
    return slot, steal_loss(victim, slot)


def _collection(engine: GalleryRushEngine, seat: int) -> Collection:
    c = engine.collections[seat]
    return (c[0], c[1], c[2], c[3])


# ``rate``'s answers by everything it reads (see ``_rating_key``): the search rates the same
# decisions again and again (the prior at every expansion, the ending turns of rollouts), and
# a turn's exact expectimax is the bulk of a Gallery Rush hint. Emptied when it grows too big.
_RATINGS: dict[tuple, tuple[tuple[int, float], ...]] = {}
_RATINGS_LIMIT = 1 << 16


def _rating_key(engine: GalleryRushEngine, sit: Situation, mine: Collection) -> tuple:
    """All that ``rate`` reads at the mover's decision, as one key: the phase, the Situation
    (its target and must-qualify fix it), the mover's Collection, the flip deck (which also
    says whether any card is left: Pass only, no Continue), and the phase's own part: the
    other seats' non-empty Collections in seat order, the Keep, or the steal's victim."""
    phase = engine.phase
    seat = engine.player
    head = (phase, sit.target, sit.must_qualify, mine)
    if phase == TURN:
        n = engine.num_players
        victims = tuple(
            _collection(engine, (seat + i) % n)
            for i in range(1, n)
            if sum(engine.collections[(seat + i) % n])
        )
        return (*head, flip_deck(engine), victims)
    if phase == CHOOSE:
        keep = engine.keep[0] | engine.keep[1] << 1 | engine.keep[2] << 2
        return (*head, flip_deck(engine), keep)
    if phase == STEAL:
        return (*head, _collection(engine, engine.victims[0]))
    raise ValueError(f"no decision in phase {phase}")


# ``playout``'s Continue-or-Confirm figures by (Collection, Keep mask), none of which depends on
# the deck: the race value of banking the Keep, whether that qualifies, and the race value after
# each kind flipped next (filled as kinds come up: one the deck cannot hold may not be valued).
# At most 8 Keeps for each of about 1,500 Collections of the 28 cards.
_CHOICE_VALUES: dict[tuple[Collection, int], list] = {}


def _choice_values(c: Collection, keep: int) -> list:
    """``[banked value, banked qualifies, value after kind 0, ..., after kind 6]`` (the kinds'
    values ``None`` until ``_flipped_value`` fills them)."""
    known = _CHOICE_VALUES.get((c, keep))
    if known is None:
        banked = _with_keep(c, keep)
        known = [race_value(banked), goal_distance(banked) == 0, *([None] * 7)]
        _CHOICE_VALUES[(c, keep)] = known
    return known


def _flipped_value(c: Collection, keep: int, kind: int) -> float:
    """The race value after flipping ``kind`` with ``keep`` then banking what stands: a bust,
    the painter joining the Keep, a forgery's loss, or the Mona Lisa banking the Keep."""
    if kind < 3:
        if keep >> kind & 1:
            return race_value(c)
        return race_value(_add(_with_keep(c, keep), kind))
    if kind < 6:
        return race_value(_without_painter(c, kind - 3))
    return race_value(_add(_with_keep(c, keep), 3))


class GalleryRushKnowledge(GameKnowledge):
    game = "gallery_rush"
    default_rollout = "heuristic"  # ``playout``: the solved turn policy, one flip of lookahead

    def rate(self, engine: GalleryRushEngine) -> list[tuple[int, float]]:  # type: ignore[override]
        """The mover's ratings, memoised by ``_rating_key`` (``_rate`` computes them)."""
        sit = Situation(engine, engine.player)
        mine = _collection(engine, engine.player)
        key = _rating_key(engine, sit, mine)
        known = _RATINGS.get(key)
        if known is None:
            if len(_RATINGS) >= _RATINGS_LIMIT:
                _RATINGS.clear()
            known = _RATINGS[key] = tuple(self._rate(engine, sit, mine))
        return list(known)

    def _rate(
        self, engine: GalleryRushEngine, sit: Situation, mine: Collection
    ) -> list[tuple[int, float]]:
        """``rate`` computed afresh."""
        seat = engine.player
        phase = engine.phase
        if phase == TURN:
            legal = engine.player_actions()
            if legal == [PASS]:
                return [(PASS, sit.value(mine))]
            deck = flip_deck(engine)
            n = engine.num_players
            victims = [
                _collection(engine, (seat + i) % n)
                for i in range(1, n)
                if sum(engine.collections[(seat + i) % n])
            ]
            odds = TurnOdds(sit, mine)
            return [
                (EXPLORE, odds.flip_value(0, deck)),
                *((codec.declare(p), odds.declare_painter(p, deck)) for p in range(3)),
                (DECLARE_FORGERY, odds.declare_forgery(deck, victims)),
                (DECLARE_MONA_LISA, odds.declare_mona_lisa(deck)),
            ]
        if phase == CHOOSE:
            keep = engine.keep[0] | engine.keep[1] << 1 | engine.keep[2] << 2
            rated = [(CONFIRM, sit.value(_with_keep(mine, keep)))]
            if CONTINUE in engine.player_actions():
                odds = TurnOdds(sit, mine)
                rated.append((CONTINUE, odds.flip_value(keep, flip_deck(engine))))
            return rated
        if phase == STEAL:
            victim = _collection(engine, engine.victims[0])
            return [(codec.steal(slot), score) for slot, score in steal_scores(sit, mine, victim)]
        raise ValueError(f"no decision in phase {phase}")

    def playout(self, engine: GalleryRushEngine, rng: Any) -> int:  # type: ignore[override]
        """``rate``'s reasoning made cheap, for rollouts.

        The turn's action is the solved one for our Collection (with the Mona Lisa declared
        when the deck is down to three cards); Continue/Confirm looks one flip ahead with the
        visible deck and the expected-turns values; steals take the best card. When the game is
        ending (another seat has qualified) it defers to ``rate``: few decisions, all decisive.
        """
        seat = engine.player
        phase = engine.phase
        ending = phase == STEAL
        qualified = engine.qualified
        for s in range(engine.num_players):
            if qualified[s] and s != seat:
                ending = True
                break
        if ending:
            return self.choose(engine, rng)
        deck = engine.deck
        size = engine.deck_size
        if not size:
            deck = flip_deck(engine)
            size = sum(deck)
        c = _collection(engine, seat)
        if phase == TURN:
            if not size:
                return PASS
            if deck[6] and size <= 3:
                return DECLARE_MONA_LISA
            return turn_policy().get(c, EXPLORE)
        # CHOOSE: bank the Keep, or flip once more and bank whatever is left standing.
        keep = engine.keep
        mask = keep[0] | keep[1] << 1 | keep[2] << 2
        known = _choice_values(c, mask)
        confirm = known[0]
        if not size or known[1]:
            return CONFIRM
        total = 0.0
        for kind in range(7):
            count = deck[kind]
            if not count:
                continue
            v = known[kind + 2]
            if v is None:
                v = known[kind + 2] = _flipped_value(c, mask, kind)
            total += count * v
        return CONTINUE if total / size > confirm else CONFIRM

    def evaluate(self, engine: GalleryRushEngine) -> list[float]:  # type: ignore[override]
        """Win chances from each seat's race value (a softmax), turned into expected returns.

        A Keep at stake (the mover deciding whether to continue) is valued by the exact
        expectimax of the rest of the turn, as ``rate`` values it.
        """
        n = engine.num_players
        strength = [race_value(_collection(engine, s)) for s in range(n)]
        if engine.phase == CHOOSE:
            seat = engine.player
            mine = _collection(engine, seat)
            keep = engine.keep[0] | engine.keep[1] << 1 | engine.keep[2] << 2
            odds = TurnOdds(_RACE, mine)  # type: ignore[arg-type]
            strength[seat] = odds.best_with_keep(keep, flip_deck(engine))
        return race_returns(strength, EVAL_SHARPNESS)

    def explain(self, engine: GalleryRushEngine) -> dict[str, Any]:  # type: ignore[override]
        deck = flip_deck(engine)
        size = sum(deck)
        if not size:
            return {}
        odds = {KIND_NAMES[k]: round(count / size, 4) for k, count in enumerate(deck) if count}
        return {"next_flip_odds": odds}

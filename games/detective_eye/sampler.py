"""Fills the hidden part of a Detective Eye information set (reads the JSON only).

Why a game-specific sampler: a hidden deal constrains everything after it (a placement must
come from the placer's hand, a flip reveals a card that was placed, a discard needs the card in
hand), so the generic step-by-step filler would pick deals that later reveals contradict.

The known structure, for the seat ``p`` whose information set this is:

* ``D_s`` is seat s's dealt hand, ``π_s`` what it passed to s+1, and ``H_s = D_s - π_s + π_{s-1}``
  its hand after the draft. ``p`` knows ``D_p``, ``π_p`` and ``π_{p-1}`` (received), hence
  ``H_p``. Passes go round the circle, so ``Σ D_s = Σ H_s``: the deck only limits the ``H_s``.
* Every other ``H_s`` has a known lower bound ``M_s`` per painter: the cards ``p`` passed to it
  (``s = p+1``), every discard it made, and for each round the cards revealed from its row plus
  the discards it made before that round. Nothing else constrains ``H_s``.
* Any unknown pass ``π_s`` only needs to lie in the receiver's hand ``H_{s+1}``; then
  ``D_s = H_s + π_s - π_{s-1}`` is a legal deal.

So a world is drawn by giving every seat its known cards ``M_s``, shuffling the unseen cards
(the deck minus ``H_p`` minus all the ``M_s``, undealt cards included) into the free slots,
drawing the unknown passes from the receivers' hands, and dealing every unrevealed face-down
card of a round from what its owner held then. The action history is rebuilt from the events,
and ``sample_engine`` replays it and checks the information set comes back identical.
Hidden commits are drawn uniformly; the ``prior`` hook is not used by this game yet.
"""

from __future__ import annotations

import random
from typing import Any

from games.core.definition import InvalidInfoset
from games.detective_eye.actions import Config, composition_index
from games.detective_eye.engine import DetectiveEyeEngine

Cards = list[int]  # counts per painter


def _fail(i: int, event: Any, why: str) -> InvalidInfoset:
    return InvalidInfoset(f"events[{i}] {event!r} is not possible here: {why}")


class _Reader:
    """Typed field access on the events and private entries, with errors naming the event."""

    def __init__(self, params: dict[str, Any], engine: DetectiveEyeEngine) -> None:
        self.n = params["players"]
        self.painters = engine.painters
        self.by_name = {name: c for c, name in enumerate(engine.names)}

    def seat(self, i: int, ev: dict, key: str) -> int:
        value = ev.get(key)
        if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value < self.n:
            raise _fail(i, ev, f"field '{key}' must be a seat")
        return value

    def number(self, i: int, ev: dict, key: str, low: int, high: int) -> int:
        value = ev.get(key)
        if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
            raise _fail(i, ev, f"field '{key}' must be a whole number {low}..{high}")
        return value

    def painter(self, i: int, ev: dict, key: str) -> int:
        value = ev.get(key)
        if not isinstance(value, str) or value not in self.by_name:  # [] or {} are unhashable
            raise _fail(i, ev, f"field '{key}' must be one of {list(self.by_name)}")
        return self.by_name[value]

    def counts(self, i: int, entry: Any, key: str, total: int) -> Cards:
        value = entry.get(key) if isinstance(entry, dict) else None
        if not isinstance(value, dict):
            raise InvalidInfoset(f"private entry at events[{i}] needs '{key}' (cards by painter)")
        out = [0] * self.painters
        for name, k in value.items():
            if name not in self.by_name or isinstance(k, bool) or not isinstance(k, int) or k < 1:
                raise InvalidInfoset(f"private entry at events[{i}] has a bad '{key}': {value}")
            out[self.by_name[name]] = k
        if sum(out) != total:
            raise InvalidInfoset(f"private entry at events[{i}] '{key}' must hold {total} cards")
        return out


def _cards_list(counts: Cards) -> list[int]:
    return [c for c, k in enumerate(counts) for _ in range(k)]


def _draw(rng: random.Random, counts: Cards, k: int) -> Cards:
    """``k`` physical cards drawn uniformly from ``counts``, as counts."""
    cards = _cards_list(counts)
    out = [0] * len(counts)
    for c in rng.sample(cards, k):
        out[c] += 1
    return out


def sample_history(
    params: dict[str, Any], infoset: dict[str, Any], rng: random.Random
) -> list[int]:
    """A full action history consistent with ``infoset`` (validated afterwards by replay)."""
    proto = DetectiveEyeEngine(Config.from_params(params))
    read = _Reader(params, proto)
    n, painters, hand_size, draft = read.n, proto.painters, proto.hand_size, proto.draft_size
    me = infoset["seat"]
    events = infoset["events"]
    private = {e["at"]: e for e in infoset["private"]}
    deck = [proto.cards_per_painter] * painters

    # --- pass 1: what the events say --------------------------------------------------------
    dealt: dict[int, Cards] = {}  # known deals (mine)
    passed: dict[int, Cards] = {}  # known passes (mine, and the one I received)
    deals_seen: list[int] = []
    passes_seen: list[int] = []
    my_hand: Cards | None = None  # H_p once the draft is over
    need = [[0] * painters for _ in range(n)]  # M_s
    discarded = [[0] * painters for _ in range(n)]  # by seat, so far
    revealed: dict[tuple[int, int], dict[int, int]] = {}  # (round, owner) -> {position: painter}
    row_len: dict[tuple[int, int], int] = {}  # (round, seat) -> placements
    disc_before: dict[tuple[int, int], Cards] = {}  # (round, seat) -> discards before round
    mine_placed: dict[tuple[int, int, int], int] = {}
    plan: list[tuple] = []  # per event: what to emit
    rnd = 0
    draft_over = False

    def check_room(i: int, ev: Any) -> None:
        """The known cards of every seat must fit its hand and the deck together."""
        total = list(my_hand)  # type: ignore[arg-type]
        for s in range(n):
            if s == me:
                continue
            if sum(need[s]) > hand_size:
                raise _fail(i, ev, f"seat {s} would hold more than {hand_size} known cards")
            for c in range(painters):
                total[c] += need[s][c]
        for c in range(painters):
            if total[c] > deck[c]:
                raise _fail(i, ev, f"more {proto.names[c]} cards are known than exist")

    for i, ev in enumerate(events):
        kind = ev.get("type")
        mine = private.get(i)
        if kind == "deal":
            s = read.seat(i, ev, "seat")
            deals_seen.append(s)
            if s == me:
                if mine is None:
                    raise _fail(i, ev, f"seat {me} must see its own deal (private entry)")
                dealt[me] = read.counts(i, mine, "cards", hand_size)
            plan.append(("deal", s))
            if len(deals_seen) == n and not draft:
                draft_over = True
        elif kind == "pass_cards":
            s = read.seat(i, ev, "seat")
            passes_seen.append(s)
            if s == me:
                if mine is None:
                    raise _fail(i, ev, f"seat {me} must see its own pass (private entry)")
                passed[me] = read.counts(i, mine, "passed", draft)
            if len(passes_seen) == n:
                if mine is None:
                    raise _fail(i, ev, f"seat {me} must learn the cards it received")
                passed[(me - 1) % n] = read.counts(i, mine, "received", draft)
                draft_over = True
            plan.append(("pass", s))
        elif kind == "start_player":
            plan.append(("start", read.seat(i, ev, "seat")))
        elif kind == "place":
            s = read.seat(i, ev, "seat")
            pos = read.number(i, ev, "position", 0, hand_size - 1)
            row_len[(rnd, s)] = pos + 1
            if (rnd, s) not in disc_before:
                disc_before[(rnd, s)] = list(discarded[s])
            if s == me:
                if mine is None:
                    raise _fail(i, ev, f"seat {me} must see its own placement")
                card = read.painter(i, mine, "card")
                mine_placed[(rnd, s, pos)] = card
            plan.append(("place", rnd, s, pos))
        elif kind in ("declare", "raise"):
            painter = read.painter(i, ev, "painter")
            quantity = read.number(i, ev, "quantity", 1, proto.max_quantity)
            plan.append(("action", proto.ids.bid(painter, quantity)))
        elif kind == "pass":
            plan.append(("action", proto.ids.pass_action))
        elif kind == "flip":
            owner = read.seat(i, ev, "owner")
            pos = read.number(i, ev, "position", 0, hand_size - 1)
            card = read.painter(i, ev, "card")
            if not draft_over or my_hand is None:
                raise _fail(i, ev, "no challenge can happen before the draft is over")
            row = revealed.setdefault((rnd, owner), {})
            if pos in row:
                raise _fail(i, ev, "that card was already flipped")
            row[pos] = card
            if owner != me:
                before = disc_before.get((rnd, owner), discarded[owner])
                shown = sum(1 for v in row.values() if v == card)
                need[owner][card] = max(need[owner][card], before[card] + shown)
                check_room(i, ev)
            plan.append(("action", proto.ids.flip(owner, pos)))
            if "outcome" in ev:
                rnd += 1
        elif kind == "discard":
            s = read.seat(i, ev, "seat")
            card = read.painter(i, ev, "card")
            discarded[s][card] += 1
            if s != me and my_hand is not None:
                need[s][card] = max(need[s][card], discarded[s][card])
                check_room(i, ev)
            plan.append(("action", painters + card))
        else:
            raise _fail(i, ev, "unknown event type")
        if draft_over and my_hand is None and me in dealt:
            mine_given = passed.get(me, [0] * painters)
            got = passed.get((me - 1) % n, [0] * painters)
            my_hand = [dealt[me][c] - mine_given[c] + got[c] for c in range(painters)]
            if min(my_hand) < 0:
                raise _fail(i, ev, f"seat {me} passed cards it did not hold")
            if n > 1 and draft:
                nxt = (me + 1) % n
                for c in range(painters):
                    need[nxt][c] = max(need[nxt][c], mine_given[c])
            check_room(i, ev)

    # --- pass 2: draw the unknown hands -----------------------------------------------------
    if my_hand is not None:
        hands = _sample_after_draft(rng, n, me, painters, hand_size, deck, my_hand, need)
        gave = dict(passed)
        for s in range(n):
            if s not in gave:  # s passed to s+1: the cards lie in s+1's hand
                gave[s] = _draw(rng, hands[(s + 1) % n], draft) if draft else [0] * painters
        deals = {
            s: [hands[s][c] + gave[s][c] - gave[(s - 1) % n][c] for c in range(painters)]
            for s in range(n)
        }
    else:
        deals, gave = _sample_before_draft(
            rng, n, me, painters, hand_size, draft, deck, dealt, passed
        )
        hands = None

    # --- pass 3: the face-down cards of every round -----------------------------------------
    placed: dict[tuple[int, int, int], int] = dict(mine_placed)
    if hands is not None:
        for (r, s), length in row_len.items():
            if s == me:
                continue
            shown = revealed.get((r, s), {})
            avail = [hands[s][c] - disc_before[(r, s)][c] for c in range(painters)]
            for card in shown.values():
                avail[card] -= 1
            if min(avail) < 0:
                raise InvalidInfoset(f"events: seat {s} cannot have shown those cards in round {r}")
            hidden = [pos for pos in range(length) if pos not in shown]
            pool = _cards_list(avail)
            if len(pool) < len(hidden):
                raise InvalidInfoset(f"events: seat {s} placed more cards than it held")
            draws = rng.sample(pool, len(hidden))
            for pos, card in zip(hidden, draws, strict=True):
                placed[(r, s, pos)] = card
            for pos, card in shown.items():
                placed[(r, s, pos)] = card

    # --- pass 4: the action history ---------------------------------------------------------
    deal_ids = composition_index(hand_size, painters, proto.cards_per_painter)
    history: list[int] = []
    for i, step in enumerate(plan):
        tag = step[0]
        if tag == "action":
            history.append(step[1])
        elif tag == "deal":
            comp = tuple(deals[step[1]])
            if comp not in deal_ids:
                raise _fail(i, events[i], "no such deal")
            history.append(deal_ids[comp])
        elif tag == "pass":
            comp = tuple(gave[step[1]])
            if comp not in proto.draft_index:
                raise _fail(i, events[i], "no such pass")
            history.append(proto.ids.draft(comp))
        elif tag == "start":
            history.append(step[1])
        else:  # place
            key = step[1:]
            if key not in placed:
                raise _fail(i, events[i], "no card can be placed there")
            history.append(placed[key])
    return history


def _sample_after_draft(
    rng: random.Random,
    n: int,
    me: int,
    painters: int,
    hand_size: int,
    deck: Cards,
    my_hand: Cards,
    need: list[Cards],
) -> list[Cards]:
    """Every seat's hand after the draft: known cards plus unseen cards shuffled in."""
    unseen = list(deck)
    for c in range(painters):
        unseen[c] -= my_hand[c]
        for s in range(n):
            if s != me:
                unseen[c] -= need[s][c]
    pool = _cards_list(unseen)
    rng.shuffle(pool)
    hands = []
    at = 0
    for s in range(n):
        if s == me:
            hands.append(list(my_hand))
            continue
        hand = list(need[s])
        free = hand_size - sum(hand)
        for c in pool[at : at + free]:
            hand[c] += 1
        at += free
        hands.append(hand)
    return hands


def _sample_before_draft(
    rng: random.Random,
    n: int,
    me: int,
    painters: int,
    hand_size: int,
    draft: int,
    deck: Cards,
    dealt: dict[int, Cards],
    passed: dict[int, Cards],
) -> tuple[dict[int, Cards], dict[int, Cards]]:
    """Deals and passes while the draft is still running: nothing is revealed yet."""
    unseen = list(deck)
    if me in dealt:
        for c in range(painters):
            unseen[c] -= dealt[me][c]
    pool = _cards_list(unseen)
    rng.shuffle(pool)
    deals: dict[int, Cards] = {}
    at = 0
    for s in range(n):
        if s in dealt:
            deals[s] = list(dealt[s])
            continue
        hand = [0] * painters
        for c in pool[at : at + hand_size]:
            hand[c] += 1
        at += hand_size
        deals[s] = hand
    gave = dict(passed)
    for s in range(n):
        if s not in gave:
            gave[s] = _draw(rng, deals[s], draft)
    return deals, gave

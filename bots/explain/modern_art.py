"""Modern Art's explained hint: artists' values, break-even prices and standings, estimated.

Hands, the deck and unrevealed sealed bids are hidden, so every figure here but the money is
an estimate, from ``WORLDS`` worlds sampled from the seat's information set
(``Worlds.sample``, as the bots draw them, with the bot's model of hidden sealed bids), each
played out to the end of this round by the game's heuristic for every seat
(``GameKnowledge.playout``, the ISMCTS bot's default rollout):

* ``artists``: per artist, the mean payout of one painting at the end of this round (0 when
  the artist ends outside the top three), the chance it is ranked, its board value after the
  round, and a rough game-end value (this round's expected place value repeated in each later
  round);
* ``break_even`` (during an auction): the lot's expected payout this round, the price above
  which buying it loses money for the buyer (who pays it all away, whatever the payment rule);
* ``offers`` (the seller choosing a card): the price each offer is expected to fetch by the
  heuristic's sale model (a share of the other seats' forecast value per auction type), and
  which auction type that model expects to pay most;
* ``standings``: each seat's money after this round's payout, its share of first place then,
  and its expected return, by the heuristic's evaluation at the round's end (the ISMCTS bot's
  own cut-off estimate; exact after the last round).

Whole games are not played out: from round one that costs about as much as a 500 ms hint
(``atelier bench explain``), while a round costs a few milliseconds per world. The rollouts
are a model of play, not the truth: the figures say what happens if everyone plays like the
heuristic from here.
"""

from __future__ import annotations

import random
from typing import Any

import bots
from bots.heuristics import knowledge_for
from bots.heuristics.modern_art import (
    SALE_PER_PLAYER,
    SALE_SHARE,
    SHADE,
    values_of,
)
from games.core.explain import estimate, figure, percent
from games.modern_art.actions import sale_of
from games.modern_art.cards import ARTIST_NAMES, DOUBLE, OPEN, ROUND_END_COUNT, TYPE_NAMES
from games.modern_art.engine import (
    ANSWER,
    ONCE_BIDS,
    OPEN_BIDS,
    PLAY,
    PRICE,
    SEALED_BIDS,
    ModernArtEngine,
    action_string,
)

WORLDS = 6  # sampled worlds for a hint of 500 ms, one round rollout each (Context.samples)
AUCTION_PHASES = (OPEN_BIDS, ONCE_BIDS, SEALED_BIDS, PRICE, ANSWER)
METHOD = (
    "worlds sampled from your information set, each played out to the round's end by the "
    "heuristic for every seat"
)


def _step(engine: ModernArtEngine, knowledge: Any, rng: random.Random) -> None:
    if engine.current_player() < 0:
        engine.apply(engine.sample_chance(rng))
    else:
        engine.apply(knowledge.playout(engine, rng))


def round_rollouts(ctx: Any) -> list[ModernArtEngine]:
    """``WORLDS`` worlds of the information set, each played to the end of this round."""
    rng = ctx.rng()
    knowledge = knowledge_for("modern_art")
    prior = bots.make_bot(ctx.bot).prior_for("modern_art") if ctx.bot.get("name") else None
    sample = ctx.sampler(prior)
    out = []
    for _ in range(ctx.samples(WORLDS)):
        world = sample(random.Random(rng.getrandbits(64)))
        play = random.Random(rng.getrandbits(64))
        start = world.round
        while not world.is_terminal() and world.round == start:
            _step(world, knowledge, play)
        out.append(world)
    return out


def _mean(xs: list[float]) -> float:
    return sum(xs) / len(xs) if xs else 0.0


def _first_place_shares(money: list[int]) -> list[float]:
    top = max(money)
    winners = [s for s, m in enumerate(money) if m == top]
    return [1.0 / len(winners) if s in winners else 0.0 for s in range(len(money))]


def standings(engine: ModernArtEngine, ends: list[ModernArtEngine]) -> list[dict[str, Any]]:
    """Per seat, after this round's payout: mean money, share of first place, and the return
    the game pays (exact when the round was the last, else the heuristic's evaluation, the
    ISMCTS bot's own cut-off estimate)."""
    knowledge = knowledge_for("modern_art")
    n = engine.num_players
    returns = [w.returns() if w.is_terminal() else knowledge.evaluate(w) for w in ends]  # type: ignore[union-attr]
    firsts = [_first_place_shares(w.money) for w in ends]
    return [
        {
            "seat": s,
            "money_now": engine.money[s],
            "money_after_round": round(_mean([float(w.money[s]) for w in ends]), 1),
            "first_place_after_round": round(_mean([f[s] for f in firsts]), 3),
            "expected_return": round(_mean([r[s] for r in returns]), 3),
        }
        for s in range(n)
    ]


def offers(engine: ModernArtEngine, seat: int) -> list[dict[str, Any]]:
    """Each legal offer with the price the heuristic's sale model expects it to fetch."""
    n = engine.num_players
    out = []
    for action in engine.player_actions():
        artist, t, cards = sale_of(action)
        entry: dict[str, Any] = {
            "offer": action_string(engine, action),
            "artist": ARTIST_NAMES[artist],
            "auction": TYPE_NAMES[t],
            "cards": cards,
        }
        if engine.counts[artist] + cards >= ROUND_END_COUNT:
            entry["ends_round"] = True
            entry["expected_price"] = 0.0
        else:
            market = values_of(engine, -1, artist, cards)[0][artist] * cards
            kind = OPEN if t == DOUBLE else t  # a Double alone: sold open if a partner joins
            share = SALE_SHARE[kind] + SALE_PER_PLAYER * (n - 3)
            entry["expected_price"] = round(share * SHADE * market, 1)
            if t == DOUBLE:
                entry["needs_partner"] = True
        out.append(entry)
    return out


def explain(ctx: Any) -> dict[str, Any]:
    engine: ModernArtEngine = ctx.engine
    seat = ctx.seat
    artists = len(engine.values)
    ends = round_rollouts(ctx)
    last = [w.scores[-1] for w in ends]  # (round, counts, ranked, values, payouts)
    payouts = [[float(v[a]) if a in r else 0.0 for a in range(artists)] for _, _, r, v, _ in last]
    after = [[float(x) for x in v] for _, _, _, v, _ in last]
    round_value = [_mean([p[a] for p in payouts]) for a in range(artists)]
    board_after = [_mean([v[a] for v in after]) for a in range(artists)]
    gained = [board_after[a] - engine.values[a] for a in range(artists)]
    later = engine.cfg.rounds - engine.round - 1  # rounds after this one
    game_value = [board_after[a] + later * gained[a] for a in range(artists)]
    ranked = [_mean([1.0 if p[a] > 0 else 0.0 for p in payouts]) for a in range(artists)]
    figures: dict[str, Any] = {
        "money": figure(list(engine.money), "every seat's money now (every payment is public)"),
        "artists": estimate(
            {
                ARTIST_NAMES[a]: {
                    "round_end": round(round_value[a], 1),
                    "ranked_chance": round(ranked[a], 3),
                    "board_value_now": engine.values[a],
                    "board_value_after_round": round(board_after[a], 1),
                    "game_end": round(game_value[a], 1),
                    "count_this_round": engine.counts[a],
                }
                for a in range(artists)
            },
            "per artist: what one painting bought this round pays at the round's end (0 if the "
            "artist ends outside the top three), the chance it is ranked, its board value after "
            "this round, and after the last round (game_end: this round's expected place value "
            f"repeated in each of the {later} later rounds, a rough extrapolation)",
            len(ends),
            METHOD,
        ),
    }
    text: list[str] = []
    best = max(range(artists), key=lambda a: round_value[a])
    text.append(
        f"{ARTIST_NAMES[best]} is expected to pay the most this round: about "
        f"{round_value[best]:.0f} a painting ({percent(ranked[best])} chance to be ranked)."
    )
    if engine.phase in AUCTION_PHASES and engine.artist >= 0:
        lot = engine.ncards * round_value[engine.artist]
        figures["break_even"] = estimate(
            {
                "artist": ARTIST_NAMES[engine.artist],
                "cards": engine.ncards,
                "price": round(lot, 1),
                "auctioneer": engine.auctioneer,
            },
            "the lot's expected payout this round: buying it above this price loses money",
            len(payouts),
            METHOD,
        )
        text.append(
            f"Buying this {ARTIST_NAMES[engine.artist]} lot above about {lot:.0f} loses money "
            f"(its expected payout this round)."
        )
    if engine.phase == PLAY and engine.current_player() == seat:
        listed = offers(engine, seat)
        sold = [o for o in listed if not o.get("ends_round")]
        best_offer = max(sold, key=lambda o: o["expected_price"]) if sold else None
        figures["offers"] = figure(
            {
                "offers": listed,
                "best_auction": best_offer["auction"] if best_offer else None,
                "best_offer": best_offer["offer"] if best_offer else None,
            },
            "the price each offer is expected to fetch (the heuristic's sale model: a share of "
            "the other seats' forecast value, by auction type), and the auction type expected "
            "to pay most",
            exact=False,
            method="the heuristic's forecast (bots.heuristics.modern_art.values_of)",
        )
        if best_offer:
            text.append(
                f"As seller, {best_offer['offer']} is expected to fetch the most: about "
                f"{best_offer['expected_price']:.0f} ({best_offer['auction']})."
            )
    table = standings(engine, ends)
    figures["standings"] = estimate(
        table,
        "each seat's money after this round's payout, its share of first place then, and the "
        "return the game pays (points or money), estimated at the round's end by the "
        "heuristic's evaluation (exact after the last round)",
        len(ends),
        METHOD,
    )
    me = table[seat]
    text.append(
        f"After this round you are expected to hold about {me['money_after_round']:.0f} money, "
        f"first in {percent(me['first_place_after_round'])} of {len(ends)} played-out rounds."
    )
    return {"figures": figures, "text": text}

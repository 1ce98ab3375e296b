"""Modern Art's explained hint: artists' values, break-even prices and standings, estimated.

Hands, the deck and unrevealed sealed bids are hidden, so every figure here but the money is
an estimate, from ``WORLDS`` worlds sampled from the seat's information set
(``games.sample_engine``, with the bot's model of hidden sealed bids) each played out by the
game's heuristic (``GameKnowledge.playout``, every seat; the ISMCTS bot's default rollout):

* ``artists``: per artist, the mean payout of one painting at the end of this round (0 when
  the artist ends outside the top three) over all rollouts, and its board value after the last
  round over the first ``GAME_ROLLOUTS`` of them, played on to the end of the game;
* ``break_even`` (during an auction): the lot's expected payout this round, the price above
  which buying it loses money for the buyer (who pays it all away, whatever the payment rule);
* ``offers`` (the seller choosing a card): the price each offer is expected to fetch by the
  heuristic's sale model (a share of the other seats' forecast value per auction type), and
  which auction type that model expects to pay most;
* ``standings``: each seat's mean final money, share of first place and mean return over the
  game rollouts.

The heuristic's rollouts are a model of play, not the truth: the figures say what happens if
everyone plays like the heuristic from here. Cost: a few milliseconds per round rollout, about
ten per game rollout from round one (``atelier``'s figures in docs/api.md).
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
    decode_offer,
    values_of,
)
from games.core.explain import estimate, figure, percent
from games.core.infoset import sample_engine
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

WORLDS = 12  # round rollouts per explanation
GAME_ROLLOUTS = 4  # of them, played on to the end of the game
AUCTION_PHASES = (OPEN_BIDS, ONCE_BIDS, SEALED_BIDS, PRICE, ANSWER)
METHOD = "worlds sampled from your information set, each played out by the heuristic for every seat"


def _step(engine: ModernArtEngine, knowledge: Any, rng: random.Random) -> None:
    if engine.current_player() < 0:
        engine.apply(engine.sample_chance(rng))
    else:
        engine.apply(knowledge.playout(engine, rng))


def rollouts(ctx: Any) -> tuple[list[list[float]], list[ModernArtEngine]]:
    """Per rollout, each artist's payout per painting at this round's end; and the finished
    games of the first ``GAME_ROLLOUTS`` rollouts."""
    rng = ctx.rng()
    knowledge = knowledge_for("modern_art")
    prior = bots.make_bot(ctx.bot).prior_for("modern_art") if ctx.bot.get("name") else None
    payouts: list[list[float]] = []
    finished: list[ModernArtEngine] = []
    for i in range(WORLDS):
        world = sample_engine(
            ctx.defn, ctx.params, ctx.infoset, random.Random(rng.getrandbits(64)), prior
        )
        play = random.Random(rng.getrandbits(64))
        start = world.round
        while not world.is_terminal() and world.round == start:
            _step(world, knowledge, play)
        _, _, ranked, values, _ = world.scores[-1]
        payouts.append([float(values[a]) if a in ranked else 0.0 for a in range(len(values))])
        if i < GAME_ROLLOUTS:
            while not world.is_terminal():
                _step(world, knowledge, play)
            finished.append(world)
    return payouts, finished


def _mean(xs: list[float]) -> float:
    return sum(xs) / len(xs) if xs else 0.0


def _first_place_shares(money: list[int]) -> list[float]:
    top = max(money)
    winners = [s for s, m in enumerate(money) if m == top]
    return [1.0 / len(winners) if s in winners else 0.0 for s in range(len(money))]


def offers(engine: ModernArtEngine, seat: int) -> list[dict[str, Any]]:
    """Each legal offer with the price the heuristic's sale model expects it to fetch."""
    n = engine.num_players
    out = []
    for action in engine.player_actions():
        artist, t, cards = decode_offer(action)
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
    n = engine.num_players
    artists = len(engine.values)
    payouts, finished = rollouts(ctx)
    round_value = [_mean([p[a] for p in payouts]) for a in range(artists)]
    game_value = [_mean([float(g.values[a]) for g in finished]) for a in range(artists)]
    ranked = [_mean([1.0 if p[a] > 0 else 0.0 for p in payouts]) for a in range(artists)]
    figures: dict[str, Any] = {
        "money": figure(list(engine.money), "every seat's money now (every payment is public)"),
        "artists": estimate(
            {
                ARTIST_NAMES[a]: {
                    "round_end": round(round_value[a], 1),
                    "ranked_chance": round(ranked[a], 3),
                    "game_end": round(game_value[a], 1),
                    "board_value_now": engine.values[a],
                    "count_this_round": engine.counts[a],
                }
                for a in range(artists)
            },
            "per artist: what one painting bought this round pays at the round's end (0 if the "
            "artist ends outside the top three), the chance it is ranked, and its board value "
            f"after the last round (over the first {len(finished)} rollouts)",
            len(payouts),
            METHOD,
            game_samples=len(finished),
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
    if finished:
        money = [_mean([float(g.money[s]) for g in finished]) for s in range(n)]
        first = [_mean([_first_place_shares(g.money)[s] for g in finished]) for s in range(n)]
        ret = [_mean([g.returns()[s] for g in finished]) for s in range(n)]
        figures["standings"] = estimate(
            [
                {
                    "seat": s,
                    "money_now": engine.money[s],
                    "final_money": round(money[s], 1),
                    "first_place": round(first[s], 3),
                    "return": round(ret[s], 3),
                }
                for s in range(n)
            ],
            "each seat's expected final money, share of first place and return (points or "
            "money, as the game pays) at the end of the game",
            len(finished),
            METHOD,
        )
        text.append(
            f"You are expected to finish with about {money[seat]:.0f} money and first place in "
            f"{percent(first[seat])} of {len(finished)} played-out games."
        )
    return {"figures": figures, "text": text}

"""Gallery Rush's explained hint: exact odds from the visible deck (docs/api.md).

Everything but the deck's order is public, so the deck's composition is known to every seat
(the 28 cards minus every card seen and not reshuffled) and each figure here is exact: the
next flip's chances to bust the Keep, hit a forgery or find the Mona Lisa; each declaration's
chance; the cards each seat still needs for each goal. Only public parts of the engine are
read (there is nothing else in this game), so any world of an information set gives the same
figures.
"""

from __future__ import annotations

from typing import Any

from games.core.explain import chance, counted, figure, in_words
from games.gallery_rush.engine import (
    CHOOSE,
    COLLECTION_GOAL,
    ML_SLOT,
    PAINTER_GOAL,
    TURN,
    GalleryRushEngine,
)
from games.paintings import KIND_NAMES, MONA_LISA, PAINTER_NAMES, forgery_painter


def next_flip_deck(engine: GalleryRushEngine) -> list[int]:
    """The composition the next flip comes from: an empty deck is refilled from the discard."""
    if engine.deck_size:
        return list(engine.deck)
    return [d + x for d, x in zip(engine.deck, engine.discard, strict=True)]


def goals(engine: GalleryRushEngine, seat: int) -> dict[str, Any]:
    """Cards ``seat`` still needs: for 7 in the Collection, and for 4 of each painter (the
    Mona Lisa counts as any one painter), and the nearer of them."""
    c = engine.collections[seat]
    ml = c[ML_SLOT]
    seven = max(0, COLLECTION_GOAL - sum(c))
    four = {PAINTER_NAMES[p]: max(0, PAINTER_GOAL - c[p] - ml) for p in range(3)}
    return {
        "seat": seat,
        "collection": sum(c),
        "seven_cards": seven,
        "four_of_a_painter": four,
        "nearest": min(seven, *four.values()),
        "qualified": bool(engine.qualified[seat]),
    }


def flip_odds(engine: GalleryRushEngine, seat: int) -> dict[str, Any]:
    """The next Explore/Continue flip: bust, forgery, Mona Lisa, a new painter for the Keep."""
    deck = next_flip_deck(engine)
    size = sum(deck)
    keep = [p for p in range(3) if engine.keep[p]]
    mine = engine.collections[seat]
    bust = sum(deck[p] for p in keep)
    forgeries = sum(deck[3:6])
    safe = sum(deck[p] for p in range(3) if p not in keep)
    lost = sum(deck[3 + p] * mine[p] for p in range(3))  # Collection cards lost, summed
    return {
        "deck_size": size,
        "keep": [PAINTER_NAMES[p] for p in keep],
        "bust": chance(bust, size),
        "forgery": chance(forgeries, size),
        "mona_lisa": chance(deck[MONA_LISA], size),
        "new_painter": chance(safe, size),
        "forgery_by_painter": {
            PAINTER_NAMES[p]: {**chance(deck[3 + p], size), "would_lose": mine[p] + len(keep)}
            for p in range(3)
        },
        "expected_collection_loss": round(lost / size, 6) if size else 0.0,
    }


def declaration_odds(engine: GalleryRushEngine, seat: int) -> dict[str, Any]:
    """Each declaration's chance of success (and, for a painter, of the forgery penalty)."""
    deck = next_flip_deck(engine)
    size = sum(deck)
    mine = engine.collections[seat]
    forgeries = sum(deck[3:6])
    n = engine.num_players
    victims = [s for s in range(n) if s != seat and sum(engine.collections[s])]
    out: dict[str, Any] = {}
    for p in range(3):
        out[PAINTER_NAMES[p]] = {
            "success": chance(deck[p], size),
            "forgery_penalty": chance(forgeries, size),
            "would_lose": mine[p],
            "mona_lisa": chance(deck[MONA_LISA], size),
        }
    out["forgery"] = {"success": chance(forgeries, size), "steal_from": victims}
    out["Mona Lisa"] = {"success": chance(deck[MONA_LISA], size), "wins_at_once": True}
    return out


def explain(engine: GalleryRushEngine, seat: int) -> dict[str, Any]:
    """The figures and sentences of a Gallery Rush hint for ``seat`` (public parts only)."""
    deck = next_flip_deck(engine)
    size = sum(deck)
    n = engine.num_players
    figures: dict[str, Any] = {
        "deck": figure(
            {"size": size, "cards": {KIND_NAMES[k]: c for k, c in enumerate(deck) if c}},
            "the cards the next flip comes from (an empty deck is refilled from the discard)",
            refilled=engine.deck_size == 0 and size > 0,
        ),
        "goals": figure(
            [goals(engine, s) for s in range(n)],
            "cards each seat still needs: 7 in the Collection, or 4 of one painter "
            "(the Mona Lisa counts as any painter)",
        ),
    }
    text: list[str] = []
    me = goals(engine, seat)
    if me["qualified"]:
        text.append("You have already met a goal; the most cards wins among those who have.")
    else:
        painter = min(PAINTER_NAMES, key=lambda name: me["four_of_a_painter"][name])
        text.append(
            f"You need {counted(me['seven_cards'], 'more card')} for a Collection of 7, or "
            f"{me['four_of_a_painter'][painter]} more {painter} for 4 of one painter."
        )
    if size and engine.phase in (TURN, CHOOSE):
        odds = flip_odds(engine, seat)
        verb = "Explore" if engine.phase == TURN else "Continue"
        figures["flip"] = figure(
            odds, f"the next flip if you {verb}: bust, forgery, Mona Lisa or a new painter"
        )
        bust = sum(deck[p] for p in range(3) if engine.keep[p])
        forged = sum(deck[3:6])
        if engine.phase == TURN:
            text.append(
                f"Explore: the first flip cannot bust (your Keep is empty); it is a forgery "
                f"{in_words(forged, size)}."
            )
        else:
            text.append(
                f"Continue: the next flip busts your Keep {in_words(bust, size)} and is a "
                f"forgery {in_words(forged, size)}; the Mona Lisa "
                f"{in_words(deck[MONA_LISA], size)} banks the Keep."
            )
        at_risk = [
            f"{engine.collections[seat][forgery_painter(k)]} {PAINTER_NAMES[forgery_painter(k)]}"
            for k in range(3, 6)
            if deck[k] and engine.collections[seat][forgery_painter(k)]
        ]
        if at_risk:
            text.append(f"A forgery would also cost your Collection's {', '.join(at_risk)}.")
    if size and engine.phase == TURN:
        figures["declarations"] = figure(
            declaration_odds(engine, seat),
            "each declaration's chance of success on the next flip (a painter's success adds "
            "it and two bonus draws; any forgery costs that painter's Collection cards)",
        )
        best = max(range(3), key=lambda p: (deck[p], -p))
        top = [
            {"type": "declare", "call": PAINTER_NAMES[p]} for p in range(3) if deck[p] == deck[best]
        ]
        text.append(
            f"Declaring {PAINTER_NAMES[best]} succeeds {in_words(deck[best], size)}; forgery "
            f"{in_words(sum(deck[3:6]), size)}; Mona Lisa {in_words(deck[MONA_LISA], size)}."
        )
        return {"figures": figures, "text": text, "recommends": top}
    return {"figures": figures, "text": text}

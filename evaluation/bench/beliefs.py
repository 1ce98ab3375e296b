"""How close to the truth the search's beliefs are: weighted against uniform worlds.

``atelier bench beliefs --games-file F`` reads games that ``atelier bench strength`` stored
(every game's deal and actions, so the true state of each position is known). At every
``every``-th decision with a choice of the pairing's bot A (the searching bot; every other
seat is bot B) it draws the pool the ISMCTS bot's beliefs weigh: ``worlds`` worlds sampled
uniformly from A's information set, each weighed by the likelihood of the other seats' actions
under the game's heuristic with a trembling floor (``bots.beliefs``). The worlds are weighed
as drawn; the search first takes back the other seats' unseen moves just before its turn (a
sealed bid, a face-down placement) and searches them, so at such decisions its weights lack
those few factors. Each world is scored by the share of the other seats' hidden cards it gets
right (per seat and kind, the fewer of the world's and the true count, over the true hidden
cards), and the position by that score's mean under three weightings:

* ``uniform``: every world alike, what a search without beliefs samples;
* ``tempered``: the search's weights (Bayes tempered to keep ``belief_effective`` of the pool);
* ``bayes``: the plain Bayes weights (the likelihood not tempered).

The rows give the means over positions and the paired differences from uniform with 95%
intervals. A positive difference says the opponents' moves, read through the heuristic, point
toward what they hold; near zero says the weights cost search time for nothing. Who the
opponents were matters (the heuristic model describes heuristic opponents, not searching
ones), so each row names bot B.

It measures information, not strength, but in a fraction of the time a strength row takes and
with far smaller intervals (hundreds of positions per row). Only games with hidden holdings
(Modern Art's hands, Detective Eye's hands and face-down rows) have rows: Finger Auction's
only hidden steps are the bids a search takes back, and Gallery Rush has none.
"""

from __future__ import annotations

import json
import math
import random
import statistics
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import games
from bots.beliefs import HeuristicModel, effective_size, log_likelihood, normalise, tempered
from bots.heuristics import knowledge_for
from bots.protocol import Worlds
from games.core.engine import Engine
from games.core.infoset import build_infoset

Holdings = Callable[[Any, int], Sequence[int]]


def _modern_art_holdings(engine: Any, seat: int) -> Sequence[int]:
    return engine.hands[seat]  # cards in hand by kind: every card there is hidden


def _detective_eye_holdings(engine: Any, seat: int) -> Sequence[int]:
    counts = list(engine.owned[seat].key)  # hand plus row, by painter
    for position, painter in enumerate(engine.rows[seat]):
        if engine.flipped[seat] >> position & 1:  # a flipped card is public
            counts[painter] -= 1
    return counts


HIDDEN_HOLDINGS: dict[str, Holdings] = {
    "modern_art": _modern_art_holdings,
    "detective_eye": _detective_eye_holdings,
}
WEIGHTINGS = ("uniform", "tempered", "bayes")


@dataclass(frozen=True)
class Position:
    """One decision of a stored game: the true state and the seat to move."""

    game: str
    params: dict[str, Any]
    truth: Engine
    seat: int
    label: str  # who the other seats were: the stored game's bot B, such as "heuristic"


def share_right(world: Engine, truth: Engine, seat: int, holdings: Holdings) -> float | None:
    """Share of the other seats' hidden cards that ``world`` places right (``None``: none)."""
    right = total = 0
    for other in range(truth.num_players):
        if other == seat:
            continue
        guess, true = holdings(world, other), holdings(truth, other)
        if sum(guess) != sum(true):
            raise AssertionError(f"seat {other}'s hidden cards differ in number: sampler error")
        right += sum(min(g, t) for g, t in zip(guess, true, strict=True))
        total += sum(true)
    return right / total if total else None


def positions(path: Path, game: str, players: Sequence[int], every: int) -> Iterator[Position]:
    """Every ``every``-th decision with a choice of bot A in the stored games of ``game``.

    Bot A (the searching bot of a ``bench strength`` pairing) sits in one seat and bot B in
    all the others, so at A's decisions every other seat is B: the opponents the beliefs model.
    """
    defn = games.definition(game)
    for number, line in enumerate(path.read_text().splitlines(), 1):
        try:
            record = json.loads(line)
            name, params, _, b, a_seat = json.loads(record["key"])[:5]
            history = record["history"]
            label = b["label"]
        except (ValueError, KeyError, TypeError) as err:
            raise ValueError(f"{path}:{number}: not a game stored by bench strength") from err
        if name != game or (players and params.get("players") not in players):
            continue
        params = defn.validate_params(params)
        engine = defn.new_engine(params)
        decisions = 0
        for action in history:
            seat = engine.current_player()
            if seat == a_seat and len(engine.legal_actions()) > 1:
                if decisions % every == 0:
                    yield Position(game, params, engine.copy(), seat, label)
                decisions += 1
            engine.apply(action)


def weighed_shares(
    position: Position,
    model: HeuristicModel,
    size: int,
    epsilon: float,
    belief_effective: float,
    seed: int,
) -> dict[str, float] | None:
    """The pool's mean share right under each weighting, and the tempered weights' effective
    size (``None``: the other seats hold nothing hidden). ``model`` is shared by the positions
    of a run: its cache is exact per information set, as in the search."""
    defn = games.definition(position.game)
    holdings = HIDDEN_HOLDINGS[position.game]
    infoset = build_infoset(defn, position.params, position.truth, position.seat)
    rng = random.Random(seed)
    worlds = Worlds.from_infoset(defn, position.params, infoset, rng)
    pool = [worlds.first]
    pool += [worlds.sample(random.Random(rng.getrandbits(64))) for _ in range(size - 1)]
    shares = [share_right(world, position.truth, position.seat, holdings) for world in pool]
    if shares[0] is None:
        return None
    fresh = worlds.fresh
    assert fresh is not None  # every game with hidden holdings replays its worlds
    logs = [log_likelihood(fresh, w, position.seat, model.probability, epsilon) for w in pool]
    weights = {
        "uniform": [1.0 / size] * size,
        "tempered": tempered(logs, belief_effective * size)[0],
        "bayes": normalise(logs),
    }
    out = {k: sum(w * s for w, s in zip(ws, shares, strict=True)) for k, ws in weights.items()}  # type: ignore[misc]
    out["effective"] = effective_size(weights["tempered"])
    return out


def mean_interval(values: list[float]) -> tuple[float, float | None, float | None]:
    """Mean and 95% interval (normal approximation: rows have hundreds of positions); one
    position has no interval (``None``, valid JSON where an infinity is not)."""
    mean = statistics.fmean(values)
    if len(values) < 2:
        return mean, None, None
    half = 1.96 * statistics.stdev(values) / math.sqrt(len(values))
    return mean, mean - half, mean + half


def run(
    files: Sequence[Path],
    game: str,
    players: Sequence[int] = (),
    every: int = 12,
    worlds: int = 64,
    epsilon: float = 0.2,
    belief_effective: float = 0.25,
    seed: int = 0,
    max_positions: int | None = None,
    progress: bool = False,
) -> dict[str, Any]:
    """Rows per (file, players, opponents): positions, mean shares and paired differences."""
    if game not in HIDDEN_HOLDINGS:
        raise ValueError(
            f"game {game!r} has no hidden holdings to compare (games with them: "
            f"{', '.join(sorted(HIDDEN_HOLDINGS))})"
        )
    if every < 1 or worlds < 2:
        raise ValueError("every must be at least 1 and worlds at least 2")
    model = HeuristicModel(knowledge_for(game))  # type: ignore[arg-type]
    found: dict[tuple[str, int, str], list[dict[str, float]]] = {}
    for path in files:
        todo = list(positions(path, game, players, every))
        if max_positions is not None:
            todo = todo[:max_positions]
        bar = _progress(len(todo), f"{path.name}: {len(todo)} positions", progress)
        for index, position in enumerate(todo):
            got = weighed_shares(position, model, worlds, epsilon, belief_effective, seed + index)
            if got is not None:
                key = (path.name, position.truth.num_players, position.label)
                found.setdefault(key, []).append(got)
            bar.update()
        bar.close()
    rows = []
    for (name, count, label), items in found.items():
        row: dict[str, Any] = {"file": name, "players": count, "opponents": label}
        row["positions"] = len(items)
        row["effective"] = statistics.fmean(i["effective"] for i in items)
        for weighting in WEIGHTINGS:
            row[weighting] = statistics.fmean(i[weighting] for i in items)
        for weighting in WEIGHTINGS[1:]:
            row[f"{weighting}_gain"] = mean_interval([i[weighting] - i["uniform"] for i in items])
        rows.append(row)
    return {
        "game": game,
        "worlds": worlds,
        "epsilon": epsilon,
        "belief_effective": belief_effective,
        "every": every,
        "rows": rows,
    }


def _progress(total: int, label: str, shown: bool) -> Any:
    from tqdm import tqdm

    return tqdm(total=total, desc=label, disable=not shown, leave=False)


def format_table(report: dict[str, Any]) -> str:
    """The rows as a markdown table."""
    lines = [
        f"{report['game']}: {report['worlds']} worlds, epsilon {report['epsilon']}, "
        f"tempered to {report['belief_effective']} of the pool, every {report['every']}th "
        "decision",
        "",
        "| file | players | opponents | positions | uniform | tempered | gain | bayes | gain "
        "| effective |",
        "|---|---|---|---|---|---|---|---|---|---|",
    ]
    if not report["rows"]:
        lines.append(
            f"(no decision of the searching bot with hidden cards in the {report['game']} games "
            "of the files)"
        )
    for row in report["rows"]:
        gains = [
            f"{m:+.4f} [{lo:+.4f}, {hi:+.4f}]" if lo is not None else f"{m:+.4f} (one position)"
            for m, lo, hi in (row["tempered_gain"], row["bayes_gain"])
        ]
        lines.append(
            f"| {row['file']} | {row['players']} | {row['opponents']} | {row['positions']} "
            f"| {row['uniform']:.3f} | {row['tempered']:.3f} | {gains[0]} | {row['bayes']:.3f} "
            f"| {gains[1]} | {row['effective']:.1f} |"
        )
    return "\n".join(lines)

"""Summary statistics of a tournament: mean returns, win shares, pairwise table, ratings.

Every function here is a pure function of the game records (sorted by index), so a resumed
tournament and an uninterrupted one give the same numbers, bit for bit; the only exception
is ``timing``, which reports the wall-clock cost of the bots' moves.

Confidence intervals are computed over *deals*, not games: the games of one deal share their
chance outcomes (duplicate format), so they are not independent. For each bot we first
average its results over its games in a deal, then take Student's t interval over those
per-deal means. That is also where duplicate format pays: a bot's per-deal mean already has
the card and seat luck of that deal averaged out over the rotations.

Ratings:

* 2-player games: Elo from OpenSpiel's ``pyspiel.elo.compute_ratings_from_matrices`` (the
  Bradley-Terry maximum-likelihood fit of Hunter, "MM algorithms for generalized
  Bradley-Terry models", Ann. Statist. 2004; draws count half a win to each side; OpenSpiel
  adds a 0.01 pseudo-count so unbeaten bots stay finite), shifted so that the anchor bot (the
  first one listed) is 0, with 95% percentile bootstrap intervals over deals (Efron &
  Tibshirani, "An Introduction to the Bootstrap", 1993).
* 3-5 player games: openskill's Plackett-Luce model (Weng & Lin, "A Bayesian Approximation
  Method for Online Ranking", JMLR 2011), games fed in index order with the returns as
  scores; intervals are ``mu +- 1.96 sigma``, the model's own uncertainty.
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Sequence
from typing import Any

import numpy as np

from bots.luck import win_shares  # one rule for a win share (the review's split uses it)

ELO_LABEL = (
    "Elo (OpenSpiel pyspiel.elo: Bradley-Terry maximum likelihood, draws count half, "
    "smoothing 0.01), 95% percentile bootstrap over deals"
)
# OpenSpiel's pseudo-count (pyspiel.elo's default smoothing), shared by the pairwise Elo.
ELO_SMOOTHING = 0.01
PAIRWISE_ELO_LABEL = (
    "pairwise Elo: logistic Elo of the mean expected score 1/2 + (return difference) / "
    "(2 x utility range), smoothing 0.01 as the table's; 95% t interval over deals mapped to "
    "Elo (the table's interval is a bootstrap of its Bradley-Terry fit)"
)
OPENSKILL_LABEL = (
    "openskill Plackett-Luce (mu, sigma), games in index order; interval mu +- 1.96 sigma"
)


def _t_central(t: float, df: int) -> float:
    """P(|T| < t) for Student's t with integer ``df``, by the classic finite series in
    theta = atan(t / sqrt(df)) (Abramowitz & Stegun 26.7.3-4): exact, and no scipy import,
    which alone costs seconds of start-up."""
    theta = math.atan(t / math.sqrt(df))
    c2, s = math.cos(theta) ** 2, math.sin(theta)
    if df % 2:
        term, acc = 1.0, 0.0
        if df > 1:
            term = math.cos(theta)
            acc = term
            for k in range(3, df - 1, 2):
                term *= c2 * (k - 1) / k
                acc += term
        return (2.0 / math.pi) * (theta + s * acc) if df > 1 else 2.0 * theta / math.pi
    term = acc = 1.0
    for k in range(2, df - 1, 2):
        term *= c2 * (k - 1) / k
        acc += term
    return s * acc


def t_quantile(df: int, q: float = 0.975) -> float:
    """Student's t quantile for ``q`` > 0.5: bisection on the exact CDF; for large ``df`` the
    Cornish-Fisher expansion around the normal quantile (error below 1e-7 there)."""
    z = NORMAL_975 if q == 0.975 else _normal_quantile(q)
    if df > 300:
        return (
            z
            + (z**3 + z) / (4 * df)
            + (5 * z**5 + 16 * z**3 + 3 * z) / (96 * df**2)
            + (3 * z**7 + 19 * z**5 + 17 * z**3 - 15 * z) / (384 * df**3)
        )
    target = 2.0 * q - 1.0
    lo, hi = 0.0, 1.0
    while _t_central(hi, df) < target:
        hi *= 2.0
    for _ in range(100):
        mid = 0.5 * (lo + hi)
        if _t_central(mid, df) < target:
            lo = mid
        else:
            hi = mid
    return 0.5 * (lo + hi)


NORMAL_975 = 1.959963984540054


def _normal_quantile(q: float) -> float:
    from statistics import NormalDist

    return NormalDist().inv_cdf(q)


def mean_ci(values: Sequence[float]) -> tuple[float, list[float] | None]:
    """Mean and 95% t-interval of ``values`` (``None`` for fewer than two values)."""
    n = len(values)
    mean = math.fsum(values) / n
    if n < 2:
        return mean, None
    var = math.fsum((v - mean) ** 2 for v in values) / (n - 1)
    half = t_quantile(n - 1) * math.sqrt(var / n)
    return mean, [mean - half, mean + half]


def bot_table(labels: Sequence[str], records: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
    """Per bot: games, mean return and win share with 95% CIs over deals, mean per seat."""
    n_seats = len(records[0]["seats"]) if records else 0
    per_deal: dict[str, dict[int, list[tuple[float, float]]]] = {
        b: defaultdict(list) for b in labels
    }
    games: dict[str, int] = dict.fromkeys(labels, 0)
    by_seat: dict[str, list[list[float]]] = {b: [[] for _ in range(n_seats)] for b in labels}
    for rec in records:
        shares = win_shares(rec["returns"])
        for b in set(rec["seats"]):
            games[b] += 1
        for s, b in enumerate(rec["seats"]):
            per_deal[b][rec["deal"]].append((rec["returns"][s], shares[s]))
            by_seat[b][s].append(rec["returns"][s])
    rows = []
    for b in labels:
        deals = [per_deal[b][d] for d in sorted(per_deal[b])]
        row: dict[str, Any] = {"label": b, "games": games[b]}
        if deals:
            ret, ret_ci = mean_ci([math.fsum(r for r, _ in d) / len(d) for d in deals])
            win, win_ci = mean_ci([math.fsum(w for _, w in d) / len(d) for d in deals])
        else:
            ret = win = None
            ret_ci = win_ci = None
        row.update(
            {
                "appearances": sum(len(d) for d in deals),
                "deals": len(deals),
                "mean_return": ret,
                "mean_return_ci95": ret_ci,
                "win_share": win,
                "win_share_ci95": win_ci,
                "mean_return_by_seat": [math.fsum(v) / len(v) if v else None for v in by_seat[b]],
            }
        )
        rows.append(row)
    return rows


def seat_means(records: Sequence[dict[str, Any]]) -> list[float]:
    """Mean return per seat over all games: the advantage of moving first, second, ..."""
    if not records:
        return []
    n = len(records[0]["returns"])
    return [math.fsum(r["returns"][s] for r in records) / len(records) for s in range(n)]


def pairwise(labels: Sequence[str], records: Sequence[dict[str, Any]]) -> dict[str, Any]:
    """Head-to-head: how often the row bot finished above the column bot (ties half).

    Within a game every pair of seats held by two different bots is one comparison; a game's
    comparisons for a pair are averaged first, so each game counts once per pair. The
    score matrix is antisymmetric around 0.5 and ``return_diff`` (row's return minus
    column's) antisymmetric around 0.
    """
    index = {b: i for i, b in enumerate(labels)}
    k = len(labels)
    score = np.zeros((k, k))
    diff = np.zeros((k, k))
    count = np.zeros((k, k), dtype=int)
    for rec in records:
        seats, rets = rec["seats"], rec["returns"]
        acc: dict[tuple[int, int], list[tuple[float, float]]] = defaultdict(list)
        for s, a in enumerate(seats):
            for t, b in enumerate(seats):
                if a == b:
                    continue
                won = 1.0 if rets[s] > rets[t] else 0.5 if rets[s] == rets[t] else 0.0
                acc[index[a], index[b]].append((won, rets[s] - rets[t]))
        for (i, j), vals in acc.items():
            score[i, j] += math.fsum(w for w, _ in vals) / len(vals)
            diff[i, j] += math.fsum(d for _, d in vals) / len(vals)
            count[i, j] += 1

    def cell(m: np.ndarray, i: int, j: int) -> float | None:
        return float(m[i, j] / count[i, j]) if count[i, j] else None

    return {
        "labels": list(labels),
        "score": [[cell(score, i, j) for j in range(k)] for i in range(k)],
        "return_diff": [[cell(diff, i, j) for j in range(k)] for i in range(k)],
        "games": count.tolist(),
    }


# --- Elo (2-player games) ------------------------------------------------------------------
def _elo_fit(wins: np.ndarray, draws: np.ndarray, anchor: int) -> np.ndarray:
    import pyspiel

    ratings = np.array(
        pyspiel.elo.compute_ratings_from_matrices(
            wins.astype(int).tolist(), draws.astype(int).tolist()
        )
    )
    return ratings - ratings[anchor]


def elo_ratings(
    labels: Sequence[str],
    records: Sequence[dict[str, Any]],
    bootstrap: int = 1000,
    seed: int = 0,
    anchor: int = 0,
) -> dict[str, Any]:
    """Elo of each bot from 2-player games, with percentile bootstrap CIs over deals."""
    index = {b: i for i, b in enumerate(labels)}
    k = len(labels)
    deals = sorted({r["deal"] for r in records})
    slot = {d: i for i, d in enumerate(deals)}
    wins = np.zeros((len(deals), k, k), dtype=np.int64)
    draws = np.zeros((len(deals), k, k), dtype=np.int64)
    for rec in records:
        a, b = (index[x] for x in rec["seats"])
        if a == b:
            continue
        ra, rb = rec["returns"]
        d = slot[rec["deal"]]
        if ra > rb:
            wins[d, a, b] += 1
        elif rb > ra:
            wins[d, b, a] += 1
        else:
            draws[d, a, b] += 1
            draws[d, b, a] += 1
    out: dict[str, Any] = {
        "method": "elo",
        "label": ELO_LABEL,
        "anchor": labels[anchor],
        "scale": 400,
        "bootstrap": bootstrap,
        "bots": {},
    }
    if not deals:
        return out
    point = _elo_fit(wins.sum(0), draws.sum(0), anchor)
    samples = None
    if bootstrap > 0 and len(deals) > 1:
        rng = np.random.default_rng(seed)
        samples = np.empty((bootstrap, k))
        for i in range(bootstrap):
            counts = np.bincount(rng.integers(0, len(deals), len(deals)), minlength=len(deals))
            samples[i] = _elo_fit(
                np.tensordot(counts, wins, axes=1), np.tensordot(counts, draws, axes=1), anchor
            )
    for i, b in enumerate(labels):
        ci = None
        if samples is not None:
            lo, hi = np.percentile(samples[:, i], [2.5, 97.5])
            ci = [float(lo), float(hi)]
        out["bots"][b] = {"rating": float(point[i]), "ci95": ci}
    return out


# --- openskill (3-5 player games) -----------------------------------------------------------
def openskill_ratings(labels: Sequence[str], records: Sequence[dict[str, Any]]) -> dict[str, Any]:
    """Plackett-Luce ratings from the games in index order, scored by their returns.

    A bot holding several seats of one game (a gauntlet fills the table with copies of the
    opponent) is rated as separate players for that game; its new mu and sigma are the means
    of its copies' updates.
    """
    from openskill.models import PlackettLuce

    model = PlackettLuce()
    state = {b: (model.mu, model.sigma) for b in labels}
    for rec in records:
        seats, rets = rec["seats"], rec["returns"]
        teams = [[model.rating(mu=state[b][0], sigma=state[b][1])] for b in seats]
        rated = model.rate(teams, scores=[float(r) for r in rets])
        updates: dict[str, list[tuple[float, float]]] = defaultdict(list)
        for b, team in zip(seats, rated, strict=True):
            updates[b].append((team[0].mu, team[0].sigma))
        for b, ups in updates.items():
            state[b] = (
                math.fsum(m for m, _ in ups) / len(ups),
                math.fsum(s for _, s in ups) / len(ups),
            )
    return {
        "method": "openskill",
        "label": OPENSKILL_LABEL,
        "model": "PlackettLuce",
        "bots": {
            b: {
                "rating": mu,
                "mu": mu,
                "sigma": sigma,
                "ordinal": mu - 3 * sigma,
                "ci95": [mu - 1.96 * sigma, mu + 1.96 * sigma],
            }
            for b, (mu, sigma) in state.items()
        },
    }


def timing(labels: Sequence[str], records: Sequence[dict[str, Any]]) -> dict[str, Any]:
    """Measured think time per move of each bot (wall clock: varies from run to run)."""
    moves = dict.fromkeys(labels, 0)
    total = dict.fromkeys(labels, 0.0)
    worst = dict.fromkeys(labels, 0.0)
    wall = 0.0
    for rec in records:
        t = rec.get("time", {})
        wall += t.get("wall_ms", 0.0)
        for s, b in enumerate(rec["seats"]):
            moves[b] += rec["moves"][s]
            total[b] += t.get("ms_total", [0.0] * len(rec["seats"]))[s]
            worst[b] = max(worst[b], t.get("ms_max", [0.0] * len(rec["seats"]))[s])
    return {
        "bots": {
            b: {
                "moves": moves[b],
                "ms_per_move": total[b] / moves[b] if moves[b] else None,
                "ms_max": worst[b],
            }
            for b in labels
        },
        "game_wall_ms_total": wall,
    }


# --- luck-corrected scores (evaluation.luck) ------------------------------------------------
LUCK_LABEL = (
    "AIVAT luck-corrected returns (Burch et al., AAAI 2018): return minus the value changes of "
    "chance steps and of known-policy decisions beyond their expectation; same per-deal t "
    "intervals as the raw returns"
)


def _per_deal(records: Sequence[dict[str, Any]], label: str, corrected: bool) -> list[float]:
    """``label``'s mean (raw or corrected) return in each deal it played, in deal order."""
    acc: dict[int, list[float]] = defaultdict(list)
    for rec in records:
        values = rec["luck"]["corrected"] if corrected else rec["returns"]
        for s, b in enumerate(rec["seats"]):
            if b == label:
                acc[rec["deal"]].append(values[s])
    return [math.fsum(acc[d]) / len(acc[d]) for d in sorted(acc)]


def _sd(values: Sequence[float]) -> float | None:
    n = len(values)
    if n < 2:
        return None
    mean = math.fsum(values) / n
    return math.sqrt(math.fsum((v - mean) ** 2 for v in values) / (n - 1))


def pair_games(records: Sequence[dict[str, Any]], a: str, b: str) -> int:
    """How many of ``records`` seat both ``a`` and ``b``: the games behind ``pair_scores``."""
    return sum(1 for rec in records if a in rec["seats"] and b in rec["seats"])


def pair_scores(
    records: Sequence[dict[str, Any]], a: str, b: str, utility_range: float, corrected: bool
) -> list[float]:
    """Per deal, ``a``'s expected score against ``b`` from the return difference of the games
    where both sat: ``1/2 + (r_a - r_b) / (2 * range)`` (the win share, draws half, when the
    returns are win/loss/draw; with corrected returns its luck-corrected estimate)."""
    acc: dict[int, list[float]] = defaultdict(list)
    for rec in records:
        seats = rec["seats"]
        if a not in seats or b not in seats:
            continue
        values = rec["luck"]["corrected"] if corrected else rec["returns"]
        ra = [values[s] for s, x in enumerate(seats) if x == a]
        rb = [values[s] for s, x in enumerate(seats) if x == b]
        diff = math.fsum(ra) / len(ra) - math.fsum(rb) / len(rb)
        acc[rec["deal"]].append(0.5 + diff / (2.0 * utility_range))
    return [math.fsum(acc[d]) / len(acc[d]) for d in sorted(acc)]


def score_to_elo(score: float, games: int) -> float:
    """The logistic Elo difference of an expected score over ``games`` games.

    The score is smoothed with the pseudo-count of the table's Bradley-Terry fit
    (``ELO_SMOOTHING`` a side, as OpenSpiel's ``pyspiel.elo`` does): for two bots with
    win/draw/loss returns this is exactly the table's Elo, so every point printed for the same
    pair agrees, and a perfect record gives the table's finite figure, not an arbitrary clip.
    Scores outside [0, 1] (an interval end, a luck-corrected mean) count as 0 or 1.
    """
    score = min(max(score, 0.0), 1.0)
    smoothed = (score * games + ELO_SMOOTHING) / (games + 2.0 * ELO_SMOOTHING)
    return 400.0 * math.log10(smoothed / (1.0 - smoothed))


def elo_row(scores: list[float], games: int) -> dict[str, Any]:
    """Mean expected score with its per-deal 95% t interval (clipped to [0, 1], where the
    expected score lies), and both mapped to Elo by ``score_to_elo``: the "pairwise Elo"
    of the luck section and the SPRT line (``PAIRWISE_ELO_LABEL``)."""
    mean, ci = mean_ci(scores) if scores else (None, None)
    if mean is None:
        return {"score": None, "score_ci95": None, "elo": None, "elo_ci95": None}
    ci = [min(max(x, 0.0), 1.0) for x in ci] if ci else None
    return {
        "score": mean,
        "score_ci95": ci,
        "elo": score_to_elo(mean, games),
        "elo_ci95": [score_to_elo(ci[0], games), score_to_elo(ci[1], games)] if ci else None,
    }


def luck_summary(
    labels: Sequence[str],
    records: Sequence[dict[str, Any]],
    players: int,
    utility_range: float,
) -> dict[str, Any] | None:
    """Raw and luck-corrected means, intervals and ratings side by side, and the reduction.

    ``se_ratio`` is the corrected standard error over the raw one (per deal, the unit the
    intervals use), and ``games_ratio = se_ratio ** 2`` the share of games the corrected
    score needs for an interval of the same width. 2-player games also get Elo against the
    anchor (the first bot) from the mean expected score, raw and corrected, with intervals
    transformed from the score's t interval. ``None`` when the records carry no corrections.
    """
    if not records or any("luck" not in r for r in records):
        return None
    rows = []
    for b in labels:
        raw, cor = _per_deal(records, b, False), _per_deal(records, b, True)
        if not raw:
            rows.append({"label": b, "deals": 0})
            continue
        raw_mean, raw_ci = mean_ci(raw)
        cor_mean, cor_ci = mean_ci(cor)
        sd_raw, sd_cor = _sd(raw), _sd(cor)
        ratio = sd_cor / sd_raw if sd_raw and sd_cor is not None else None
        rows.append(
            {
                "label": b,
                "deals": len(raw),
                "mean_return": raw_mean,
                "mean_return_ci95": raw_ci,
                "corrected_mean_return": cor_mean,
                "corrected_mean_return_ci95": cor_ci,
                "se_ratio": ratio,
                "games_ratio": ratio**2 if ratio is not None else None,
            }
        )
    out: dict[str, Any] = {"label": LUCK_LABEL, "value": records[0]["luck"]["value"]}
    out["bots"] = rows
    if players == 2 and len(labels) >= 2:
        anchor = labels[0]
        elo = {anchor: {"raw": {"elo": 0.0, "elo_ci95": [0.0, 0.0]}, "corrected": None}}
        for b in labels[1:]:
            raw = pair_scores(records, b, anchor, utility_range, False)
            cor = pair_scores(records, b, anchor, utility_range, True)
            n = pair_games(records, b, anchor)
            raw_sd, cor_sd = _sd(raw), _sd(cor)
            elo[b] = {
                "raw": elo_row(raw, n),
                "corrected": elo_row(cor, n),
                "se_ratio": cor_sd / raw_sd if raw_sd and cor_sd is not None else None,
            }
        elo[anchor]["corrected"] = {"elo": 0.0, "elo_ci95": [0.0, 0.0]}
        out["elo"] = {
            "anchor": anchor,
            "label": PAIRWISE_ELO_LABEL,
            "bots": elo,
        }
    return out


def summarize(
    spec_json: dict[str, Any],
    records: Sequence[dict[str, Any]],
    planned: int,
    bootstrap: int = 1000,
    bootstrap_seed: int = 0,
    utility_range: float = 2.0,
) -> dict[str, Any]:
    """The whole summary (see ``docs/evaluation.md``); ``records`` sorted by index."""
    labels = [b["label"] for b in spec_json["bots"]]
    players = int(spec_json["params"]["players"])
    if players == 2:
        ratings = elo_ratings(labels, records, bootstrap, bootstrap_seed)
    else:
        ratings = openskill_ratings(labels, records)
    rows = bot_table(labels, records)
    for row, entry in zip(rows, spec_json["bots"], strict=True):
        row["spec"] = entry["spec"]
        rating = ratings["bots"].get(row["label"])
        row["rating"] = rating["rating"] if rating else None
        row["rating_ci95"] = rating["ci95"] if rating else None
    summary = {
        "tournament": spec_json,
        "games": {
            "planned": planned,
            "played": len(records),
            "complete": len(records) == planned,
            "deals_played": len({r["deal"] for r in records}),
        },
        "bots": rows,
        "seats": {"mean_return": seat_means(records)},
        "pairwise": pairwise(labels, records),
        "ratings": ratings,
        "timing": timing(labels, records),
    }
    luck = luck_summary(labels, records, players, utility_range)
    if luck is not None:
        summary["luck"] = luck
    return summary

"""What a search found at its root (``SearchResult``) and the hint made of it: the move, the
mixed policy of ``final_policy`` (``final_weights``) and each action's visits and value."""

from __future__ import annotations

import math
from dataclasses import dataclass

from bots.protocol import ActionStat, Hint, MoveStat

Z_95 = 1.959963984540054  # the normal quantile of a two-sided 95% interval


@dataclass
class SearchResult:
    """The root's statistics after a search."""

    actions: list[int]
    counts: list[int]
    means: list[float]  # mean return of the acting seat, in the game's units
    iterations: int
    elapsed_ms: float
    stopped_by: str
    worlds: int
    nodes: int
    effective_worlds: float | None = None  # Kish's effective size of the belief weights
    # The lowest and highest return of any seat seen in the search (game units).
    low: float = 0.0
    high: float = 0.0
    # Per root action: the UCB1 selections at the root that were also its greedy choice (the
    # highest mean at that moment), i.e. the visits without the exploration samples.
    greedy: list[int] | None = None
    # Per root action, from the root's moments (``tree.Moments``): the standard error of
    # ``means``, the mean first-place share of the mover and that mean's standard error.
    stderrs: list[float] | None = None
    shares: list[float] | None = None
    share_stderrs: list[float] | None = None
    # Per root action, the sum of the regret-matching strategies its draws followed
    # (``selection: regret``; ``None`` otherwise): the root's average strategy.
    average: list[float] | None = None


def standard_error(total: float, squares: float, n: int, bound: float) -> float:
    """The standard error of a mean of ``n`` samples from their sum and sum of squares; with
    fewer than two samples, ``bound`` (the largest standard deviation the samples can have)
    over ``sqrt(n)`` instead of nothing."""
    if n < 2:
        return bound / math.sqrt(n) if n else bound
    mean = total / n
    var = max(0.0, (squares - n * mean * mean) / (n - 1))
    return math.sqrt(var / n)


def move_table(result: SearchResult, best: int) -> list[MoveStat] | None:
    """The root's per-move first-place shares with standard errors and 95% intervals, and
    whether each is within noise of the move ``best`` (an index): the hint's table."""
    shares, ses = result.shares, result.share_stderrs
    if shares is None or ses is None:
        return None
    top, top_se = shares[best], ses[best]
    out = []
    for i, action in enumerate(result.actions):
        v, se = shares[i], ses[i]
        gap = top - v
        out.append(
            MoveStat(
                action,
                round(v, 6),
                round(se, 6),
                (round(max(0.0, v - Z_95 * se), 6), round(min(1.0, v + Z_95 * se), 6)),
                result.counts[i],
                i == best or gap <= Z_95 * math.sqrt(se * se + top_se * top_se),
                round(result.means[i], 6) if result.counts[i] else None,
            )
        )
    return out


def hint_from_result(result: SearchResult, final_policy: str = "visits") -> Hint:
    """The most visited action (ties: higher mean), and the policy ``final_policy`` reports
    (``final_weights``); each action's visits and mean value are reported alongside."""
    order = sorted(
        range(len(result.actions)),
        key=lambda i: (-result.counts[i], -result.means[i], result.actions[i]),
    )
    best = order[0]
    weights = final_weights(result, best, final_policy)
    total = sum(weights)
    policy = [
        ActionStat(
            result.actions[i],
            weights[i] / total,
            visits=result.counts[i],
            value=round(result.means[i], 6) if result.counts[i] else None,
        )
        for i in sorted(range(len(result.actions)), key=lambda i: result.actions[i])
    ]
    seconds = result.elapsed_ms / 1000.0
    return Hint(
        action=result.actions[best],
        policy=policy,
        value=round(result.means[best], 6),
        iterations=result.iterations,
        elapsed_ms=result.elapsed_ms,
        stopped_by=result.stopped_by,
        moves=move_table(result, best),
        extra={
            "worlds": result.worlds,
            "nodes": result.nodes,
            **(
                {"effective_worlds": result.effective_worlds}
                if result.effective_worlds is not None
                else {}
            ),
            "simulations_per_s": round(result.iterations / seconds, 1) if seconds else None,
        },
    )


# The normal quantile of ``final_policy: significant``: an action is dropped when its mean is
# below the played action's by more than this many standard errors.
SIGNIFICANCE_Z = 1.96


def final_weights(result: SearchResult, best: int, final_policy: str) -> list[float]:
    """Unnormalised weights of the hint's mixed policy over ``result.actions``. The search is
    the same for every rule and the move played (``best``, the most visited) always keeps a
    positive weight; an action never visited gets none.

    * ``visits``: the root's visit distribution (the paper's final policy).
    * ``p_value``: each action's visits times the two-sided p-value of "its mean equals the
      played action's" (1 when its mean is at least as high), by the normal approximation
      with each variance bounded from the range of returns seen (Bhatia-Davis inequality:
      at most (M - mu)(mu - m)). UCB1 keeps visiting an action its statistics already rule out
      for exploration's sake only (``c * sqrt(ln N / n)``); V. Lisý, V. Kovařík, M. Lanctot
      and B. Bošanský ("Convergence of Monte Carlo Tree Search in Simultaneous Move Games",
      NeurIPS 2013) take the mean strategy of the selection *with the exploration samples
      removed*, and this removes the visits in proportion to the evidence that they were
      exploration, without a threshold.
    * ``significant``: the same test as a threshold: the visits of the actions whose mean is
      not below the played action's by more than ``SIGNIFICANCE_Z`` standard errors.
    * ``welch``: ``significant``'s threshold with each action's *sample* standard error
      (``SearchResult.stderrs``, from the root's sums of squares; Welch's unequal-variance
      test) instead of the Bhatia-Davis bound, which is far above the real spread where most
      returns are the same (a draw, a round that changes nothing); as ``significant`` when
      the search kept no squares.
    * ``average``: the root's average regret-matching strategy (``selection: regret``,
      ``tree.regret_matching``), without its uniform exploration; visits when the search kept
      none (another selection) or its sum is 0.
    * ``greedy``: only the root's UCB1 selections that were also its greedy choice (no
      action's mean higher), the literal "exploration samples removed": the average of the
      search's best responses to its own estimates, as in fictitious play. Visits when the
      played action has no such selection.
    """
    counts = result.counts
    visits = [float(n) for n in counts]
    if final_policy == "average":
        average = result.average
        if average is None or average[best] <= 0.0:
            return visits
        return [a if n else 0.0 for a, n in zip(average, counts, strict=True)]
    if final_policy == "welch" and result.stderrs is not None:
        return _welch(result, best)
    if final_policy == "greedy":
        greedy = result.greedy
        return visits if greedy is None or greedy[best] <= 0 else [float(g) for g in greedy]
    if final_policy not in ("p_value", "significant", "welch") or result.high <= result.low:
        return visits  # no spread in the returns: no evidence against any action
    lo, hi, means = result.low, result.high, result.means
    top = means[best]
    top_var = (hi - top) * (top - lo) / counts[best]
    weights = []
    for i, n in enumerate(counts):
        gap = top - means[i]
        if i == best or n == 0 or gap <= 0.0:
            weights.append(float(n))
            continue
        se = math.sqrt(max(0.0, (hi - means[i]) * (means[i] - lo) / n + top_var))
        if final_policy != "p_value":
            weights.append(float(n) if gap <= SIGNIFICANCE_Z * se else 0.0)
        else:
            weights.append(n * math.erfc(gap / (se * math.sqrt(2.0))) if se > 0 else 0.0)
    return weights


def _welch(result: SearchResult, best: int) -> list[float]:
    """``final_policy: welch``: the visits of the actions whose mean is not below the played
    action's by more than ``SIGNIFICANCE_Z`` of the difference's sample standard error."""
    ses, means = result.stderrs, result.means
    top, top_se = means[best], ses[best]  # type: ignore[index]
    weights = []
    for i, n in enumerate(result.counts):
        gap = top - means[i]
        se = math.sqrt(ses[i] ** 2 + top_se**2)  # type: ignore[index]
        dropped = i != best and n > 0 and gap > 0.0 and gap > SIGNIFICANCE_Z * se
        weights.append(0.0 if dropped else float(n))
    return weights

"""The shape of an explained hint's figures (docs/api.md, "Explained hints").

A hint's ``explain.figures`` is an object of named figures, each::

    {"value": <number, object or list>, "exact": true|false, "label": "what it is"}

plus, for an estimate, ``"samples"`` (how many worlds or rollouts it averages) and
``"method"`` (how they were drawn). Probabilities that are exact carry their fraction too
(``{"p": 0.15, "fraction": "3/20"}``), so a reader can check them against a hand count.
This module is the one place that builds those pieces, for the games' own explanations
(``games/<game>/explain.py``: figures that need only the rules and the information set) and
for the bots' (``bots/explain``: figures under a bot's beliefs).
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any


def figure(value: Any, label: str, *, exact: bool = True, **extra: Any) -> dict[str, Any]:
    """One named figure: its value, whether it is exact, a label a player reads."""
    return {"value": value, "exact": exact, "label": label, **extra}


def estimate(value: Any, label: str, samples: int, method: str, **extra: Any) -> dict[str, Any]:
    """A figure averaged over ``samples`` sampled worlds or rollouts (``method`` says which)."""
    return figure(value, label, exact=False, samples=samples, method=method, **extra)


def chance(count: int, total: int) -> dict[str, Any]:
    """An exact probability ``count / total``: its value and its reduced fraction."""
    if total <= 0:
        return {"p": 0.0, "fraction": "0"}
    f = Fraction(count, total)
    return {"p": round(count / total, 6), "fraction": str(f)}


def percent(p: float) -> str:
    """``0.125`` as ``"12.5%"`` (whole percents when that is exact to one decimal)."""
    x = round(100.0 * p, 1)
    return f"{x:g}%"


def in_words(count: int, total: int) -> str:
    """``3, 20`` as ``"3 in 20 (15%)"``: how a player says a card-count chance."""
    if total <= 0:
        return "no card left"
    return f"{count} in {total} ({percent(count / total)})"


def counted(count: int, noun: str) -> str:
    """``1, "more card"`` as ``"1 more card"``, ``7`` as ``"7 more cards"``: a count and its noun
    in agreement (the plural adds an "s" to the last word, which fits every noun used here)."""
    return f"{count} {noun}" if abs(count) == 1 else f"{count} {noun}s"

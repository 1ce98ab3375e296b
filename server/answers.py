"""Answers of bounded size: big action ranges described compactly, long policies truncated.

A Modern Art bid step with ``money: 10000`` has 10,001 legal actions; listing each as id,
struct and string made a 3.4 MB validate answer and a 1.2 MB hint from a 1.9 KB request. Past
``COMPACT_ABOVE`` legal actions, each run of actions whose structs differ only in one whole
number that steps by one (with ids stepping by one) becomes one entry::

    {"range": {"field": "amount", "min": 1, "max": 10000}, "struct": {"type": "bid"},
     "ids": {"min": 53, "max": 10052}, "string": "bid 1 .. bid 10000", "count": 10000}

A client plays a value from the range as ``{"type": "bid", "amount": 37}``. A view with
compact ranges is accepted back in an information set (it is compared in the same form).
Smaller lists, which every default setting has, are left exactly as the games write them.
"""

from __future__ import annotations

from typing import Any

# Lists of at most this many legal actions are never compacted.
COMPACT_ABOVE = 512
# Runs shorter than this stay listed action by action.
MIN_RUN = 8
# A hint's policy lists at most this many actions (the chosen one always among them).
MAX_POLICY = 64
# No answer is larger than this once encoded (a game whose answers still are is refused).
MAX_ANSWER_BYTES = 1 << 20


def _varying_field(a: dict[str, Any], b: dict[str, Any]) -> str | None:
    """The one whole-number field by which struct ``b`` is struct ``a`` plus one, if any."""
    if a.keys() != b.keys():
        return None
    differing = [k for k in a if a[k] != b[k]]
    if len(differing) != 1:
        return None
    key = differing[0]
    x, y = a[key], b[key]
    if type(x) is int and type(y) is int and y == x + 1:
        return key
    return None


def compact_actions(actions: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """``actions`` (``{"id", "struct", "string"}`` each) with long runs as range entries."""
    if len(actions) <= COMPACT_ABOVE:
        return actions
    out: list[dict[str, Any]] = []
    i = 0
    while i < len(actions):
        j, field = i, None
        while j + 1 < len(actions):
            a, b = actions[j], actions[j + 1]
            if b["id"] != a["id"] + 1 or not isinstance(a["struct"], dict):
                break
            step = _varying_field(a["struct"], b["struct"])
            if step is None or (field is not None and step != field):
                break
            field, j = step, j + 1
        if field is not None and j - i + 1 >= MIN_RUN:
            first, last = actions[i], actions[j]
            out.append(
                {
                    "range": {
                        "field": field,
                        "min": first["struct"][field],
                        "max": last["struct"][field],
                    },
                    "struct": {k: v for k, v in first["struct"].items() if k != field},
                    "ids": {"min": first["id"], "max": last["id"]},
                    "string": f"{first['string']} .. {last['string']}",
                    "count": j - i + 1,
                }
            )
            i = j + 1
        else:
            out.append(actions[i])
            i += 1
    return out


def is_compacted(actions: Any) -> bool:
    return isinstance(actions, list) and any(isinstance(a, dict) and "range" in a for a in actions)


def compact_view(view: dict[str, Any]) -> dict[str, Any]:
    """The view with its ``legal_actions`` compacted (a copy when anything changes)."""
    legal = view.get("legal_actions")
    if not isinstance(legal, list) or len(legal) <= COMPACT_ABOVE:
        return view
    return {**view, "legal_actions": compact_actions(legal)}


def truncate_policy(policy: list[Any], chosen: int) -> tuple[list[Any], dict[str, Any] | None]:
    """At most ``MAX_POLICY`` policy entries (``ActionStat``): the most visited or likeliest,
    the chosen action always kept; and a summary of the rest (how many, their probability)."""
    if len(policy) <= MAX_POLICY:
        return policy, None
    ranked = sorted(
        policy, key=lambda s: (s.action != chosen, -(s.visits or 0), -s.probability, s.action)
    )
    keep = {s.action for s in ranked[:MAX_POLICY]}
    kept = [s for s in policy if s.action in keep]  # in the bot's own order
    rest = ranked[MAX_POLICY:]
    summary = {
        "omitted": len(rest),
        "probability": round(sum(s.probability for s in rest), 9),
        "visits": sum(s.visits or 0 for s in rest),
    }
    return kept, summary

"""Luck-corrected scores of a game record (AIVAT): the rules live in ``bots.luck``.

The review (``bots``, ``server``) splits a seat's result into luck and decisions with the same
machinery, and the layers let it import only downwards, so the one implementation sits in
``bots/luck.py``; tournaments and benchmarks keep importing these names from here.
"""

from __future__ import annotations

from bots.luck import (
    DEFAULT_VALUE,
    POLICIES,
    SCALES,
    SPLIT_VALUE,
    VALUES,
    InvalidLuckConfig,
    LuckRecorder,
    ValueEstimate,
    corrected_shares,
    known_policy,
    luck_config,
    luck_split,
)

__all__ = [
    "DEFAULT_VALUE",
    "POLICIES",
    "SCALES",
    "SPLIT_VALUE",
    "VALUES",
    "InvalidLuckConfig",
    "LuckRecorder",
    "ValueEstimate",
    "corrected_shares",
    "known_policy",
    "luck_config",
    "luck_split",
]

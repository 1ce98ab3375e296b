"""OpenSpiel's Deep CFR learns on the information-state tensor: NashConv falls (``-m slow``).

Needs the ``learning`` extra (torch); skipped without it outside CI.
"""

from __future__ import annotations

import importlib.util
import os
import sys
from pathlib import Path

import pytest

HAVE_TORCH = importlib.util.find_spec("torch") is not None and importlib.util.find_spec("tree")


@pytest.mark.slow
@pytest.mark.timeout(3600)
@pytest.mark.skipif(
    not HAVE_TORCH and os.environ.get("CI") != "true", reason="needs the learning extra"
)
def test_deep_cfr_nash_conv_falls_on_finger_auction_small():
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "examples"))
    from deep_cfr_finger_auction import nash_conv_curve

    curve = nash_conv_curve(iterations=20, checkpoints=4)
    start, end = curve[0][1], curve[-1][1]
    # Measured: 1.167 (uniform), 1.170, 1.006, 0.920, 0.958 after 5, 10, 15, 20 iterations.
    assert end < 0.9 * start, curve

"""The one seed derivation: every seed that is computed from other seeds comes from here.

A tournament's deal and game seeds, a game's per-move bot seeds, an exploitability run's deals
and a value estimate's rollout streams are all ``derive_seed(parent, "what", index, ...)``.
One rule keeps two derived streams from colliding by accident (as ``seed * 7919 + 1`` and
``seed ^ 0x5EED`` schemes can) and keeps them stable across processes, machines and Python
versions.
"""

from __future__ import annotations

import hashlib


def derive_seed(*parts: object) -> int:
    """A 63-bit seed from the parts, stable across processes, machines and Python versions.

    Python's ``hash`` is salted per process, so seeds are cut from a BLAKE2b digest of the
    parts' ``str`` joined by ``:`` instead. Pinned by ``tests/test_tournament.py``: changing it
    would silently change every published tournament.
    """
    text = ":".join(str(p) for p in parts).encode()
    return int.from_bytes(hashlib.blake2b(text, digest_size=8).digest(), "big") >> 1

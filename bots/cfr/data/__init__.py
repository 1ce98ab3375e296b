"""Stored CFR solutions (JSON); regenerate with ``python -m bots.cfr.solve``."""

"""Bots by name: ``make_bot({"name": "ismcts", "options": {...}})``.

Specs are plain JSON data, so they cross process boundaries (worker pools, Dask) and HTTP.
"""

from __future__ import annotations

from typing import Any

from bots.cfr.bots import CFRBot, OOSBot
from bots.designs import DESIGN_BOTS
from bots.heuristic_bot import HeuristicBot
from bots.ismcts import IsmctsBot
from bots.levels import LevelBot
from bots.profiles.bot import ProfiledBot
from bots.protocol import Bot, InvalidBotSpec
from bots.random_bot import RandomBot

BOTS: dict[str, type[Bot]] = {
    cls.name: cls
    for cls in (
        RandomBot,
        HeuristicBot,
        ProfiledBot,
        IsmctsBot,
        CFRBot,
        OOSBot,
        LevelBot,
        *DESIGN_BOTS,
    )
}


def make_bot(spec: Any) -> Bot:
    """Builds a bot from ``{"name": ..., "options": {...}}`` (or just a name string)."""
    cls, options = _parse(spec)
    return cls(**options)


def normalised_spec(spec: Any) -> dict[str, Any]:
    """``make_bot(spec).spec()`` (defaults filled, ``InvalidBotSpec`` if wrong), without
    building the bot where its class takes the base ``Bot``'s options and spec as they are: the
    web process checks a spec this way, and only the worker that moves builds the bot."""
    cls, options = _parse(spec)
    if cls.__init__ is Bot.__init__ and cls.spec is Bot.spec:
        return {"name": cls.name, "options": cls.validate_options(options)}
    return cls(**options).spec()


def build_checked(spec: dict[str, Any]) -> Bot:
    """The bot of a spec ``normalised_spec`` returned (in another process, maybe), built
    without parsing the spec again: the service's workers build their bot this way."""
    return BOTS[spec["name"]](**spec.get("options", {}))


def _parse(spec: Any) -> tuple[type[Bot], dict[str, Any]]:
    """The bot class and the options of a spec (a name, or ``{"name", "options"}``)."""
    if isinstance(spec, str):
        spec = {"name": spec}
    if not isinstance(spec, dict):
        raise InvalidBotSpec('a bot spec must be an object like {"name": "random"}')
    extra = sorted(set(spec) - {"name", "options"})
    if extra:
        raise InvalidBotSpec(f"unknown bot spec field '{extra[0]}'")
    name = spec.get("name")
    if not isinstance(name, str) or name not in BOTS:
        raise InvalidBotSpec(f"unknown bot {name!r}; known: {sorted(BOTS)}")
    options = spec.get("options", {})
    if not isinstance(options, dict):
        raise InvalidBotSpec("bot 'options' must be an object")
    return BOTS[name], options


def bot_catalog() -> list[dict[str, Any]]:
    """Every bot with its options, for the docs and the service's listing."""
    return [
        {
            "name": cls.name,
            "description": cls.description,
            "options": [o.to_json() for o in cls.options],
        }
        for cls in BOTS.values()
    ]

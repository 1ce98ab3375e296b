"""The hint service: what to compute for a hint or a validation, and running it in the pool.

Everything that decides *what* a worker computes (the game, validated parameters, the bot spec,
the effective budget, the derived seed, the cache key) lives here, so that stateless hints and
the bots of hosted matches go through exactly the same path. The request is checked once, in
this process (game, parameters, envelope, bot, budget), into a ``server.tasks.CheckedHint``,
which is what crosses to the worker; the worker checks none of it again and replays the
information set once (``server.tasks``).
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field
from typing import Any

import bots
import games
from games.core.infoset import CANONICAL_KEYS, check_envelope
from games.core.seeds import derive_seed
from server.cache import ResultCache, canonical, digest
from server.config import ServiceConfig
from server.errors import ApiError, NotFound, Unprocessable, api_error_for
from server.pool import PoolError, SearchPool
from server.schemas import MAX_SEED, BudgetIn
from server.tasks import CheckedHint

# Bot options that hold opponent profiles (bots.profiles): checked against the game here.
PROFILE_OPTIONS = ("opponents", "tendencies")


@dataclass
class Effective:
    """The budget a request gets, and the warnings about how it differs from the one asked."""

    budget: bots.Budget
    warnings: list[str] = field(default_factory=list)


class HintService:
    """Hints and validation for any information set; the bots of hosted matches use it too."""

    def __init__(self, pool: SearchPool, cache: ResultCache, config: ServiceConfig) -> None:
        self.pool = pool
        self.cache = cache
        self.config = config

    # --- inputs ------------------------------------------------------------------------------
    def definition(self, name: str) -> games.GameDefinition:
        defn = games.DEFINITIONS.get(name)
        if defn is None:
            raise NotFound(
                f"unknown game {name!r}; known: {sorted(games.DEFINITIONS)}",
                code="unknown_game",
                detail={"field": "game", "known": sorted(games.DEFINITIONS)},
            )
        return defn

    def default_bot(self) -> str:
        for name in self.config.default_bots:
            if name in bots.BOTS:
                return name
        return sorted(bots.BOTS)[0]

    def bot_spec(self, spec: Any, field: str = "bot") -> dict[str, Any]:
        """The normalised spec (``{"name", "options"}`` with defaults filled) or 422."""
        if spec is None:
            spec = self.default_bot()
        try:
            return bots.normalised_spec(spec)  # checked without building the bot
        except bots.InvalidBotSpec as err:
            raise Unprocessable(
                f"{field}: {err}", code="invalid_bot", detail={"field": field}
            ) from None

    @staticmethod
    def with_profiles(
        spec: dict[str, Any],
        profiles: dict[str, Any] | None,
        defn: games.GameDefinition,
        params: dict[str, Any],
    ) -> dict[str, Any]:
        """The bot spec with a hint request's ``profiles`` as its ``opponents`` option (so the
        profiles reach the bot and are part of the cache key, which holds the spec), every
        profile in it checked against the game and its seats: 422 naming the wrong seat,
        tendency or value."""
        if profiles is not None:
            names = {o.name for o in bots.BOTS[spec["name"]].options}
            if "opponents" not in names:
                users = sorted(
                    n for n, c in bots.BOTS.items() if "opponents" in {o.name for o in c.options}
                )
                raise Unprocessable(
                    f"profiles: bot {spec['name']!r} does not model opponents; bots that take "
                    f"profiles: {users}",
                    code="invalid_profiles",
                    detail={"field": "profiles"},
                )
            if spec["options"].get("opponents"):
                raise Unprocessable(
                    "profiles: the bot's option 'opponents' already gives profiles; give them "
                    "in one place",
                    code="invalid_profiles",
                    detail={"field": "profiles"},
                )
            spec = {**spec, "options": {**spec["options"], "opponents": profiles}}
        return checked_profiles(spec, defn, params, "profiles" if profiles is not None else "bot")

    def check_available(
        self, spec: dict[str, Any], defn: games.GameDefinition, params: dict[str, Any], field: str
    ) -> None:
        """422 ``bot_unavailable`` if the bot cannot play this game with these parameters."""
        cls = bots.BOTS[spec["name"]]
        reason = cls.unavailable_reason(defn, params)
        if reason is not None:
            raise Unprocessable(
                f"{field}: bot {spec['name']!r} cannot play {defn.name} with these parameters: "
                f"{reason}",
                code="bot_unavailable",
                detail={"field": field, **(cls.unavailable_detail(defn, params) or {})},
            )

    def budget(self, given: BudgetIn | None, default_ms: float | None = None) -> Effective:
        """The effective budget: the client's, capped; always with a time limit.

        A simulations-only budget still gets the configured maximum time, so every search has
        a deadline the pool can enforce. A capped value is reported in ``warnings``.
        """
        cfg = self.config
        if given is None or (given.simulations is None and given.milliseconds is None):
            if given is not None:
                raise Unprocessable(
                    "budget: give 'simulations' or 'milliseconds' (or both)",
                    code="invalid_budget",
                    detail={"field": "budget"},
                )
            ms = min(default_ms or cfg.default_budget_ms, cfg.max_budget_ms)
            return Effective(bots.Budget(milliseconds=ms))
        warnings = []
        sims = given.simulations
        if sims is not None and sims > cfg.max_simulations:
            warnings.append(
                f"budget.simulations {sims} is above this server's cap; {cfg.max_simulations} used"
            )
            sims = cfg.max_simulations
        ms = given.milliseconds or cfg.max_budget_ms
        if given.milliseconds is not None and ms > cfg.max_budget_ms:
            warnings.append(
                f"budget.milliseconds {given.milliseconds:g} is above this server's cap; "
                f"{cfg.max_budget_ms:g} used"
            )
        ms = min(ms, cfg.max_budget_ms)
        return Effective(bots.Budget(simulations=sims, milliseconds=ms), warnings)

    def deadline(self, budget: bots.Budget) -> float:
        """Seconds a worker may take: the budget plus the configured margin."""
        ms = budget.milliseconds or self.config.max_budget_ms
        return (ms + self.config.deadline_margin_ms) / 1000.0

    def params_for(
        self, defn: games.GameDefinition, given: dict[str, Any] | None, infoset: dict[str, Any]
    ) -> dict[str, Any]:
        """Validated parameters: the request's, else the infoset's own.

        The infoset's game is checked first: another game's information set would otherwise be
        diagnosed by its parameters, which say less.
        """
        game = infoset.get("game")
        if game != defn.name:
            raise Unprocessable(
                f"field 'infoset.game' is {game!r}, expected {defn.name!r}",
                code="invalid_infoset",
                detail={"field": "infoset.game"},
            )
        if given is not None:
            field_name, raw = "params", given
        else:
            field_name, raw = "infoset.params", infoset.get("params")
            if not isinstance(raw, dict):
                raise Unprocessable(
                    "field 'infoset.params' must be an object (the game's parameters)",
                    code="invalid_infoset",
                    detail={"field": "infoset.params"},
                )
        try:
            return defn.validate_params(raw)
        except games.InvalidParams as err:
            raise Unprocessable(
                f"{field_name}: {err}", code="invalid_params", detail={"field": field_name}
            ) from None

    def check_infoset(
        self,
        defn: games.GameDefinition,
        params: dict[str, Any],
        infoset: dict[str, Any],
        own_params: dict[str, Any] | None = None,
    ) -> None:
        """The envelope check (cheap, in this process); the replay happens in the worker.

        ``own_params``: the infoset's own parameters, when ``params_for`` validated them.
        """
        try:
            check_envelope(defn, params, infoset, own_params)
        except games.InvalidInfoset as err:
            raise Unprocessable(
                f"infoset: {err}", code="invalid_infoset", detail={"field": "infoset"}
            ) from None

    def checked_params(
        self, defn: games.GameDefinition, given: dict[str, Any] | None, infoset: dict[str, Any]
    ) -> dict[str, Any]:
        """``params_for`` and the envelope check, each input's parameters validated once."""
        params = self.params_for(defn, given, infoset)
        self.check_infoset(defn, params, infoset, params if given is None else None)
        return params

    # --- running tasks -----------------------------------------------------------------------
    def run(self, kind: str, payload: dict[str, Any], deadline: float) -> dict[str, Any]:
        """Runs a task in the pool; pool failures and worker-side errors become ``ApiError``."""
        try:
            result = self.pool.run(kind, payload, deadline)
        except PoolError as err:
            raise api_error_for(err) from None
        if "error" in result:
            e = result["error"]
            raise ApiError(
                e["message"],
                status=e.get("status", 500),
                code=e.get("code", "internal"),
                detail=e.get("detail"),
            )
        return result["ok"]

    def hint(
        self,
        game: str,
        infoset: dict[str, Any],
        *,
        params: dict[str, Any] | None = None,
        bot: Any = None,
        budget: BudgetIn | None = None,
        seed: int | None = None,
    ) -> dict[str, Any]:
        """A hint for ``infoset`` (cached); the answer says whether it came from the cache."""
        return self.hint_answer(game, infoset, params=params, bot=bot, budget=budget, seed=seed)[0]

    def hint_answer(
        self,
        game: str,
        infoset: dict[str, Any],
        *,
        params: dict[str, Any] | None = None,
        bot: Any = None,
        budget: BudgetIn | None = None,
        seed: int | None = None,
        raw_key: str | None = None,
        profiles: dict[str, Any] | None = None,
    ) -> tuple[dict[str, Any], bytes]:
        """The hint as a dict and as JSON text (a cache hit costs no encoding at all).

        ``raw_key`` (a digest of the exact request bytes) is stored next to the canonical key,
        so that the same bytes again are answered without parsing (see ``api.games.hint``).
        """
        defn = self.definition(game)
        full_params = self.checked_params(defn, params, infoset)
        spec = self.with_profiles(self.bot_spec(bot), profiles, defn, full_params)
        self.check_available(spec, defn, full_params, "bot")
        effective = self.budget(budget)
        request = {
            "game": defn.name,
            "version": defn.version,
            "params": full_params,
            # The view is not canonical, but when present it must match the replay: keep it in
            # the key so that a wrong view is never answered from the cache.
            "infoset": {k: infoset[k] for k in (*CANONICAL_KEYS, "view") if k in infoset},
            "bot": spec,
            "budget": effective.budget.to_json(),
        }
        text = canonical(request)
        if seed is None:
            seed = derive_seed("hint", text) % (MAX_SEED + 1)  # the same request, the same seed
        key = "hint:" + hashlib.sha256(f"{text}#seed={seed}".encode()).hexdigest()
        hit = self.cache.get(key)
        if hit is not None:
            if raw_key is not None:
                self.cache.put(raw_key, hit)
            return hit
        checked = CheckedHint(defn.name, full_params, infoset, spec, effective.budget, seed)
        result = self.run("hint", checked.to_payload(), self.deadline(effective.budget))
        answer = {
            "game": defn.name,
            "seat": infoset["seat"],
            **result,
            "seed": seed,
            "bot": spec,
            "budget": effective.budget.to_json(),
        }
        if effective.warnings:
            answer["warnings"] = effective.warnings
        # One encoding serves both answers: they differ only in the trailing "cached" flag.
        head = json.dumps(answer, separators=(",", ":")).encode()[:-1]
        if "degraded" not in answer:  # an under-searched answer is not kept (server.warmup)
            hit_body = head + b',"cached":true}'
            self.cache.put(key, ({**answer, "cached": True}, hit_body))
            if raw_key is not None:
                self.cache.put(raw_key, ({**answer, "cached": True}, hit_body))
        return {**answer, "cached": False}, head + b',"cached":false}'

    def validate(
        self, game: str, infoset: dict[str, Any], params: dict[str, Any] | None = None
    ) -> dict[str, Any]:
        """Replays the infoset in a worker: whose turn it is and the seat's legal actions."""
        defn = self.definition(game)
        full_params = self.checked_params(defn, params, infoset)
        payload = {"game": defn.name, "params": full_params, "infoset": infoset}
        key = "validate:" + digest(payload)
        cached = self.cache.get(key)
        if cached is not None:
            return cached
        result = self.run("validate", payload, self.config.validate_timeout_ms / 1000.0)
        self.cache.put(key, result)
        return result


def checked_profiles(
    spec: dict[str, Any], defn: games.GameDefinition, params: dict[str, Any], field: str
) -> dict[str, Any]:
    """``spec`` with its profile options (``PROFILE_OPTIONS``) checked against the game and
    its seats and written one way (seats as strings, values as numbers), so equal profiles
    give one cache key; 422 ``invalid_profiles`` naming what is wrong. A bot option is
    checked only for its shape when the spec is parsed (the game is not known then)."""
    from bots.profiles.tendencies import InvalidProfile, check_profile, check_seat_profiles

    options = spec.get("options", {})
    if not any(options.get(name) for name in PROFILE_OPTIONS):
        return spec
    try:
        out = dict(options)
        if options.get("opponents"):
            seats = check_seat_profiles(defn.name, options["opponents"], params["players"], field)
            out["opponents"] = {str(s): p for s, p in sorted(seats.items())}
        if options.get("tendencies"):
            out["tendencies"] = check_profile(defn.name, options["tendencies"], field)
    except InvalidProfile as err:
        raise Unprocessable(str(err), code="invalid_profiles", detail={"field": field}) from None
    return {**spec, "options": out}

"""Playing strength: seeded matches per pairing, seats rotated, win shares with 95% intervals.

Pairings (bot A against bot B), for every game:

* ``ismcts-vs-random``: ISMCTS at ``--simulations`` (default 1000) per move against random;
* ``ismcts-vs-heuristic``: the same ISMCTS against the game's heuristic bot;
* ``ismcts-vs-openspiel``: our ISMCTS against OpenSpiel's Python ``ISMCTSBot`` (resampling with
  ``games.sample_state``) at equal wall time per move (``--milliseconds``);
* ``heuristic-vs-random`` (a reference, only on request): how far the heuristic alone gets;
* ``ismcts-vs-legacy`` (on request): ISMCTS against the ISMCTS of commit a322b0d (the
  documented baseline ``evaluation.baselines.ISMCTS_LEGACY``) at the same budget, so at equal time
  with a time budget. ``--legacy-budget`` gives the old search a budget of its own instead:
  with ``--ismcts-options`` set to the old search's options too, a row measures what more
  time alone is worth to one search (the headroom of a faster search at the same moves).

Every game runs at each of ``--players`` (default: every player count it supports) and each
``--budget`` (simulations, or milliseconds a move such as the service's default ``500ms``).

Bot A sits in one seat and bot B in all the others; each deal (a seed for chance and the bots)
is played once with A in every seat, so seat advantages cancel. A's score in one game is its
share of first place: 1 for winning alone, 1/k when k seats share the best return, 0
otherwise; in two-player games that is the usual win share with draws counted half. The
uniform rate (what A would score if it were no better than B) is 1/players. Intervals are
Wilson score intervals at 95%.

``games_file`` (``--games-file``) keeps every finished game as a JSON line (its seats, seeds,
score and actions); a rerun with the same file plays only the games it lacks, so a long run
that is stopped resumes, and the table can be rebuilt from the file alone. ``stored_only``
(``--stored-only``) rebuilds it without playing: a row whose games are not all in the file
raises ``MissingGames`` instead of playing them, and the file is not written, so a table in
the docs can be checked against its games (``tests/test_docs_strength.py``).

``luck_corrected`` (``--luck-corrected``) adds AIVAT's luck-corrected first-place share
(``evaluation.luck.corrected_shares``: every chance step's effect on a rollout estimate of the
share, minus its expectation, is subtracted) next to the raw one, with a t interval over deals
and the ratio of standard errors, so a row reads how many fewer games the corrected score
needs for the same interval. It is computed from each game's recorded actions, so it can be
added to games already played. Only games with a rollout value estimate take it (Gallery
Rush, Detective Eye, Finger Auction; not Modern Art, whose default estimate is its heuristic
evaluation).
"""

from __future__ import annotations

import json
import math
import random
import statistics
import sys
import time
from collections.abc import Callable
from concurrent.futures import Executor, ProcessPoolExecutor, as_completed
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import pyspiel

import games
from bots import Budget, make_bot, search_clock
from evaluation.baselines import ISMCTS_LEGACY
from evaluation.tournament.stats import win_shares
from games.core.episode import Step, play_episode, sampled_chance
from games.core.infoset import build_infoset
from games.core.seeds import derive_seed

PAIRINGS = ("ismcts-vs-random", "ismcts-vs-heuristic", "ismcts-vs-openspiel")
# Reference pairings, run only when asked for.
REFERENCE_PAIRINGS = ("heuristic-vs-random", "ismcts-vs-legacy")
ALL_PAIRINGS = (*PAIRINGS, *REFERENCE_PAIRINGS)


@dataclass(frozen=True)
class Seat:
    """Who plays a seat: a bot spec with a budget, or OpenSpiel's ISMCTS (``spec`` None)."""

    label: str
    spec: dict[str, Any] | None
    simulations: int | None = None
    milliseconds: float | None = None
    clock: str = "wall"  # what ``milliseconds`` count (``bots.search_clock``)

    def key(self) -> dict[str, Any]:
        """The seat as a games file keys it: ``clock`` only when not wall time, so that the
        games stored before there was a choice keep their keys."""
        fields = asdict(self)
        if self.clock == "wall":
            del fields["clock"]
        return fields


def seats_for(
    pairing: str,
    budget: int | dict[str, float | int | str],
    milliseconds: float,
    options: dict[str, Any] | None = None,
    legacy_budget: dict[str, float | int | str] | None = None,
) -> tuple[Seat, Seat]:
    """Bot A and bot B of a pairing; ``budget`` is A's (simulations, or a budget dict).

    ``legacy_budget`` is the old search's in ``ismcts-vs-legacy`` (default: A's). Bot A is
    labelled as the old search when its options are the old search's.
    """
    if isinstance(budget, int):
        budget = {"simulations": budget}
    sims, ms = budget.get("simulations"), budget.get("milliseconds")
    spec = {"name": "ismcts", "options": dict(options or {})}
    label = ISMCTS_LEGACY.label if spec == ISMCTS_LEGACY.spec() else "ismcts"
    ours = Seat(label, spec, sims, ms, str(budget.get("clock", "wall")))  # type: ignore[arg-type]
    if pairing == "ismcts-vs-random":
        return ours, Seat("random", {"name": "random"}, simulations=1)
    if pairing == "ismcts-vs-heuristic":
        return ours, Seat("heuristic", {"name": "heuristic"}, simulations=1)
    if pairing == "ismcts-vs-legacy":
        old = legacy_budget or budget
        return ours, Seat(
            ISMCTS_LEGACY.label,
            ISMCTS_LEGACY.spec(),
            simulations=old.get("simulations"),  # type: ignore[arg-type]
            milliseconds=old.get("milliseconds"),
            clock=str(old.get("clock", "wall")),
        )
    if pairing == "heuristic-vs-random":
        return (
            Seat("heuristic", {"name": "heuristic"}, simulations=1),
            Seat("random", {"name": "random"}, simulations=1),
        )
    if pairing == "ismcts-vs-openspiel":
        return (
            Seat("ismcts", spec, milliseconds=milliseconds),
            Seat("openspiel-ismcts", None, milliseconds=milliseconds),
        )
    raise ValueError(f"unknown pairing {pairing!r}; known: {[*PAIRINGS, *REFERENCE_PAIRINGS]}")


def _chooser(seat: Seat, game: pyspiel.Game) -> Callable[[Any, int], tuple[int, int | None]]:
    """The seat's move and the simulations it took (``None`` where the bot does not say:
    OpenSpiel's ISMCTS)."""
    defn, params = game.definition, game.params
    if seat.spec is None:
        from evaluation.bench.spiel_ismcts import make_spiel_ismcts

        def spiel_choose(engine: Any, seed: int) -> tuple[int, int | None]:
            bot = make_spiel_ismcts(game, seed, milliseconds=seat.milliseconds)
            return int(bot.step(game.state_from_engine(engine))), None

        return spiel_choose
    bot = make_bot(seat.spec)
    budget = Budget(seat.simulations, seat.milliseconds)

    def choose(engine: Any, seed: int) -> tuple[int, int | None]:
        infoset = build_infoset(defn, params, engine, engine.current_player())
        with search_clock.measured_by(seat.clock):
            hint = bot.hint(defn, params, infoset, budget, seed)
        return hint.action, hint.iterations

    return choose


def play_one(
    name: str,
    params: dict[str, Any],
    a: Seat,
    b: Seat,
    a_seat: int,
    deal_seed: int,
    luck: bool = False,
) -> dict[str, Any]:
    """One game with A in ``a_seat`` and B elsewhere; A's score, timing and the actions.

    With ``luck``, also A's luck-corrected share (``luck_share``).
    """
    game = pyspiel.load_game(name, params)
    choose_a, choose_b = _chooser(a, game), _chooser(b, game)
    engine = game.definition.new_engine(game.params)
    seeds = random.Random(deal_seed * 7919 + 1)
    moves = [0, 0]
    thinking = [0.0, 0.0]
    simulations: list[int | None] = [0, 0]

    def choose(engine: Any, player: int, _: int) -> int:
        side = 0 if player == a_seat else 1
        started = time.perf_counter()
        action, iterations = (choose_a if side == 0 else choose_b)(engine, seeds.getrandbits(62))
        thinking[side] += time.perf_counter() - started
        moves[side] += 1
        so_far = simulations[side]
        simulations[side] = None if so_far is None or iterations is None else so_far + iterations
        return action

    history: list[int] = []

    def record(_: Any, step: Step) -> None:
        history.append(step.action)

    play_episode(engine, choose, sampled_chance(random.Random(deal_seed)), record)
    result = {
        "score": win_shares(engine.returns())[a_seat],
        "moves": moves,
        "thinking_s": thinking,
        "simulations": simulations,
        "history": history,
    }
    if luck:
        result["luck"] = luck_share(name, params, history, a_seat, deal_seed)
    return result


def luck_share(
    name: str, params: dict[str, Any], history: list[int], a_seat: int, deal_seed: int
) -> dict[str, Any]:
    """A's luck-corrected first-place share in a recorded game, with the game's default
    value estimate (``evaluation.luck.DEFAULT_VALUE``) and rollout streams seeded by the deal
    (the same corrections whichever seat A had)."""
    from evaluation.luck import corrected_shares, luck_config

    defn = games.definition(name)
    out = corrected_shares(defn, params, history, luck_config(name), derive_seed(deal_seed, "luck"))
    return {
        "corrected": out["corrected"][a_seat],
        "chance": out["chance"][a_seat],
        "steps": out["steps"]["chance"],
        "value": out["value"],
    }


class MissingGames(ValueError):
    """A table rebuilt from its games file alone (``stored_only``) lacks some of its games."""


def luck_supported(name: str) -> bool:
    """Whether the game's default value estimate has the first-place share scale."""
    from evaluation.luck import luck_config

    return luck_config(name)["value"] == "rollout"


class GamesFile:
    """The finished games of a run as JSON lines, keyed by everything that fixes a game.

    A game's key is its game, parameters, pairing, both seats, A's seat and the deal seed:
    with a budget in simulations the same key replays the same game, so a stored game is
    never played again; a line that does not parse (a run killed mid-write) is ignored.
    """

    def __init__(self, path: Path | None) -> None:
        self.path = path
        self.games: dict[str, dict[str, Any]] = {}
        if path is not None and path.exists():
            for line in path.read_text().splitlines():
                try:
                    record = json.loads(line)
                    self.games[record["key"]] = record
                except (ValueError, KeyError, TypeError):
                    continue

    @staticmethod
    def key(job: tuple) -> str:
        name, params, a, b, a_seat, deal_seed = job[:6]
        return json.dumps([name, params, a.key(), b.key(), a_seat, deal_seed], sort_keys=True)

    def get(self, job: tuple) -> dict[str, Any] | None:
        return self.games.get(self.key(job))

    def put(self, job: tuple, result: dict[str, Any], write: bool = True) -> None:
        record = {"key": self.key(job), **result}
        self.games[record["key"]] = record
        if write and self.path is not None:
            with self.path.open("a") as fh:
                fh.write(json.dumps(record) + "\n")


def wilson(mean: float, n: int, z: float = 1.96) -> tuple[float, float]:
    """Wilson score interval for a share ``mean`` observed over ``n`` games."""
    if n == 0:
        return 0.0, 1.0
    denom = 1 + z * z / n
    centre = (mean + z * z / (2 * n)) / denom
    half = z * math.sqrt(mean * (1 - mean) / n + z * z / (4 * n * n)) / denom
    return max(0.0, centre - half), min(1.0, centre + half)


def target_for(pairing: str, players: int) -> tuple[str, Callable[[float], bool]]:
    """The issue's target for a pairing, as text and as a test on the score."""
    uniform = 1.0 / players
    if pairing in ("ismcts-vs-random", "heuristic-vs-random"):
        if players == 2:
            return "win share >= 0.9", lambda s: s >= 0.9
        return f"first place >= {2 * uniform:.3f} (2x uniform)", lambda s: s >= 2 * uniform
    if pairing == "ismcts-vs-heuristic":
        return f"first place > {uniform:.3f} (uniform)", lambda s: s > uniform
    if pairing == "ismcts-vs-legacy" and players == 2:
        return "win share >= 0.55", lambda s: s >= 0.55
    if players == 2:
        return "win share >= 0.65", lambda s: s >= 0.65
    return f"first place > {uniform:.3f} (uniform)", lambda s: s > uniform


def parse_budget(text: str) -> dict[str, float | int | str]:
    """``"1000"`` (simulations a move), ``"500ms"`` (milliseconds a move, wall time, as the
    service counts them) or ``"500ms-cpu"`` (milliseconds of the searching thread's CPU time:
    the search a quiet core gives in 500 ms, whatever the machine's load; ``bots.search_clock``).
    """
    text = text.strip().lower()
    try:
        if text.endswith("ms-cpu"):
            value = float(text[: -len("ms-cpu")])
            if value > 0:
                return {"milliseconds": value, "clock": "cpu"}
        elif text.endswith("ms"):
            value = float(text[:-2])
            if value > 0:
                return {"milliseconds": value}
        elif int(text) >= 1:
            return {"simulations": int(text)}
    except ValueError:
        pass
    raise ValueError(
        "a budget is a number of simulations ('1000'), milliseconds ('500ms') or milliseconds "
        f"of CPU time ('500ms-cpu'), got {text!r}"
    )


def budget_label(budget: dict[str, float | int | str]) -> str:
    if "milliseconds" in budget:
        cpu = " of CPU" if budget.get("clock") == "cpu" else ""
        return f"{budget['milliseconds']:g} ms{cpu}"
    return f"{budget['simulations']} sims"


def player_counts(name: str) -> list[int]:
    """Every player count the game supports (its ``players`` parameter's range)."""
    spec = next(s for s in games.definition(name).param_specs if s.name == "players")
    low = spec.min if spec.min is not None else spec.default
    high = spec.max if spec.max is not None else spec.default
    return list(range(low, high + 1))


def run(
    names: list[str] | None = None,
    games_per_pairing: int = 12,
    pairings: tuple[str, ...] = PAIRINGS,
    simulations: int = 1000,
    milliseconds: float = 200.0,
    seed: int = 0,
    params: dict[str, Any] | None = None,
    workers: int = 1,
    progress: Callable[[str], None] | None = None,
    ismcts_options: dict[str, Any] | None = None,
    players: list[int] | None = None,
    budgets: list[dict[str, float | int | str]] | None = None,
    min_games: dict[str, int] | None = None,
    on_row: Callable[[dict[str, Any]], None] | None = None,
    games_file: Path | None = None,
    luck_corrected: bool = False,
    legacy_budget: dict[str, float | int | str] | None = None,
    stored_only: bool = False,
) -> dict[str, Any]:
    """Plays every pairing in every game, player count and budget; returns the JSON report.

    ``ismcts_options`` are the options of our ISMCTS bot (default: its defaults). ``players``
    (default: the ``players`` of ``params``, else the game's default) lists player counts;
    a count a game does not support is skipped. ``budgets`` are the budgets of bot A a move
    (default: ``simulations``); ``ismcts-vs-openspiel`` always uses ``milliseconds`` for
    both, and ``ismcts-vs-legacy`` gives both bots the row's budget (equal time with a time
    budget) unless ``legacy_budget`` gives it its own. ``min_games`` raises the number of
    games per row for some games. Every row of a game and player count plays the same seeded
    deals, each once with A in every seat.
    ``games_file`` stores and reuses finished games; ``luck_corrected`` adds the corrected
    share to every row of a game that supports it (``luck_supported``). ``stored_only`` plays
    nothing: every game must be in ``games_file`` (else ``MissingGames``), which is not written.
    """
    if stored_only and games_file is None:
        raise ValueError("stored_only rebuilds a table from a games file: give games_file")
    names = names or sorted(games.DEFINITIONS)
    budgets = budgets or [{"simulations": simulations}]
    report: dict[str, Any] = {
        "seed": seed,
        "games_per_pairing": games_per_pairing,
        "simulations": simulations,
        "milliseconds": milliseconds,
        "budgets": budgets,
        "legacy_budget": legacy_budget,
        "ismcts_options": dict(ismcts_options or {}),
        "luck_corrected": luck_corrected,
        "games": {},
        "rows": [],
    }
    executor: Executor | None = ProcessPoolExecutor(workers) if workers > 1 else None
    store = GamesFile(games_file)
    try:
        for name in names:
            defn = games.definition(name)
            given = {
                k: v for k, v in (params or {}).items() if k in {s.name for s in defn.param_specs}
            }
            counts = players or [defn.validate_params(given)["players"]]
            for count in counts:
                if count not in player_counts(name):
                    continue
                game_params = defn.validate_params({**given, "players": count})
                wanted = max(games_per_pairing, (min_games or {}).get(name, 0))
                deals = max(1, math.ceil(wanted / count))
                for budget in budgets:
                    for pairing in pairings:
                        row = _play_row(
                            name,
                            game_params,
                            pairing,
                            budget,
                            milliseconds,
                            deals,
                            seed,
                            ismcts_options,
                            executor,
                            progress,
                            store,
                            luck_corrected and luck_supported(name),
                            legacy_budget,
                            stored_only,
                        )
                        report["rows"].append(row)
                        if on_row is not None:
                            on_row(report)  # so a long run keeps every finished row
                        entry = report["games"].setdefault(
                            name, {"params": game_params, "pairings": {}}
                        )
                        entry["pairings"].setdefault(pairing, row)
    finally:
        if executor is not None:
            executor.shutdown()
    return report


def _play_row(
    name: str,
    game_params: dict[str, Any],
    pairing: str,
    budget: dict[str, float | int | str],
    milliseconds: float,
    deals: int,
    seed: int,
    ismcts_options: dict[str, Any] | None,
    executor: Executor | None,
    progress: Callable[[str], None] | None,
    store: GamesFile,
    luck: bool,
    legacy_budget: dict[str, float | int | str] | None = None,
    stored_only: bool = False,
) -> dict[str, Any]:
    n = game_params["players"]
    a, b = seats_for(pairing, budget, milliseconds, ismcts_options, legacy_budget)
    label = f"{name} ({n} players) {pairing} at {budget_label(budget)}"
    if progress and not stored_only:
        progress(f"{label}: {deals * n} games")
    jobs = [
        (name, game_params, a, b, a_seat, seed * 1_000_003 + deal)
        for deal in range(deals)
        for a_seat in range(n)
    ]
    started = time.perf_counter()
    if stored_only:
        _require_stored(jobs, store, label)
    bar = progress is not None and not stored_only
    results = _results(jobs, executor, store, luck, bar, write=not stored_only)
    scores = [r["score"] for r in results]
    mean = sum(scores) / len(scores)
    low, high = wilson(mean, len(scores))
    text, test = target_for(pairing, n)
    moves_a = sum(r["moves"][0] for r in results)
    moves_b = sum(r["moves"][1] for r in results)
    return {
        "game": name,
        "players": n,
        "budget": dict(budget)
        if pairing != "ismcts-vs-openspiel"
        else {"milliseconds": milliseconds},
        **_budget_b(a, b),
        "pairing": pairing,
        "a": a.label,
        "b": b.label,
        "games": len(scores),
        "wins": sum(1 for s in scores if s == 1.0),
        "shared": sum(1 for s in scores if 0.0 < s < 1.0),
        "losses": sum(1 for s in scores if s == 0.0),
        "score": round(mean, 4),
        "ci95": [round(low, 4), round(high, 4)],
        "uniform": round(1.0 / n, 4),
        "target": text,
        "met": test(mean),
        "significant": low > 1.0 / n,
        "ms_per_move_a": round(
            1000 * sum(r["thinking_s"][0] for r in results) / max(1, moves_a), 1
        ),
        "ms_per_move_b": round(
            1000 * sum(r["thinking_s"][1] for r in results) / max(1, moves_b), 1
        ),
        "simulations_per_move_a": _simulations_per_move(results),
        "wall_s": round(time.perf_counter() - started, 1),
        **(_luck_stats(results, n) if luck else {}),
    }


def _budget_b(a: Seat, b: Seat) -> dict[str, Any]:
    """``budget_b``: bot B's budget, when B is a search given a budget other than A's."""
    if b.spec is None or b.spec.get("name") != "ismcts":
        return {}
    if (b.simulations, b.milliseconds, b.clock) == (a.simulations, a.milliseconds, a.clock):
        return {}
    limits = {"simulations": b.simulations, "milliseconds": b.milliseconds}
    clock = {"clock": b.clock} if b.clock != "wall" else {}
    return {"budget_b": {**{k: v for k, v in limits.items() if v is not None}, **clock}}


def _simulations_per_move(results: list[dict[str, Any]]) -> float | None:
    """A's mean simulations a move over the games that recorded them (games stored before
    the count was kept have none): with a time budget, what the machine gave the search."""
    counted = [r for r in results if (r.get("simulations") or [None])[0] is not None]
    moves = sum(r["moves"][0] for r in counted)
    return round(sum(r["simulations"][0] for r in counted) / moves, 1) if moves else None


def _require_stored(jobs: list[tuple], store: GamesFile, row: str) -> None:
    """Refuses a row rebuilt from its games file alone when the file lacks some of its games
    (say, ``--games`` above what was played, or another seed), naming how many and where."""
    missing = sum(1 for job in jobs if store.get(job) is None)
    if missing:
        raise MissingGames(
            f"{row}: {missing} of {len(jobs)} games are not in {store.path} (with "
            "--stored-only nothing is played; drop it to play them)"
        )


def _results(
    jobs: list[tuple],
    executor: Executor | None,
    store: GamesFile,
    luck: bool,
    bar: bool,
    write: bool = True,
) -> list[dict[str, Any]]:
    """Every job's game: from the games file when stored, else played (and stored); a stored
    game without its luck correction gets it from its actions (stored too, unless not
    ``write``)."""
    from tqdm import tqdm

    results: list[dict[str, Any] | None] = [store.get(job) for job in jobs]
    todo = [i for i, r in enumerate(results) if r is None]
    with tqdm(
        total=len(jobs),
        initial=len(jobs) - len(todo),
        unit="game",
        file=sys.stderr,
        disable=not bar,
    ) as progress:

        def done(i: int, result: dict[str, Any]) -> None:
            store.put(jobs[i], result)
            results[i] = result
            progress.update()

        if executor is None:
            for i in todo:
                done(i, play_one(*jobs[i], luck))
        else:
            futures = {executor.submit(_play_job, (*jobs[i], luck)): i for i in todo}
            for future in as_completed(futures):
                done(futures[future], future.result())
    for i, result in enumerate(results):
        assert result is not None
        if luck and "luck" not in result:  # stored without it: corrected from its actions
            name, params, _, _, a_seat, deal_seed = jobs[i]
            result["luck"] = luck_share(name, params, result["history"], a_seat, deal_seed)
            store.put(jobs[i], result, write)
    return results  # type: ignore[return-value]


def _luck_stats(results: list[dict[str, Any]], n: int) -> dict[str, Any]:
    """The corrected share with a t interval over deals, and its standard error against the
    raw share's (both over deal means, the unit in which a deal's seat rotations are
    independent); ``games_ratio`` is the share of games the corrected score needs."""
    from evaluation.tournament.stats import mean_ci

    def deal_means(values: list[float]) -> list[float]:  # jobs are deal-major, n seats each
        return [statistics.fmean(values[i : i + n]) for i in range(0, len(values), n)]

    raw = deal_means([r["score"] for r in results])
    cor = deal_means([r["luck"]["corrected"] for r in results])
    mean, ci = mean_ci(cor)
    ratio = None
    if len(raw) > 1 and statistics.stdev(raw) > 0:
        ratio = statistics.stdev(cor) / statistics.stdev(raw)
    return {
        "corrected_score": round(mean, 4),
        "corrected_ci95": [round(ci[0], 4), round(ci[1], 4)] if ci else None,
        "se_ratio": round(ratio, 3) if ratio is not None else None,
        "games_ratio": round(ratio**2, 3) if ratio is not None else None,
        "luck_value": results[0]["luck"]["value"],
    }


def _play_job(job: tuple) -> dict[str, Any]:
    return play_one(*job)


def format_table(report: dict[str, Any]) -> str:
    lines = [
        f"{'game':<16}{'n':>2} {'budget':<10}{'pairing':<22}{'games':>6}{'score':>8}"
        f"{'95% CI':>16}{'uniform':>9}  target",
    ]
    for r in report["rows"]:
        ci = f"[{r['ci95'][0]:.2f}, {r['ci95'][1]:.2f}]"
        mark = "ok" if r["met"] else "MISSED"
        b_budget = f"; B at {budget_label(r['budget_b'])}" if "budget_b" in r else ""
        lines.append(
            f"{r['game']:<16}{r['players']:>2} {budget_label(r['budget']):<10}{r['pairing']:<22}"
            f"{r['games']:>6}{r['score']:>8.3f}{ci:>16}{r['uniform']:>9.3f}  {r['target']} ({mark})"
            f"{b_budget}"
        )
        if "corrected_score" in r:
            c = r["corrected_ci95"]
            c_text = f"[{c[0]:.2f}, {c[1]:.2f}]" if c else "[-, -]"
            lines.append(
                f"{'':<18} {'luck-corrected':<32}{r['corrected_score']:>8.3f}{c_text:>16}"
                f"  SE ratio {r['se_ratio']} (games ratio {r['games_ratio']})"
            )
    return "\n".join(lines)


GAME_TITLES = {
    "detective_eye": "Detective Eye",
    "finger_auction": "Finger Auction",
    "gallery_rush": "Gallery Rush",
    "modern_art": "Modern Art",
}


def markdown(report: dict[str, Any], command: str) -> str:
    """The report as a markdown table, with the command that produced it."""
    luck = any("corrected_score" in r for r in report["rows"])
    head = "| game | players | budget | pairing | games | score | 95% CI |"
    if luck:
        head += " luck-corrected | 95% CI | SE ratio |"
    head += " uniform | target |"
    lines = [f"`{command}`", "", head, "|---" * (head.count("|") - 1) + "|"]
    for r in report["rows"]:
        low, high = r["ci95"]
        line = (
            f"| {GAME_TITLES.get(r['game'], r['game'])} | {r['players']} | "
            f"{_budget_cell(r)} | {r['a']} vs {r['b']} | {r['games']} | "
            f"{r['score']:.3f} | [{low:.2f}, {high:.2f}] |"
        )
        verdict = _verdict(r["met"], low, r["uniform"])
        if luck and "corrected_score" in r:
            c_low, c_high = r["corrected_ci95"] or (float("nan"), float("nan"))
            ratio = "" if r["se_ratio"] is None else f"{r['se_ratio']:.2f}"
            line += f" {r['corrected_score']:.3f} | [{c_low:.2f}, {c_high:.2f}] | {ratio} |"
            _, test = target_for(r["pairing"], r["players"])
            verdict += "; corrected " + _verdict(test(r["corrected_score"]), c_low, r["uniform"])
        elif luck:
            line += " | | |"
        lines.append(f"{line} {r['uniform']:.3f} | {r['target']}: {verdict} |")
    return "\n".join(lines)


def _budget_cell(row: dict[str, Any]) -> str:
    """The budget, and for a time budget the simulations a move it gave when recorded."""
    label = budget_label(row["budget"])
    sims = row.get("simulations_per_move_a")
    if sims is not None and row["budget"].get("simulations") is None:
        label = f"{label} ({sims:,.0f} sims a move)"
    if "budget_b" in row:
        label = f"{label} vs {budget_label(row['budget_b'])}"
    return label


def _verdict(met: bool, low: float, uniform: float) -> str:
    if met and low > uniform:
        return "met (significant)"
    return "met (point estimate)" if met else "missed"


SECTIONS_ANCHOR = "<!-- bench-strength sections -->"


def write_docs(path: Path, section: str, text: str) -> None:
    """Puts ``text`` in the section ``section`` of ``path`` (between its markers).

    A section already there is replaced; a new one goes just before the anchor
    ``SECTIONS_ANCHOR`` (or at the end of the file without one). Other sections and the rest
    of the file are left as they are.
    """
    begin, end = f"<!-- bench-strength {section} -->", f"<!-- /bench-strength {section} -->"
    block = f"{begin}\n{text}\n{end}"
    doc = path.read_text() if path.exists() else ""
    if begin in doc and end in doc:
        head, rest = doc.split(begin, 1)
        _, tail = rest.split(end, 1)
        doc = head + block + tail
    elif SECTIONS_ANCHOR in doc:
        doc = doc.replace(SECTIONS_ANCHOR, f"{block}\n\n{SECTIONS_ANCHOR}", 1)
    else:
        doc = doc.rstrip("\n") + f"\n\n{block}\n"
    path.write_text(doc)

"""Issue 45, target 1: does a fitted opponent profile make ``ismcts`` score more?

For a game, a player count and one of the game's biased opponents (``bots.profiles.BIASED``):

1. **Fit.** ``FIT_GAMES`` games of the biased opponent (seat 0) against the heuristic, on deals
   of their own (seeds ``FIT_SEED + i``), fitted by ``atelier profile``'s maximum likelihood
   (``bots.profiles.fit``).
2. **Paired games.** On every evaluation deal and in every seat, ``ismcts`` plays against the
   biased opponent in all other seats twice: with the fitted profile for every other seat
   (``opponents``, ``profile_trust`` at its default) and without. Both games of a pair share
   the deal's chance draws and the move seeds (``strength.play_one``), so the difference of
   first-place shares is paired; its mean over deals x seats gets a 95% t-interval.

``--opponent wrong`` is the safety check: the unbiased heuristic in the other seats, and
``ismcts`` given the profile fitted to the game's first biased opponent (a wrong profile).

``--trust`` sets the profiled search's ``profile_trust`` (default: the option's own, 0.5), the
safety setting: how much of the other seats' play is the profile's, so how much a wrong profile
can cost. ``--evidence`` sets its ``profile_evidence`` (default ``game``: the trust scaled by how
far each seat's moves so far bear its profile out, ``bots.profiles.evidence``; ``telling``: the
same, from the seat's first telling move on; ``none``: the trust throughout, as every cell
before issue 45's twenty-sixth session, whose fit rows name no evidence). ``--beliefs`` sets
both searches' ``beliefs`` option (default ``auto``, the option's own default). ``uniform`` is
what Modern Art's served hint uses (``TIMED_BELIEFS``: under a time budget its worlds are not
weighed), and it makes a Modern Art cell several times cheaper: at
200 simulations the ``heuristic`` weighting is about 85% of a game's time there (py-spy), since
a weight replays the whole history through the (profiled) opponent model. A cell keeps the
setting it started with, its trust and its evidence (stored in its fit row; resuming with
another is refused).

Each pair is one JSON line in ``--out`` (rerunning resumes), so a run stopped early still
reports the pairs it played. ``python -m evaluation.bench.profiles FOLDER`` tables a folder's
cells; ``python -m evaluation.bench.profiles FOLDER OTHER`` pairs the profiled games of each
cell with those of the same cell in ``OTHER`` (another setting on the same deals, or a placebo:
``--trust 0.001 --evidence none``, the plain search on another random stream, which tells a
real cost from luck in the shared ``without`` games). Progress (the fit's games, then the
pairs, with the time left) goes to stderr: a Modern Art cell at 5 players is an hour or more.
"""

from __future__ import annotations

import json
from pathlib import Path
from statistics import fmean
from typing import Any

import games
from bots.heuristics import knowledge_for
from bots.profiles.evidence import SETTINGS as EVIDENCE
from bots.profiles.fit import decisions_of, fit_profile
from bots.profiles.tendencies import BIASED, tendencies_of
from evaluation.bench.strength import Seat, play_one
from evaluation.progress import Progress
from evaluation.tournament.stats import mean_ci

FIT_GAMES = 50
FIT_SEED = 1_000_000
WRONG = "wrong"
BELIEFS = ("auto", "heuristic", "uniform")
# The evidence setting of a fit row that names none: written before the setting existed.
EVIDENCE_BEFORE = "none"


def biased_spec(tendencies: dict[str, float]) -> dict[str, Any]:
    return {"name": "profiled", "options": {"tendencies": tendencies}}


def fit_opponent(name: str, params: dict[str, Any], tendencies: dict[str, float]) -> dict:
    """The profile fitted to ``FIT_GAMES`` games of the opponent with ``tendencies``."""
    defn = games.definition(name)
    full = defn.validate_params(params)
    them = Seat("biased", biased_spec(tendencies), simulations=1)
    heuristic = Seat("heuristic", {"name": "heuristic"}, simulations=1)
    records = []
    with Progress("fitting", "game", FIT_GAMES) as progress:
        for i in range(FIT_GAMES):
            game = play_one(name, full, them, heuristic, 0, FIT_SEED + i)
            records.append([decisions_of(defn.new_engine(full), game["history"], 0)])
            progress.update()
    return fit_profile(knowledge_for(name), records, 0).to_json()  # type: ignore[arg-type]


def run_cell(
    name: str,
    players: int,
    opponent: str,
    deals: int,
    simulations: int,
    out: Path,
    echo: Any = print,
    beliefs: str = "auto",
    trust: float | None = None,
    evidence: str = "game",
) -> dict[str, Any]:
    """Plays (or resumes) one cell and returns its summary (module docstring)."""
    if beliefs not in BELIEFS:
        raise ValueError(f"beliefs {beliefs!r}: not one of {', '.join(BELIEFS)}")
    if evidence not in EVIDENCE:
        raise ValueError(f"evidence {evidence!r}: not one of {', '.join(EVIDENCE)}")
    if trust is not None and not 0.0 < trust <= 1.0:
        raise ValueError(f"trust {trust}: must be in (0, 1] (0 would be the search without it)")
    params = {"players": players}
    done = _load(out)
    header = next((r for r in done if r.get("kind") == "fit"), None)
    if header is not None:
        # A fit row written before a setting existed was played at its default.
        for setting, wanted, default in (
            ("beliefs", beliefs, "auto"),
            ("trust", trust, None),
            ("evidence", evidence, EVIDENCE_BEFORE),
        ):
            had = header.get(setting, default)
            if had != wanted:
                raise ValueError(
                    f"{out} was played with {setting} {had!r}, not {wanted!r}: "
                    "resume it with that setting or write another file"
                )
    if header is None:
        truth = BIASED[name][next(iter(BIASED[name])) if opponent == WRONG else opponent]
        fitted = fit_opponent(name, params, truth)
        header = {
            "kind": "fit",
            "truth": truth,
            "fit": fitted,
            "beliefs": beliefs,
            "evidence": evidence,
        }
        if trust is not None:
            header["trust"] = trust
        _append(out, header)
        echo(f"fitted {json.dumps(fitted['profile'])} intervals {json.dumps(fitted['intervals'])}")
    profile = header["fit"]["profile"]
    them = (
        Seat("heuristic", {"name": "heuristic"}, simulations=1)
        if opponent == WRONG
        else Seat("biased", biased_spec(header["truth"]), simulations=1)
    )
    chosen = {} if beliefs == "auto" else {"beliefs": beliefs}  # auto: the stored cells' specs
    plain = Seat("ismcts", {"name": "ismcts", "options": chosen}, simulations=simulations)
    opponents = {str(s): profile for s in range(players)}
    trusted = {} if trust is None else {"profile_trust": trust}  # None: the option's default
    trusted["profile_evidence"] = evidence
    profiled = Seat(
        "ismcts+profile",
        {"name": "ismcts", "options": {"opponents": opponents, **trusted, **chosen}},
        simulations=simulations,
    )
    seen = {(r["deal"], r["seat"]) for r in done if r.get("kind") == "pair"}
    wanted = [(deal, seat) for deal in range(deals) for seat in range(players)]
    initial = sum(1 for pair in wanted if pair in seen)
    with Progress("pairs", "pair", len(wanted), initial=initial) as progress:
        for deal, seat in wanted:
            if (deal, seat) in seen:
                continue
            with_profile = play_one(name, params, profiled, them, seat, deal)["score"]
            without = play_one(name, params, plain, them, seat, deal)["score"]
            _append(
                out,
                {
                    "kind": "pair",
                    "deal": deal,
                    "seat": seat,
                    "with": with_profile,
                    "without": without,
                },
            )
            progress.update()
    return summary(name, players, opponent, simulations, _load(out))


def summary(
    name: str, players: int, opponent: str, simulations: int, rows: list[dict[str, Any]]
) -> dict[str, Any]:
    """Mean first-place shares with and without the profile, and their paired difference."""
    pairs = [r for r in rows if r.get("kind") == "pair"]
    fit = next((r for r in rows if r.get("kind") == "fit"), {})
    out: dict[str, Any] = {
        "game": name,
        "players": players,
        "opponent": opponent,
        "simulations": simulations,
        "pairs": len(pairs),
        "fit": fit.get("fit", {}).get("profile"),
        "truth": fit.get("truth"),
        "beliefs": fit.get("beliefs", "auto"),
        "trust": fit.get("trust"),  # None: ``profile_trust``'s default
        "evidence": fit.get("evidence", EVIDENCE_BEFORE),
    }
    deals = sorted({r["deal"] for r in pairs})
    out["deals"] = len(deals)
    if pairs:
        # The games of one deal share its cards: each deal's mean over its seats is one value.
        for key in ("with", "without"):
            out[key], out[f"{key}_ci"] = mean_ci(_per_deal(pairs, deals, lambda r, k=key: r[k]))
        out["difference"], out["difference_ci"] = mean_ci(
            _per_deal(pairs, deals, lambda r: r["with"] - r["without"])
        )
    return out


def _per_deal(rows: list[dict[str, Any]], deals: list[int], value: Any) -> list[float]:
    by_deal: dict[int, list[float]] = {d: [] for d in deals}
    for r in rows:
        by_deal[r["deal"]].append(value(r))
    return [sum(v) / len(v) for v in by_deal.values()]


def _load(path: Path) -> list[dict[str, Any]]:
    """The rows written so far; a line cut short (a run stopped mid-write) is dropped and its
    pair played again (``_append`` starts the next row on a line of its own)."""
    if not path.exists():
        return []
    rows = []
    for line in path.read_text().splitlines():
        try:
            rows.append(json.loads(line))
        except json.JSONDecodeError:
            continue
    return rows


def _append(path: Path, row: dict[str, Any]) -> None:
    with path.open("a+") as f:
        f.seek(0, 2)
        if f.tell():  # after a line cut short, start a line of its own
            f.seek(f.tell() - 1)
            ends = f.read(1) == "\n"
            f.seek(0, 2)
            if not ends:
                f.write("\n")
        f.write(json.dumps(row) + "\n")


def table(paths: list[Path]) -> str:
    """The markdown table of cells written by ``run_cell`` (files named
    ``GAME-PLAYERS-OPPONENT.jsonl``, as the docs' commands write them)."""
    lines = [
        "| game | players | opponent (truth) | fitted (95% interval) | deals (pairs) | "
        "with profile | without | difference [95% CI] |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for path in sorted(paths):
        game, players, opponent = path.stem.split("-")
        rows = _load(path)
        s = summary(game, int(players), opponent, 0, rows)
        fit = next((r for r in rows if r.get("kind") == "fit"), None)
        if not s["pairs"] or fit is None:
            continue
        truth = fit["truth"]
        name = next(iter(truth))
        low, high = fit["fit"]["intervals"][name]
        fitted = f"`{name}` {fit['fit']['profile'][name]} [{low}, {high}]"
        neutral = {t.name: t.neutral for t in tendencies_of(game)}
        others = [
            f"`{k}` {v}" for k, v in fit["fit"]["profile"].items() if k != name and v != neutral[k]
        ]
        fitted += "".join(", " + o for o in others)
        label = (
            f"heuristic, given the profile fitted to {json.dumps(truth)}"
            if opponent == WRONG
            else f"{opponent} {json.dumps(truth)}"
        )
        if s["beliefs"] != "auto":
            label += f" ({s['beliefs']} beliefs)"
        if s["trust"] is not None:
            label += f" (trust {s['trust']})"
        if s["evidence"] != "none":
            label += f" ({s['evidence']} evidence)"
        ci = s["difference_ci"]
        diff = f"{s['difference']:+.3f}" + (f" [{ci[0]:+.3f}, {ci[1]:+.3f}]" if ci else "")
        lines.append(
            f"| {game} | {players} | {label} | {fitted} | {s['deals']} ({s['pairs']}) | "
            f"{s['with']:.3f} | {s['without']:.3f} | {diff} |"
        )
    return "\n".join(lines)


def comparison(folder: Path, other: Path) -> str:
    """The markdown table of the cells of ``folder`` against the same cells of ``other`` (one
    setting against another, e.g. two ``--evidence`` settings): the profiled search's shares,
    paired over the deals both have played. Both were played on the same deals with the same
    seeds, so their ``without`` games are the same games; a deal whose ``without`` results
    differ between the two files is a cell played otherwise and is refused."""
    lines = [
        f"| game | players | opponent | deals | with ({folder.name}) | with ({other.name}) | "
        "difference [95% CI] |",
        "|---|---|---|---|---|---|---|",
    ]
    for named in (folder, other):
        if not named.is_dir():
            raise ValueError(f"{named}: not a folder of cells")
    for path in sorted(folder.glob("*-*-*.jsonl")):
        twin = other / path.name
        if not twin.exists():
            continue
        mine, theirs = (_pairs_by_key(_load(p)) for p in (path, twin))
        common = sorted(k for k in mine if k in theirs)
        if not common:
            continue
        for key in common:
            if mine[key]["without"] != theirs[key]["without"]:
                raise ValueError(f"{path.name}: deal {key[0]} seat {key[1]} differs without")
        deals = sorted({deal for deal, _ in common})
        both = [{**mine[k], "other": theirs[k]["with"]} for k in common]
        a = fmean(_per_deal(both, deals, lambda r: r["with"]))
        b = fmean(_per_deal(both, deals, lambda r: r["other"]))
        diff, ci = mean_ci(_per_deal(both, deals, lambda r: r["with"] - r["other"]))
        game, players, opponent = path.stem.split("-")
        interval = f" [{ci[0]:+.3f}, {ci[1]:+.3f}]" if ci else ""
        lines.append(
            f"| {game} | {players} | {opponent} | {len(deals)} | {a:.3f} | {b:.3f} | "
            f"{diff:+.3f}{interval} |"
        )
    return "\n".join(lines)


def _pairs_by_key(rows: list[dict[str, Any]]) -> dict[tuple[int, int], dict[str, Any]]:
    return {(r["deal"], r["seat"]): r for r in rows if r.get("kind") == "pair"}


if __name__ == "__main__":
    import sys

    folder = Path(sys.argv[1] if len(sys.argv) > 1 else ".")
    if len(sys.argv) > 2:  # FOLDER OTHER: the two settings paired
        try:
            print(comparison(folder, Path(sys.argv[2])))
        except ValueError as error:
            sys.exit(f"error: {error}")
    else:
        print(table(list(folder.glob("*-*-*.jsonl"))))

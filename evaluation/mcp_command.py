"""``atelier mcp``: the service as Model Context Protocol tools, so LLM agents play and analyse.

Built on the official ``mcp`` SDK (the ``mcp`` extra) and the Python client
(``clients/python``, ``atelier_client``): every tool is one or two client calls, answered as
JSON with readable strings (moves as ``legal_actions`` strings, the rules as Markdown) and a
``next`` field saying what to call next. Errors are tool errors that say what to do next.
The server keeps the seat token of each match it created, so an agent passes match ids only.
Registered lazily in ``evaluation.cli`` (nothing here is imported by ``atelier --help``).
"""

from __future__ import annotations

import json
import sys
import tempfile
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from functools import partial
from typing import Any

import click

INSTRUCTIONS = (
    "Atelier hosts four imperfect-information card games (Gallery Rush, Finger Auction, "
    "Detective Eye, Modern Art) against bots of 8 difficulty levels. Start with list_games and "
    "get_rules, then new_match; on your turn play_move with one of legal_moves (its exact "
    "string, or its id); get_hint and analyse_position help you choose; after the end, "
    "review_game scores your decisions."
)


@click.command()
@click.option(
    "--url", default=None, help="A running service (http://HOST:PORT); default: start one."
)
@click.option(
    "--api-key", default=None, envvar="ATELIER_API_KEY", help="The service's API key, if any."
)
@click.option(
    "--http",
    "http_port",
    type=int,
    default=None,
    help="Serve MCP over streamable HTTP on 127.0.0.1:PORT (path /mcp).  [default: stdio]",
)
def mcp(url: str | None, api_key: str | None, http_port: int | None) -> None:
    """Serve the Atelier tools to MCP clients (LLM agents), on stdio or streamable HTTP."""
    try:
        from mcp.server.fastmcp import FastMCP  # noqa: F401
    except ImportError:
        raise click.ClickException(
            "atelier mcp needs the MCP SDK: pip install 'atelier[mcp]'"
        ) from None
    try:
        from atelier_client import Client
    except ImportError:
        raise click.ClickException(
            "atelier mcp needs the client package: pip install -e clients/python"
        ) from None

    with _service(url) as base_url, Client(base_url, api_key=api_key) as client:
        server = build_server(client, port=http_port or 8000)
        server.run(transport="streamable-http" if http_port else "stdio")


@contextmanager
def _service(url: str | None) -> Iterator[str]:
    """``url``, or an embedded ``atelier serve`` on a free 127.0.0.1 port (matches in a
    temporary directory; its log there too, never on stdout, which stdio MCP owns), stopped
    when the MCP server ends."""
    if url:
        yield url
        return
    import signal

    from evaluation.bench import service as bench

    # An MCP client stops its server with SIGTERM: end through the finally below, so that the
    # embedded service (in its own session, out of reach of our signals) is stopped too.
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
    with tempfile.TemporaryDirectory(prefix="atelier-mcp-") as tmp:
        port = bench.free_port()
        click.echo(f"atelier mcp: starting an embedded service on 127.0.0.1:{port}", err=True)
        try:
            process = bench.start_server(
                port, f"{tmp}/matches.sqlite3", log_path=f"{tmp}/serve.log"
            )
        except RuntimeError as err:
            raise click.ClickException(f"the embedded service did not start: {err}") from None
        try:
            yield f"http://{bench.HOST}:{port}"
        finally:
            signal.signal(signal.SIGTERM, signal.SIG_IGN)  # a second one must not cut this
            bench.stop_server(process)


class Tools:
    """The tools' work, synchronous (run in a thread by the async tool wrappers)."""

    def __init__(self, client: Any) -> None:
        self.client = client
        self.tokens: dict[str, str] = {}  # match id -> the seat token of the agent's seat
        self.reviews: dict[str, Any] = {}  # match id -> its review job

    def token(self, match_id: str, token: str | None) -> str:
        if token:
            self.tokens[match_id] = token
            return token
        if match_id not in self.tokens:
            raise Advice(
                f"match {match_id!r} was not created in this session: call new_match to "
                "start one (or pass the seat token you were given as `token`)"
            )
        return self.tokens[match_id]

    def list_games(self) -> dict[str, Any]:
        games = []
        for g in self.client.games():
            games.append(
                {
                    "game": g.name,
                    "name": g.long_name,
                    "players": f"{g.min_players}-{g.max_players}",
                    "params": [_param(p) for p in g.params],
                }
            )
        return {
            "games": games,
            "next": "call get_rules with a game to read its rules, then new_match to play",
        }

    def get_rules(self, game: str) -> str:
        return self.client.rules(game)

    def new_match(
        self,
        game: str,
        level: int,
        opponent: str | None,
        players: int | None,
        seat: int,
        params: dict[str, Any] | None,
        bot_budget_ms: int | None,
    ) -> dict[str, Any]:
        params = dict(params or {})
        if players is not None:
            params["players"] = players
        count = params.get("players") or _default_players(self.client, game)
        if not 0 <= seat < count:
            raise Advice(f"seat must be 0..{count - 1} (seats count from 0); call again")
        bot: Any = opponent or {"name": "level", "options": {"level": level}}
        seats = [bot] * count
        seats[seat] = "human"
        budget = {"milliseconds": bot_budget_ms} if bot_budget_ms else None
        match = self.client.new_match(game, seats, params or None, budget)
        self.tokens[match.id] = match.token
        view = self.client.get_match(match.id, match.token)
        out = describe(view)
        out["token"] = match.token
        return out

    def get_match(self, match_id: str, token: str | None) -> dict[str, Any]:
        return describe(self.client.get_match(match_id, self.token(match_id, token)))

    def play_move(self, match_id: str, move: str, token: str | None) -> dict[str, Any]:
        token = self.token(match_id, token)
        return describe(self.client.move(match_id, token, _action(move)))

    def get_hint(
        self, match_id: str, bot: str | None, budget_ms: int | None, token: str | None
    ) -> dict[str, Any]:
        hint = self.client.match_hint(
            match_id, self.token(match_id, token), bot=bot, milliseconds=budget_ms
        )
        explain = hint.explain or {}
        return {
            "suggested_move": hint.action.string,
            "value": hint.value,
            "value_means": (explain.get("value") or {}).get("text"),
            "explanation": explain.get("text", []),
            "top_moves": [
                {"move": p.string, "probability": round(p.probability, 3)}
                for p in sorted(hint.policy, key=lambda p: -p.probability)[:5]
            ],
            "bot": hint.bot.get("name"),
            "next": f"play it with play_move(match_id, {hint.action.string!r}) or choose another",
        }

    def analyse_position(
        self,
        match_id: str,
        moves: list[str] | None,
        top: int | None,
        simulations: int | None,
        bot: str | None,
        token: str | None,
    ) -> dict[str, Any]:
        view = self.client.get_match(match_id, self.token(match_id, token))
        if view.infoset is None or not view.your_turn:
            raise Advice("it is not your turn: analyse_position analyses your decisions only")
        budget = {"simulations": simulations} if simulations else None
        job = self.client.analyse(
            view.game,
            view.infoset,
            moves=[_action(m) for m in moves] if moves else None,
            top=top,
            bot=bot,
            budget=budget,
            timeout=120,
        )
        if job.status != "done" or job.analysis is None:
            raise Advice(f"the analysis {job.status}: {job.raw.get('error')}; call again")
        return readable_analysis(job.analysis)

    def review_game(
        self,
        match_id: str,
        bot: str | None,
        simulations: int | None,
        samples: int | None,
        wait_seconds: float,
        token: str | None,
    ) -> dict[str, Any]:
        token = self.token(match_id, token)
        job = self.reviews.get(match_id)
        if job is None or job.status in {"failed", "cancelled"}:
            view = self.client.get_match(match_id, token)
            if not view.terminal:
                raise Advice("the match is not over: play it to the end first (get_match)")
            budget = {"simulations": simulations} if simulations else None
            job = self.client.start_review(
                view.game, view.infoset, bot=bot, budget=budget, samples=samples
            )
        else:
            job = self.client.poll(job)
        try:
            job = self.client.wait(job, timeout=max(0.0, wait_seconds))
        except TimeoutError:
            job = self.client.poll(job)
        self.reviews[match_id] = job
        if not job.finished:
            return {
                "status": job.status,
                "progress": f"{job.done}/{job.total} decisions",
                "next": "call review_game again with the same match_id to see the result",
            }
        return readable_review(job)


class Advice(Exception):
    """A tool error whose message says what to do next."""


# What to do next after each API error code (the API's message says what was wrong).
NEXT = {
    "invalid_action": "call play_move with one of the legal_moves of get_match, exactly",
    "not_your_turn": "call get_match to see whose turn it is",
    "stale_step": "the match moved on since you last looked: call get_match, then choose again",
    "game_over": "the game is over: call review_game to review it, or new_match to play again",
    "unknown_match": "the match does not exist (or expired): call new_match",
    "unknown_game": "call list_games for the game names",
    "rules_not_found": "this server has no rules text; list_games shows the parameters",
    "match_not_over": "finish the match first (get_match, play_move)",
    "invalid_bot": "leave bot out for the default, or name one of the bots the message lists",
    "bot_unavailable": "choose another opponent: the message says which can play here",
    "invalid_params": "fix the parameter the message names (list_games shows their ranges)",
}


def advice(err: Exception, url: str) -> str:
    """The tool error's text: what went wrong and what to do next."""
    from atelier_client import AtelierError, ConnectionFailed

    if isinstance(err, Advice):
        return str(err)
    if isinstance(err, ConnectionFailed):
        return f"the Atelier service at {url} does not answer ({err.message}); check it runs"
    if isinstance(err, AtelierError):
        if err.status in (429, 503):
            wait = f"{err.retry_after:g} s" if err.retry_after else "a few seconds"
            todo = f"the service is busy: wait {wait} and call again"
        elif err.code == "not_found" and err.status == 404:
            todo = "this service does not offer it (an older version): use get_hint instead"
        else:
            todo = NEXT.get(err.code, "fix the argument the message names and call again")
        return f"{err.code}: {err.message}. Next: {todo}"
    if isinstance(err, TimeoutError):
        return f"{err}; call again later"
    raise err


def describe(view: Any) -> dict[str, Any]:
    """A match view as an agent reads it: whose turn, the legal moves as strings, the seat's
    view of the table, the moves just played, the result, and what to call next."""
    state = dict((view.infoset or {}).get("view") or {})
    state.pop("legal_actions", None)
    legal = view.legal_actions if view.your_turn else []
    out: dict[str, Any] = {
        "match_id": view.match_id,
        "game": view.game,
        "your_seat": view.seat,
        "status": view.status,
        "step": view.step,
        "seats": [
            "you" if s.seat == view.seat else f"{s.kind} {(s.bot or {}).get('name', '')}".strip()
            for s in view.seats
        ],
        "your_turn": view.your_turn,
        "legal_moves": [_move_string(a) for a in legal],
        "legal_move_ids": [_move_id(a) for a in legal],
        "state": state,
    }
    if view.moves:
        out["moves_played"] = [f"step {m['step']}: {_event(m['event'])}" for m in view.moves]
    if view.warning:
        out["warning"] = view.warning
    if view.terminal:
        out["returns"] = view.returns
        best = max(view.returns or [0])
        won = view.seat is not None and (view.returns or [0])[view.seat] == best
        out["result"] = "you won (or shared first place)" if won else "you did not win"
        out["next"] = "call review_game to see your mistakes, or new_match to play again"
    elif view.your_turn:
        out["next"] = "call play_move with one of legal_moves (get_hint suggests one)"
    else:
        out["next"] = "not your turn: call get_match again"
    return out


def readable_analysis(analysis: dict[str, Any]) -> dict[str, Any]:
    moves = [
        {
            "move": m["string"],
            "value": m["value"],
            "interval": m["interval"],
            "loss": m["loss"],
            "as_good_as_best": m["within_noise"],
            "continuation": m.get("continuation", []),
        }
        for m in analysis["moves"]
    ]
    return {
        "best_move": analysis["best"]["string"],
        "value": analysis["value"],
        "interval": analysis["interval"],
        "units": analysis.get("units"),
        "moves": moves,
        "next": "play_move with best_move (moves marked as_good_as_best are as good within noise)",
    }


def readable_review(job: Any) -> dict[str, Any]:
    review = job.review or {}
    summary = review.get("summary", {})
    decisions = [
        f"step {d['step']}: played {d['played']['string']!r}, best {d['best']['string']!r}, "
        f"lost {d['value_lost']:.3f} [{d['interval'][0]:.3f}, {d['interval'][1]:.3f}]"
        for d in review.get("decisions", [])
    ]
    return {
        "status": job.status,
        "accuracy": summary.get("accuracy"),
        "total_lost": summary.get("total_lost"),
        "decisions": decisions,
        "biggest_mistakes": [decisions[i] for i in summary.get("biggest_mistakes", [])],
        "value_means": (review.get("value") or {}).get("measures"),
        "error": job.error,
        "next": "new_match to play again",
    }


def _param(p: dict[str, Any]) -> str:
    allowed = (
        f"one of {p['enum']}"
        if p.get("enum")
        else f"{p.get('minimum', '')}..{p.get('maximum', '')}"
    )
    return f"{p['name']} ({p['type']}, default {p['default']!r}, {allowed}): {p.get('doc', '')}"


def _default_players(client: Any, game: str) -> int:
    for g in client.games():
        if g.name == game:
            return next(p["default"] for p in g.params if p["name"] == "players")
    raise Advice(f"unknown game {game!r}: call list_games for the game names")


def _move_string(entry: dict[str, Any]) -> str:
    if "range" in entry:  # a compact range of numbers: say how to play one value of it
        r = entry["range"]
        example = {**entry["struct"], r["field"]: r["min"]}
        return f"{entry['string']} (send one value as JSON, e.g. {json.dumps(example)})"
    return entry["string"]


def _move_id(entry: dict[str, Any]) -> int | str:
    ids = entry.get("ids")
    return f"{ids['min']}..{ids['max']}" if ids else entry["id"]


def _event(event: dict[str, Any]) -> str:
    return " ".join(f"{k}={v}" for k, v in event.items())


def _action(move: str) -> Any:
    """A move as the agent wrote it: an id (digits), a JSON struct, or the readable string."""
    text = move.strip()
    if text.isdigit():
        return int(text)
    if text.startswith("{"):
        try:
            return json.loads(text)
        except ValueError:
            raise Advice(f"move {move!r} is not valid JSON; send the move's string") from None
    return text


def build_server(client: Any, port: int = 8000) -> Any:
    """The FastMCP server with the eight tools over ``client``."""
    import anyio
    from mcp.server.fastmcp import FastMCP
    from mcp.server.fastmcp.exceptions import ToolError

    server = FastMCP("atelier", instructions=INSTRUCTIONS, host="127.0.0.1", port=port)
    tools = Tools(client)
    url = str(client._http.base_url)

    async def call(fn: Callable[..., Any], *args: Any) -> Any:
        try:
            return await anyio.to_thread.run_sync(partial(fn, *args))
        except Exception as err:
            raise ToolError(advice(err, url)) from None

    @server.tool()
    async def list_games() -> dict[str, Any]:
        """List the games: their ids (use them as `game`), player counts and parameters."""
        return await call(tools.list_games)

    @server.tool()
    async def get_rules(game: str) -> str:
        """The rules of `game` (an id from list_games) in Markdown: read them before playing."""
        return await call(tools.get_rules, game)

    @server.tool()
    async def new_match(
        game: str,
        level: int = 4,
        opponent: str | None = None,
        players: int | None = None,
        seat: int = 0,
        params: dict[str, Any] | None = None,
        bot_budget_ms: int | None = None,
    ) -> dict[str, Any]:
        """Start a match of `game` against bots: you play `seat` (0 = first), every other seat
        is a bot of difficulty `level` (1 weakest .. 8 strongest), or the bot named `opponent`
        (e.g. "random", "heuristic", "ismcts"). `players`: how many seats (default: the game's);
        `params`: other game parameters (list_games); `bot_budget_ms`: the bots' thinking time
        per move. Returns the match as get_match does; keep its match_id."""
        return await call(
            tools.new_match, game, level, opponent, players, seat, params, bot_budget_ms
        )

    @server.tool()
    async def get_match(match_id: str, token: str | None = None) -> dict[str, Any]:
        """Your view of the match: whose turn, your legal_moves (strings), the table as your
        seat sees it, the result when over. `token` only for a match of another session."""
        return await call(tools.get_match, match_id, token)

    @server.tool()
    async def play_move(match_id: str, move: str, token: str | None = None) -> dict[str, Any]:
        """Play `move` on your turn: one of legal_moves, as its exact string (e.g. "explore",
        "declare Monet"), or its id (legal_move_ids, same order); the bots then reply until
        your next turn. Returns the new view with the moves played since (moves_played)."""
        return await call(tools.play_move, match_id, move, token)

    @server.tool()
    async def get_hint(
        match_id: str,
        bot: str | None = None,
        budget_ms: int | None = None,
        token: str | None = None,
    ) -> dict[str, Any]:
        """A bot's suggested move for your turn, with its value and an explanation in words
        (odds, cards left). `bot`: which bot advises (default: the service's)."""
        return await call(tools.get_hint, match_id, bot, budget_ms, token)

    @server.tool()
    async def analyse_position(
        match_id: str,
        moves: list[str] | None = None,
        top: int | None = None,
        simulations: int | None = None,
        bot: str | None = None,
        token: str | None = None,
    ) -> dict[str, Any]:
        """Analyse your current decision: each candidate move's value (your share of first
        place, 0-1) with a 95% interval, its loss against the best, and the likely
        continuation. `moves`: moves that must be included; `top`: how many of the best."""
        return await call(tools.analyse_position, match_id, moves, top, simulations, bot, token)

    @server.tool()
    async def review_game(
        match_id: str,
        bot: str | None = None,
        simulations: int | None = None,
        samples: int | None = None,
        wait_seconds: float = 60.0,
        token: str | None = None,
    ) -> dict[str, Any]:
        """Review your decisions in a finished match: per decision the move played, the bot's
        best move and the value lost with its interval, plus an accuracy. Waits up to
        `wait_seconds`; if not finished, call again to see it."""
        return await call(
            tools.review_game, match_id, bot, simulations, samples, wait_seconds, token
        )

    return server


if __name__ == "__main__":  # pragma: no cover
    mcp(sys.argv[1:])

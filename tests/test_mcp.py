"""``atelier mcp`` driven over stdio by the ``mcp`` SDK's own client: the tools are listed with
schemas and descriptions, a whole match of every game is played to the end through tools only
(moves by their readable strings and by id), errors say what to do next, a finished game is
reviewed, a position analysed (skipped until the analysis endpoint exists), and the embedded
service is started and stopped with the MCP server.
"""

from __future__ import annotations

import asyncio
import json
import os
import random
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("mcp")
pytest.importorskip("atelier_client")

from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client

from tests.client_support import CHEAP, KEY, serve

ROOT = Path(__file__).resolve().parents[1]
TOOLS = {
    "list_games",
    "get_rules",
    "new_match",
    "get_match",
    "play_move",
    "get_hint",
    "analyse_position",
    "review_game",
}


@pytest.fixture(scope="module")
def url(tmp_path_factory) -> Iterator[str]:
    yield from serve(tmp_path_factory.mktemp("mcp"))


def child_env() -> dict[str, str]:
    """This source tree first on the child's path."""
    path = os.pathsep.join(p for p in (str(ROOT), os.environ.get("PYTHONPATH")) if p)
    return dict(os.environ, PYTHONPATH=path)


def run_session(
    args: list[str], body: Callable[[ClientSession], Awaitable[Any]], errlog: Any = None
) -> Any:
    """Starts ``atelier mcp ARGS`` as a child over stdio and runs ``body`` in a session."""
    env = child_env()
    params = StdioServerParameters(
        command=sys.executable, args=["-m", "evaluation.cli", "mcp", *args], env=env
    )

    async def main() -> Any:
        async with (
            stdio_client(params, errlog=errlog or sys.stderr) as (read, write),
            ClientSession(read, write) as session,
        ):
            await session.initialize()
            return await body(session)

    return asyncio.run(main())


async def call(session: ClientSession, tool: str, **arguments: Any) -> Any:
    """A tool's answer (its JSON), failing the test on a tool error."""
    result = await session.call_tool(tool, arguments)
    text = result.content[0].text if result.content else ""
    assert not result.isError, f"{tool}({arguments}): {text}"
    if result.structuredContent is not None:
        content = result.structuredContent
        return content.get("result", content) if set(content) == {"result"} else content
    return json.loads(text) if text[:1] in "{[" else text


async def tool_error(session: ClientSession, tool: str, **arguments: Any) -> str:
    result = await session.call_tool(tool, arguments)
    assert result.isError, result
    return result.content[0].text


def test_the_tools_are_listed_with_schemas_and_descriptions(url):
    async def body(session: ClientSession) -> Any:
        return (await session.list_tools()).tools

    tools = run_session(["--url", url, "--api-key", KEY], body)
    assert {t.name for t in tools} == TOOLS
    for tool in tools:
        assert len(tool.description or "") > 40, tool.name
        assert tool.inputSchema["type"] == "object"
    play = next(t for t in tools if t.name == "play_move")
    assert set(play.inputSchema["required"]) == {"match_id", "move"}


async def open_match(session: ClientSession, **kwargs: Any) -> dict[str, Any]:
    """A new match still waiting for our move. The server draws the deal (the tool takes no
    seed), and random bots end a 2-player Gallery Rush before seat 0's first move in about 1
    deal of 270 (73 of 20,000 seeded deals): such a match is skipped, not a failure."""
    for _ in range(5):
        view = await call(session, "new_match", **kwargs)
        if view["status"] != "finished":
            return view
    raise AssertionError(f"five matches of {kwargs} ended before the first move")


async def play_through_tools(session: ClientSession, game: str, seed: int) -> dict[str, Any]:
    """A match of ``game`` against the random bot, to the end, through tools only."""
    params, players = CHEAP[game]
    rng = random.Random(seed)
    view = await call(
        session, "new_match", game=game, opponent="random", players=players, params=params
    )
    match_id = view["match_id"]
    for n in range(500):
        if view["status"] == "finished":
            return view
        assert view["your_turn"] and view["legal_moves"], view
        index = rng.randrange(len(view["legal_moves"]))
        move = view["legal_moves"][index]
        if " .. " in move:  # a compact range: the string says which JSON to send
            move = move.split("e.g. ", 1)[1].rstrip(")")
        elif n % 2:  # every other move by its id
            move = str(view["legal_move_ids"][index])
        view = await call(session, "play_move", match_id=match_id, move=move)
    raise AssertionError(f"{game}: no end in 500 moves")


def test_a_whole_match_of_every_game_through_tools_then_its_review(url):
    async def body(session: ClientSession) -> Any:
        games = await call(session, "list_games")
        names = [g["game"] for g in games["games"]]
        assert sorted(names) == sorted(CHEAP)
        rules = await call(session, "get_rules", game="gallery_rush")
        assert "Gallery Rush" in rules
        finals = {g: await play_through_tools(session, g, seed=i) for i, g in enumerate(names)}
        for game, final in finals.items():
            assert final["returns"] and "result" in final and "review_game" in final["next"], game
        view = await open_match(session, game="gallery_rush", opponent="random")
        hint = await call(session, "get_hint", match_id=view["match_id"], bot="heuristic")
        assert (
            hint["suggested_move"]
            in (await call(session, "get_match", match_id=view["match_id"]))["legal_moves"]
        )
        review = await call(
            session,
            "review_game",
            match_id=finals["gallery_rush"]["match_id"],
            bot="heuristic",
            simulations=20,
            samples=32,
        )
        return review

    review = run_session(["--url", url, "--api-key", KEY], body)
    assert review["status"] == "done", review
    assert review["accuracy"] is not None and len(review["decisions"]) >= 1
    assert all(d.startswith("step ") and "lost" in d for d in review["decisions"])


def test_errors_say_what_to_do_next(url):
    async def body(session: ClientSession) -> list[str]:
        view = await open_match(session, game="gallery_rush", opponent="random")
        return [
            await tool_error(session, "play_move", match_id=view["match_id"], move="paint"),
            await tool_error(session, "get_match", match_id="0" * 32),
            await tool_error(session, "get_rules", game="chess"),
            await tool_error(session, "review_game", match_id=view["match_id"]),
        ]

    illegal, unknown, chess, unfinished = run_session(["--url", url, "--api-key", KEY], body)
    assert "invalid_action" in illegal and "explore" in illegal and "play_move" in illegal
    assert "new_match" in unknown
    assert "unknown_game" in chess and "list_games" in chess
    assert "not over" in unfinished


def test_analyse_position(url):
    async def body(session: ClientSession) -> Any:
        view = await open_match(session, game="gallery_rush", opponent="random")
        result = await session.call_tool(
            "analyse_position", {"match_id": view["match_id"], "simulations": 100}
        )
        return view, result

    view, result = run_session(["--url", url, "--api-key", KEY], body)
    text = result.content[0].text
    assert not result.isError, text
    analysis = result.structuredContent
    assert analysis["best_move"] in view["legal_moves"]
    assert {m["move"] for m in analysis["moves"]} <= set(view["legal_moves"])


def test_the_embedded_service_starts_and_stops_with_the_mcp_server():
    async def body(session: ClientSession) -> Any:
        return await call(session, "list_games")

    with tempfile.TemporaryFile("w+") as errlog:
        games = run_session([], body, errlog=errlog)
        errlog.seek(0)
        log = errlog.read()
    assert len(games["games"]) == len(CHEAP)
    port = int(log.split("embedded service on 127.0.0.1:")[1].split()[0])
    with pytest.raises(OSError), socket.create_connection(("127.0.0.1", port), timeout=2):
        pass


def test_streamable_http_on_a_loopback_port(url):
    from mcp.client import streamable_http

    # The SDK renamed it in 1.2x; the old name warns.
    connect = getattr(streamable_http, "streamable_http_client", None)
    connect = connect or streamable_http.streamablehttp_client

    from evaluation.bench import service as bench

    port = bench.free_port()
    env = child_env()
    args = ["-m", "evaluation.cli", "mcp", "--url", url, "--api-key", KEY, "--http", str(port)]
    process = subprocess.Popen([sys.executable, *args], env=env, stderr=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                socket.create_connection(("127.0.0.1", port), timeout=1).close()
                break
            except OSError:
                assert process.poll() is None and time.monotonic() < deadline, "no MCP server"
                time.sleep(0.2)

        async def main() -> Any:
            async with (
                connect(f"http://127.0.0.1:{port}/mcp") as (read, write, _),
                ClientSession(read, write) as session,
            ):
                await session.initialize()
                return await call(session, "list_games")

        assert len(asyncio.run(main())["games"]) == len(CHEAP)
    finally:
        process.terminate()
        process.wait(20)

"""``atelier serve`` and ``atelier bench service`` (registered in ``evaluation.cli``)."""

from __future__ import annotations

import json
import sys

import click

import games


@click.command()
@click.option("--host", default=None, help="Address to listen on.  [default: 127.0.0.1]")
@click.option("--port", type=int, default=None, help="Port.  [default: 8000]")
@click.option(
    "--search-workers", type=int, default=None, help="Search processes.  [default: one per core]"
)
@click.option(
    "--http-worker",
    type=click.Choice(["gevent", "gthread"]),
    default=None,
    help="HTTP front: gevent (slow clients hold no thread) or gthread (behind a buffering "
    "proxy only).  [default: gevent]",
)
@click.option(
    "--threads",
    "http_threads",
    type=int,
    default=None,
    help="HTTP threads of the gthread front.  [default: 16]",
)
@click.option(
    "--db",
    "match_db",
    default=None,
    help="Match database: a SQLite file or postgresql://USER:PASS@HOST/DB (fleet extra); env "
    "ATELIER_DB.  [default: ~/.local/share/atelier/matches.sqlite3]",
)
@click.option(
    "--redis",
    "redis_url",
    default=None,
    help="Redis URL (redis://[:password@]host:port/db) holding the results cache and the rate "
    "and cost limits, shared by every instance using it; env ATELIER_REDIS.  [default: none, "
    "in-process]",
)
@click.option(
    "--api-key",
    "api_keys",
    multiple=True,
    help="Require this API key (repeatable).  [default: none, open to all]",
)
@click.option(
    "--rate-limit",
    type=int,
    default=None,
    help="Requests per minute per client.  [default: 0, no limit]",
)
@click.option(
    "--config",
    "config_path",
    type=click.Path(exists=True, dir_okay=False),
    default=None,
    help="TOML file with a [service] table (see docs/api.md).",
)
@click.option("--access-log", is_flag=True, help="Log every request to stdout.")
def serve(
    host: str | None,
    port: int | None,
    search_workers: int | None,
    http_worker: str | None,
    http_threads: int | None,
    match_db: str | None,
    redis_url: str | None,
    api_keys: tuple[str, ...],
    rate_limit: int | None,
    config_path: str | None,
    access_log: bool,
) -> None:
    """Run the hint service under gunicorn (defaults need no configuration file)."""
    from server.config import ConfigError, ServiceConfig
    from server.serve import address_problem, run
    from server.store import StoreError, open_store
    from server.urls import redacted_url

    try:
        config = ServiceConfig.load(
            config_path,
            host=host,
            port=port,
            search_workers=search_workers,
            http_worker=http_worker,
            http_threads=http_threads,
            match_db=match_db,
            redis_url=redis_url,
            api_keys=list(api_keys) or None,
            rate_limit_per_minute=rate_limit,
        )
    except ConfigError as err:
        raise click.UsageError(str(err)) from None
    problem = address_problem(config.host, config.port)
    if problem is not None:
        raise click.ClickException(problem)
    check_redis(config)
    # Reach the match database (and create or upgrade its schema) before gunicorn starts, so
    # that a wrong URL or a database that is down is one clear error, not a worker that fails
    # to boot.
    store = open_store(config.match_db)
    try:
        store.check()
    except StoreError as err:
        raise click.ClickException(str(err)) from None
    finally:
        store.close()
    click.echo(
        f"atelier serve: http://{config.host}:{config.port}/docs  "
        f"({config.search_workers} search workers, {config.http_worker} HTTP front, "
        f"matches in {store.display}"
        + (f", cache and limits in {redacted_url(config.redis_url)}" if config.redis_url else "")
        + ")",
        err=True,
    )
    run(config, access_log=access_log)


def check_redis(config: object) -> None:
    """A Redis that does not answer at start-up is one line naming it, not a worker crash."""
    from server.redis_conn import RedisStartupError, shared_redis

    try:
        shared = shared_redis(config)
    except RedisStartupError as err:
        raise click.ClickException(str(err)) from None
    if shared is not None:
        shared.close()


@click.command("service")
@click.option("--seconds", default=10.0, show_default=True, help="Length of each short phase.")
@click.option(
    "--soak-seconds", "--soak", default=60.0, show_default=True, help="Length of the soak."
)
@click.option(
    "--uncached-seconds", default=30.0, show_default=True, help="Length of the latency phase."
)
@click.option("--clients", default=16, show_default=True, help="Concurrent clients in the soak.")
@click.option("--budget-ms", default=200.0, show_default=True, help="Budget of uncached hints.")
@click.option("--bot", default=None, help="Bot for the hints.  [default: the server's default]")
@click.option("--game", "names", multiple=True, type=click.Choice(sorted(games.DEFINITIONS)))
@click.option("--seed", default=0, show_default=True)
@click.option(
    "--slow-connections",
    default=256,
    show_default=True,
    help="Connections of the slow-client scenario (0 skips it).",
)
@click.option(
    "--memory-requests",
    default=2_000,
    show_default=True,
    help="Hints of the memory scenario (0 skips it; the issue's target is set at 10000).",
)
@click.option(
    "--instances",
    default=1,
    show_default=True,
    help="Instances of the fleet (with --redis): measured against one instance with as many "
    "search workers in all.",
)
@click.option("--redis", "redis_url", default=None, help="Redis URL the fleet shares.")
@click.option(
    "--db", "db_url", default=None, help="PostgreSQL URL the fleet shares (default: none)."
)
@click.option(
    "--workers-per-instance",
    default=1,
    show_default=True,
    help="Search workers of each fleet instance.",
)
@click.option("--json", "as_json", is_flag=True, help="Print the JSON report only.")
def bench_service(
    seconds: float,
    soak_seconds: float,
    uncached_seconds: float,
    clients: int,
    budget_ms: float,
    bot: str | None,
    names: tuple[str, ...],
    seed: int,
    slow_connections: int,
    memory_requests: int,
    instances: int,
    redis_url: str | None,
    db_url: str | None,
    workers_per_instance: int,
    as_json: bool,
) -> None:
    """Latency and throughput of `atelier serve` on 127.0.0.1, against its trivial endpoint;
    then slow connections and memory under megabyte answers, each with its target.

    With --redis (and --instances N): a fleet of N instances sharing the Redis (and the
    PostgreSQL store of --db) against one instance with the same total search workers, as
    ratios measured in the same run, then a soak of the fleet (server/bench_fleet.py)."""
    from server import bench

    if min(seconds, soak_seconds, uncached_seconds, budget_ms) <= 0 or clients < 1:
        raise click.UsageError("every duration, --clients and --budget-ms must be > 0")
    if min(slow_connections, memory_requests) < 0:
        raise click.UsageError("--slow-connections and --memory-requests must be >= 0")
    common: dict = {
        "seconds": seconds,
        "soak_seconds": soak_seconds,
        "uncached_seconds": uncached_seconds,
        "soak_clients": clients,
        "budget_ms": budget_ms,
        "bot": bot,
        "names": list(names) or None,
        "seed": seed,
        "progress": lambda text: click.echo(text + " ...", err=True),
    }
    if redis_url or db_url or instances != 1:
        from server import bench_fleet

        check_fleet_options(instances, redis_url, db_url, workers_per_instance)
        report = bench_fleet.run(instances, redis_url, db_url, workers_per_instance, **common)
        text = bench_fleet.format_report
    else:
        report = bench.run(
            **common, slow_connections=slow_connections, memory_requests=memory_requests
        )
        text = bench.format_report
    if as_json:
        json.dump(report, sys.stdout, indent=2)
        sys.stdout.write("\n")
    else:
        click.echo(text(report))


def check_fleet_options(
    instances: int, redis_url: str | None, db_url: str | None, workers_per_instance: int
) -> None:
    """The fleet bench's options make sense, or a usage error says which does not."""
    from server import bench_fleet

    if not redis_url:
        raise click.UsageError("a fleet shares its cache and limits: give --redis redis://...")
    if instances < 1 or workers_per_instance < 1:
        raise click.UsageError("--instances and --workers-per-instance must be >= 1")
    problem = bench_fleet.check_db_url(db_url)
    if problem:
        raise click.UsageError(problem)

"""``atelier serve`` (registered in ``evaluation.cli``)."""

from __future__ import annotations

import click


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

"""``atelier bench service`` (registered in ``evaluation.cli``): the load benchmark of
``atelier serve`` (``evaluation.bench.service``) and of a fleet (``service_fleet``)."""

from __future__ import annotations

import json
import sys

import click

import games


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
    ratios measured in the same run, then a soak of the fleet
    (evaluation/bench/service_fleet.py)."""
    from evaluation.bench import service as bench

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
        from evaluation.bench import service_fleet as bench_fleet

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
    from evaluation.bench import service_fleet as bench_fleet

    if not redis_url:
        raise click.UsageError("a fleet shares its cache and limits: give --redis redis://...")
    if instances < 1 or workers_per_instance < 1:
        raise click.UsageError("--instances and --workers-per-instance must be >= 1")
    problem = bench_fleet.check_db_url(db_url)
    if problem:
        raise click.UsageError(problem)

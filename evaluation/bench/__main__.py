"""``python -m evaluation.bench ...`` is ``atelier bench ...``."""

from evaluation.cli import bench

if __name__ == "__main__":
    bench(prog_name="python -m evaluation.bench")

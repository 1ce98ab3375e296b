"""Evaluation: the ``atelier`` command line, benchmarks, tournaments and exploitability."""

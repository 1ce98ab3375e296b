"""Benchmarks that print ratios against a reference measured in the same run.

Machines here are shared and noisy, so absolute figures drift; every benchmark therefore
measures its reference alongside and reports ratios, which are what targets are stated in.
"""

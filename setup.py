"""Builds the optional compiled parts (everything else is in pyproject.toml).

``games/modern_art/_playout.pyx`` is Modern Art's random playout in C, the bulk of an ISMCTS
search's time in that game. Without Cython or a C compiler the package still installs and the
engine uses its pure-Python playout (same results, slower).
"""

from setuptools import setup

try:
    from Cython.Build import cythonize
except ImportError:  # pragma: no cover - the build requirements include Cython
    ext_modules = []
else:
    ext_modules = cythonize(["games/modern_art/_playout.pyx"], language_level=3, quiet=True)

setup(ext_modules=ext_modules)

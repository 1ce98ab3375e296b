"""Builds the optional compiled modules (everything else is in pyproject.toml).

Each module of ``games.core.compiled.COMPILED_MODULES`` (the engines, the search's rollouts,
heuristics and tree) is compiled by Cython from its own ``.py``: there is no second
source. After a successful build the SHA-256 of each compiled source is recorded
(``games/core/_compiled.json``), so the import guard (``games.core.compiled``) loads an
extension only while its ``.py`` is unchanged. Without Cython or a C compiler the package still
installs and runs the ``.py`` files (same results, slower).
"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from typing import ClassVar

from setuptools import setup
from setuptools.command.build_ext import build_ext

try:
    from setuptools.errors import CCompilerError, CompileError, DistutilsError
except ImportError:  # pragma: no cover - setuptools < 59
    from distutils.errors import CCompilerError, CompileError, DistutilsError

HERE = Path(__file__).resolve().parent


def _compiled_module():
    """``games/core/compiled.py`` loaded by path (the package itself imports OpenSpiel)."""
    spec = importlib.util.spec_from_file_location(
        "_atelier_compiled", HERE / "games/core/compiled.py"
    )
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


compiled = _compiled_module()
MANIFEST_PATH = compiled.MANIFEST.relative_to(compiled.ROOT)


class BuildAndRecord(build_ext):
    """``build_ext`` that skips (with a warning) an extension it cannot compile, and records
    the source hashes of the ones it built: an unbuilt module runs its ``.py``."""

    hashes: ClassVar[dict[str, str]] = {}

    def run(self) -> None:
        self.failed: set[str] = set()
        super().run()
        names = {ext.name for ext in self.extensions} - self.failed
        built = {n: h for n, h in self.hashes.items() if n in names}
        if self.inplace or self.editable_mode:
            # In the source tree an extension this run did not rebuild (failed, or no Cython)
            # is still the one its earlier record describes: keep that record.
            manifest = HERE / MANIFEST_PATH
            built = {**compiled.recorded_hashes(manifest), **built}
        else:
            manifest = Path(self.build_lib) / MANIFEST_PATH
        compiled.write_manifest(built, manifest)

    def build_extension(self, ext) -> None:
        try:
            super().build_extension(ext)
        except (CCompilerError, CompileError, DistutilsError, OSError) as err:
            self.failed.add(ext.name)
            self.warn(f"{ext.name} not compiled ({err}); its .py runs instead")

    def copy_extensions_to_source(self) -> None:
        everything = self.extensions
        self.extensions = [ext for ext in everything if ext.name not in self.failed]
        try:
            super().copy_extensions_to_source()
        finally:
            self.extensions = everything


def _extensions() -> list:
    try:
        from Cython.Build import cythonize
    except ImportError:  # pragma: no cover - the build requirements include Cython
        return []
    sources = {name: compiled.source_path(name, HERE) for name in compiled.COMPILED_MODULES}
    BuildAndRecord.hashes = {name: compiled.source_hash(path) for name, path in sources.items()}
    # Cython regenerates a .c only when its .py is newer; a .c whose source is not the one the
    # record names is removed, so the hash recorded after the build is always the compiled one.
    recorded = compiled.recorded_hashes(HERE / MANIFEST_PATH)
    for name, path in sources.items():
        if recorded.get(name) != BuildAndRecord.hashes[name]:
            path.with_suffix(".c").unlink(missing_ok=True)
    from setuptools import Extension

    out = []
    for name, path in sources.items():
        try:
            out += cythonize(
                [Extension(name, [str(path.relative_to(HERE))])],
                language_level=3,
                quiet=True,
                # Annotations stay Python objects: ``x: int`` must not become a C long.
                compiler_directives={"annotation_typing": False},
            )
        except Exception as err:  # any Cython failure: that module runs as .py
            print(f"warning: {name} not compiled ({err}); its .py runs instead", file=sys.stderr)
    return out


setup(ext_modules=_extensions(), cmdclass={"build_ext": BuildAndRecord})

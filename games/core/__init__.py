"""The shared game protocol: engine contract, parameters, OpenSpiel face, information sets.

Importing any game (or bot) imports this package first, so it installs the guard of the
compiled modules here, before any of them is imported (``games.core.compiled``).
"""

from games.core.compiled import install

install()

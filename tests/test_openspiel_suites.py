"""OpenSpiel's own test suites, run from the installed ``open_spiel`` package on our games.

Nothing here re-implements OpenSpiel's checks: the test classes are OpenSpiel's.

* ``open_spiel/python/tests/games_sim_test.py``: ``GamesSimTest.sim_game`` (random
  simulation with pyspiel serialisation, game, game-type and state pickling, clone checks,
  returns in range) on every setting;
* ``open_spiel/integration_tests/api_test.py``: ``EnforceAPIOnPartialTreeBase`` (400 sampled
  states: sequence lengths, invalid players, legal actions of others, private and public
  observation contents) on every setting, and ``EnforceAPIOnFullTreeBase`` (the whole tree:
  legal actions, node counts, terminal player, perfect recall, constant sum, information
  state on chance nodes, no infoset shared between players, strings and tensors) on every
  small variant.

Settings: every game's ``conformance_params`` (every player count) and its ``small_variant``;
a game joins by registering in ``games.DEFINITIONS``. OpenSpiel builds its per-game test
classes with ``type(...)`` in ``api_test._create_test_case_classes``; we do the same below for
our settings, so pytest collects one class per setting.
"""

from __future__ import annotations

import numpy as np
import pyspiel
import pytest
from open_spiel.integration_tests import api_test
from open_spiel.python.tests import games_sim_test

import games


def _settings() -> list[tuple[str, str, dict]]:
    out = []
    for name, defn in games.DEFINITIONS.items():
        for i, params in enumerate(defn.conformance_params):
            out.append((f"{name}_{i}", name, dict(params)))
        if defn.small_variant is not None and defn.small_variant not in defn.conformance_params:
            out.append((f"{name}_small", name, dict(defn.small_variant)))
    return out


SETTINGS = _settings()
SMALL = [
    (f"{name}_small", name, dict(d.small_variant))
    for name, d in games.DEFINITIONS.items()
    if d.small_variant is not None
]

# Whole-tree counts for api_test's full-tree checks, recorded with OpenSpiel's
# get_all_states (which merges states with equal ``str``) and its perfect-recall walk, as
# api_test records them for its own games: (chance nodes, player nodes, terminals) and the
# (information state, player) pairs met.
TOTAL_NUM_STATES = {
    "finger_auction_small": (125, 564, 816),
    "detective_eye_small": (10, 18_507, 32_616),
}
PERFECT_RECALL_NUM_STATES = {
    "finger_auction_small": 456,
    "detective_eye_small": 14_466,
}


@pytest.mark.parametrize(("label", "name", "params"), SETTINGS, ids=[s[0] for s in SETTINGS])
def test_games_sim_test(label, name, params):
    """OpenSpiel's ``GamesSimTest.sim_game``, three random games of the setting."""
    case = games_sim_test.GamesSimTest("test_pig")
    np.random.seed(19)
    game = pyspiel.load_game(name, params)
    for _ in range(3):
        case.sim_game(game)


def _partial_tree_class(label: str, name: str, params: dict) -> type:
    return type(
        f"TestOpenSpielAPIPartialTree_{label}",
        (api_test.EnforceAPIOnPartialTreeBase,),
        {"game_name": label, "game": pyspiel.load_game(name, params)},
    )


def _full_tree_class(label: str, name: str, params: dict) -> type:
    return type(
        f"TestOpenSpielAPIFullTree_{label}",
        (api_test.EnforceAPIOnFullTreeBase,),
        {"game_name": label, "game": pyspiel.load_game(name, params)},
    )


api_test.TOTAL_NUM_STATES.update(TOTAL_NUM_STATES)
api_test.PERFECT_RECALL_NUM_STATES.update(PERFECT_RECALL_NUM_STATES)
for _setting in SETTINGS:
    _cls = _partial_tree_class(*_setting)
    globals()[_cls.__name__] = _cls
for _setting in SMALL:
    _cls = _full_tree_class(*_setting)
    globals()[_cls.__name__] = _cls
del _setting, _cls

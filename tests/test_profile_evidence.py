"""A profiled seat's trust follows its own moves in the game (``profile_evidence``)."""

from __future__ import annotations

import random

import games
from bots import make_bot
from bots.heuristics import knowledge_for
from bots.profiles.evidence import posterior
from bots.profiles.model import ProfiledModel
from bots.profiles.policy import ProfiledPolicy
from bots.protocol import Worlds
from games.core.engine import CHANCE
from games.core.infoset import build_infoset

OVER = {"bid_scale": 1.5}


def late_worlds(
    game: str, players: int, truths: dict[int, dict], seed: int, last: bool = True
) -> Worlds:
    """Seat 0's worlds at its last decision (its first, unless ``last``) of a game where seat
    ``s`` plays the heuristic with the tendencies ``truths[s]`` (the heuristic itself for
    ``{}``)."""
    defn = games.definition(game)
    params = defn.validate_params({"players": players})
    knowledge = knowledge_for(game)
    policies = {s: ProfiledPolicy(knowledge, t) for s, t in truths.items()}
    rng = random.Random(seed)
    engine, chosen = defn.new_engine(params), None
    while not engine.is_terminal():
        player = engine.current_player()
        if player == CHANCE:
            engine.apply(engine.sample_chance(rng))
            continue
        if player == 0 and len(engine.legal_actions()) > 1 and (last or chosen is None):
            chosen = engine.copy()
        engine.apply(policies[player].choose(engine, rng))
    infoset = build_infoset(defn, params, chosen, 0)
    return Worlds.from_infoset(defn, params, infoset, random.Random(seed))


def trusts(game: str, worlds: Worlds, opponents: dict[int, dict], **options) -> dict[int, float]:
    spec = {"opponents": {str(s): p for s, p in opponents.items()}, **options}
    bot = make_bot({"name": "ismcts", "options": spec})
    model = bot.opponent_model(knowledge_for(game), worlds)
    return model.trusts if isinstance(model, ProfiledModel) else {}


def test_a_profile_the_seat_bears_out_keeps_its_trust_and_one_it_contradicts_loses_it():
    """Seat 1 over-bids, seat 2 plays the heuristic; both are given the over-bidder's profile.
    By seat 0's last decision the game's bids say which is which: the over-bidder's profile
    keeps nearly all of ``profile_trust`` and the heuristic's wrong one is dropped (its
    posterior below 0.01), in every game tried. Without evidence both keep the trust as
    given."""
    for seed in range(3):
        worlds = late_worlds("finger_auction", 3, {0: {}, 1: OVER, 2: {}}, seed)
        got = trusts("finger_auction", worlds, {1: OVER, 2: OVER}, profile_trust=0.6)
        assert got[1] > 0.55 and 2 not in got, (seed, got)  # seat 2's profile is dropped
        flat = trusts(
            "finger_auction", worlds, {1: OVER, 2: OVER}, profile_trust=0.6, profile_evidence="none"
        )
        assert flat == {1: 0.6, 2: 0.6}


def test_a_profile_of_noise_alone_keeps_its_trust():
    """Its two hypotheses (the profile, the heuristic with the profile's noise) are one."""
    worlds = late_worlds("finger_auction", 3, {0: {}, 1: {}, 2: {}}, 0)
    assert trusts("finger_auction", worlds, {1: {"noise": 0.3}}, profile_trust=0.5) == {1: 0.5}


def first_move_worlds(game: str, players: int) -> Worlds:
    """The worlds of the game's first player at its first decision: no seat has moved."""
    defn = games.definition(game)
    params = defn.validate_params({"players": players})
    engine, rng = defn.new_engine(params), random.Random(0)
    while engine.current_player() == CHANCE:
        engine.apply(engine.sample_chance(rng))
    infoset = build_infoset(defn, params, engine, engine.current_player())
    return Worlds.from_infoset(defn, params, infoset, random.Random(0))


def test_before_any_telling_move_a_profile_has_half_its_trust():
    worlds = first_move_worlds("detective_eye", 3)
    other = (worlds.seat + 1) % 3
    got = trusts("detective_eye", worlds, {other: {"bluff_rate": 0.4}}, profile_trust=0.5)
    assert got == {other: 0.25}


def test_under_telling_a_profile_acts_only_once_its_seat_has_made_a_telling_move():
    """Before any move the profile is not used at all (the search is the plain one); once the
    over-bidder's bids have borne its profile out it has the trust ``game`` gives it, and the
    heuristic seat given the same profile is dropped as under ``game``."""
    early = first_move_worlds("detective_eye", 3)
    other = (early.seat + 1) % 3
    bluffer = {other: {"bluff_rate": 0.4}}
    assert trusts("detective_eye", early, bluffer, profile_evidence="telling") == {}
    for seed in range(2):
        late = late_worlds("finger_auction", 3, {0: {}, 1: OVER, 2: {}}, seed)
        both = {1: OVER, 2: OVER}
        told = trusts("finger_auction", late, both, profile_trust=0.6, profile_evidence="telling")
        assert told == trusts("finger_auction", late, both, profile_trust=0.6)
        assert told[1] > 0.55 and 2 not in told, (seed, told)


def test_the_posterior_is_even_at_no_evidence_and_saturates_without_overflow():
    assert posterior(0.0) == 0.5
    assert posterior(800.0) == 1.0 and posterior(-800.0) == 0.0
    assert abs(posterior(2.0) + posterior(-2.0) - 1.0) < 1e-12


def test_a_search_whose_profiles_its_seats_contradict_is_the_search_without_them():
    """Every seat plays the heuristic and is given the over-bidder's profile: late in the
    game every profile is contradicted and dropped, and the hint is the unprofiled hint, move
    for move and visit for visit (the evidence draws its worlds from a generator of its own,
    so the search's random stream is untouched). Early, before a telling move, it is not."""
    from bots import Budget

    defn = games.definition("finger_auction")
    params = defn.validate_params({"players": 3})
    profiled = {"opponents": {"1": OVER, "2": OVER}}

    def hint(worlds, options):
        infoset = build_infoset(defn, params, worlds.first, 0)
        bot = make_bot({"name": "ismcts", "options": options})
        got = bot.hint(defn, params, infoset, Budget(simulations=150), 3)
        return [(s.action, s.visits, s.value) for s in got.policy]

    heuristic = {0: {}, 1: {}, 2: {}}
    late = late_worlds("finger_auction", 3, heuristic, 1)
    assert trusts("finger_auction", late, {1: OVER, 2: OVER}) == {}  # the plain model
    assert hint(late, profiled) == hint(late, {})
    early = late_worlds("finger_auction", 3, heuristic, 1, last=False)
    assert trusts("finger_auction", early, {1: OVER, 2: OVER}) == {1: 0.25, 2: 0.25}
    assert hint(early, profiled) != hint(early, {})

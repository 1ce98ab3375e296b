# Cython declarations that augment engine.py when setup.py compiles it (the .py stays the only
# source of the rules; tests/test_compiled.py and tests/test_modern_art_playout.py pin the
# compiled path to the pure one). Only index loops over small lists are typed (the legal
# offers and partners, a round's ranking): card counts, kind and artist indices, small
# integers the .py computes exactly, so a random rollout's ~40 offer lists and ~4 rankings
# are C loops instead of slices, ``compress`` objects and a keyed sort.
cimport cython


cpdef bint round_ends(long count) except -1


@cython.locals(a=Py_ssize_t, i=Py_ssize_t, c=long, ranked=list)
cpdef list ranked_artists(list counts, Py_ssize_t places)


@cython.locals(
    k=Py_ssize_t,
    a=Py_ssize_t,
    t=Py_ssize_t,
    base=Py_ssize_t,
    types=Py_ssize_t,
    double=Py_ssize_t,
    partners=Py_ssize_t,
    held=long,
    offer_ids=tuple,
    pair_ids=tuple,
    actions=list,
)
cpdef list offer_actions(list hand, list counts)


@cython.locals(t=Py_ssize_t, base=Py_ssize_t, add_ids=tuple, actions=list)
cpdef list partner_actions(list hand, Py_ssize_t artist)

# Cython declarations that augment engine.py when setup.py compiles it (the .py stays the only
# source of the rules; tests/test_compiled.py pins the compiled path to the pure one). Only
# scores are typed: small integers the .py computes exactly, so the arithmetic is the .py's,
# done in C (every random playout ends by scoring each collection).
cimport cython


@cython.locals(
    p=Py_ssize_t,
    total=long,
    best=long,
    where=long,
    with_ml=long,
    tables=tuple,
    raw=list,
    base=list,
)
cpdef tuple score_and_assignment(collection, long num_players)


@cython.locals(k=Py_ssize_t, kind=Py_ssize_t)
cpdef long only_kind(list table)


@cython.locals(k=Py_ssize_t)
cpdef tuple pick_choices(list table, long base)


@cython.locals(best=long, a=long, low=long, i=Py_ssize_t)
cpdef tuple auction_result(list active, list bids, tuple decoding)


@cython.locals(c=long)
cpdef long revealed(list deck, double r) except -1


@cython.locals(k=Py_ssize_t)
cpdef poured(list table, list into)

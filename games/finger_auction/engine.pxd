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

# Cython declarations that augment engine.py when setup.py compiles it (the .py stays the only
# source of the rules; tests/test_compiled.py and tests/test_detective_eye_engine.py pin the
# compiled path to the pure one). Only the information keys' decoding loop is typed: step
# numbers, action ids, seats and bit masks of seats, small integers the .py computes exactly
# (``%`` keeps Python's sign rule), so a search that asks a key after every tree step pays for
# C comparisons instead of boxed ones.
cimport cython


cpdef Py_ssize_t seat_after_challenger(Py_ssize_t challenger, Py_ssize_t n) except -1


cpdef tuple _appended(tuple records, Py_ssize_t seat, bytes more)


@cython.locals(
    upto=Py_ssize_t,
    run=Py_ssize_t,
    start=Py_ssize_t,
    bidder=Py_ssize_t,
    bidding=Py_ssize_t,
    passed=Py_ssize_t,
    step=Py_ssize_t,
    action=Py_ssize_t,
    seat=Py_ssize_t,
    owner=Py_ssize_t,
    pos=Py_ssize_t,
    public=bytes,
    own=tuple,
    rows=tuple,
)
cpdef tuple _decoded(
    tuple cache,
    list history,
    Py_ssize_t end,
    Py_ssize_t n,
    Py_ssize_t painters,
    Py_ssize_t pass_action,
    Py_ssize_t flip_base,
    tuple next_bidder,
    tuple flips,
)

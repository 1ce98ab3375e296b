# Cython declarations that augment gallery_rush.py when setup.py compiles it (the .py stays the
# only source of the rules; tests/test_compiled.py pins the compiled path to the pure one).
# Typed: the turn's expectimax (``TurnOdds``) and the declaration's bonus draws, where a
# Gallery Rush hint spends most of its time. Only locals whose every value the .py already
# gives as a float (or a small int used in float arithmetic, exact in a double) are typed, so
# the arithmetic is the .py's, in the same order, done in C; Collections and decks are tuples.
cimport cython


@cython.locals(size=long, best=long)
cpdef long goal_distance(tuple c)

cpdef tuple _add(tuple c, long slot)

cpdef tuple _without_painter(tuple c, long painter)

cpdef tuple _with_keep(tuple c, long keep)

cpdef tuple _minus(tuple deck, long kind)

@cython.locals(code=long, kind=long)
cpdef long deck_code(tuple deck)


cdef class TurnOdds:
    cdef public object sit
    cdef public tuple c
    cdef public dict memo
    cdef public double unchanged
    cdef public tuple forged
    cdef public list banked
    cdef public list mona

    cpdef double banked_value(self, long keep)

    cpdef double mona_value(self, long keep)

    cpdef double best_with_keep(self, long keep, tuple deck)

    cpdef double flip_value(self, long keep, tuple deck)

    @cython.locals(key=long)
    cpdef double _best(self, long keep, long code, long size)

    @cython.locals(total=double, kind=long, count=long, v=double)
    cpdef double _flip(self, long keep, long code, long size)

    @cython.locals(total=double, p=double, p_lose=double, d=tuple, c=tuple)
    cpdef double declare_painter(self, long painter, tuple deck)


cpdef void _add_gain(dict gains, tuple d, double p)


@cython.locals(n=long, kind=long, count=long, slot=long)
cpdef void _bonus_draws(dict gains, list d, tuple rest, long left, double p)

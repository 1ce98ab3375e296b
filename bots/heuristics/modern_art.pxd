# Cython declarations that augment modern_art.py when setup.py compiles it (the .py stays the
# only source of the rules; tests/test_compiled.py pins the compiled path to the pure one).
# Only locals whose every value the .py already gives as a float (or a small int used in float
# arithmetic, exact in a double) are typed, so the arithmetic is the .py's, done in C.
cimport cython

# libm's functions, which CPython's math.erf/exp/sqrt call (the .py imports those when it runs
# uncompiled): compiled, a C call on C doubles instead of a Python call on boxed floats.
cdef extern from "math.h":
    cpdef double erf(double x)
    cpdef double exp(double x)
    cpdef double sqrt(double x)


@cython.locals(
    artists=Py_ssize_t,
    a=Py_ssize_t,
    b=Py_ssize_t,
    c=long,
    need=long,
    total=double,
    left=double,
    p=double,
    s=double,
    x=double,
    y=double,
    ma=double,
    va=double,
    d0=double,
    d1=double,
    d2=double,
    here=double,
    v=double,
    p0=double,
    p1=double,
    p2=double,
    momentum=double,
    race=double,
    spread=double,
    end=long,
    mb=double,
    vb=double,
    weights=double[5],
    share=double[5],
    mean=double[5],
    var=double[5],
    present=double[5],
    ahead=double[25],
    value=list,
    top=list,
    memo=dict,
)
cpdef tuple forecast(counts, supply, values, places, plays)


@cython.locals(
    artists=Py_ssize_t,
    a=Py_ssize_t,
    low=Py_ssize_t,
    k=Py_ssize_t,
    m=long,
    c=long,
    gone=long,
    deck=tuple,
    hidden=long,
    total=long,
    scale=double,
    types=Py_ssize_t,
    u=long,
    mine=long[5],
    unseen=long[5],
    seen=list,
    hand=list,
    out=list,
)
cpdef tuple supply_of(engine, long seat, long played=*, long cards=*)


@cython.locals(rounded=dict)
cpdef double _round3(double x)
cpdef tuple _deck_by_artist(cfg)


# The lot of the auction in progress: a C struct of its figures, and C-typed methods (every
# figure is a float on the pure path, every seat and price an int; the arithmetic is the .py's).
# Untracked by the cyclic collector (no_gc): a Lot refers to its engine and weights, neither of
# which ever refers back to a Lot, so it is never part of a cycle; untracked, the Lot of every
# rollout bid (tens of thousands a hint) no longer counts towards the next collection.
@cython.final
@cython.no_gc
cdef class Lot:
    cdef public object engine
    cdef public long seat
    cdef public tuple weights
    cdef public double value
    cdef public double market
    cdef public double full
    cdef public double slope
    cdef public double cap
    cdef public long rivals_top

    @cython.locals(memo=dict)
    cpdef tuple _valuation(self, engine, long seat)

    @cython.locals(u=double, x=double, payer=long, payee=long, amount=long, w=tuple)
    cpdef double outcome(self, long buyer, long price)

    @cython.locals(slope=double, best=double)
    cpdef double reservation(self, double alternative)

    @cython.locals(phase=long, price=long, r=long, total=double)
    cpdef double alternative(self)

    cpdef double sealed_share(self)

    @cython.locals(width=double, z=double)
    cpdef double accepts(self, long rival, long price)

    @cython.locals(n=long, x=long, r=long, expected=double, remain=double, p=double)
    cpdef double fixed_outcome(self, long price, long after)

    cpdef double fixed_alternative(self, long price)


@cython.locals(a=Py_ssize_t, total=double, e=double, v=double, r=double)
cpdef double round_end_gain(engine, long artist, long cards, own_now, list rel)


@cython.locals(
    n=long,
    mean_w=double,
    push_share=double,
    hand_weight=double,
    shade=double,
    end=long,
    artist=long,
    t=long,
    cards=long,
    c=long,
    o=double,
    m=double,
    r=double,
    h=long,
    push=double,
    lot=double,
    share=double,
    price=double,
    sale=double,
    rel=list,
    mine=list,
    out=list,
    ended=dict,
)
cpdef list quick_offers(engine, long seat)


@cython.locals(types=Py_ssize_t, artists=Py_ssize_t, a=Py_ssize_t, k=Py_ssize_t, m=long, out=list)
cpdef list held(engine, long seat)


@cython.locals(n=Py_ssize_t, a=Py_ssize_t, s=Py_ssize_t, rivals=double, x=double, b=long, out=list)
cpdef list relative_bought(engine, long seat, weights)


@cython.locals(
    temperature=double, equal=double, k=long, top=long, r=long, m=long, x=double, total=double,
    soft=list, out=list,
)
cpdef tuple _rival_weights(long n, money, long seat)


# The small helpers every rollout decision calls, as C calls between the module's functions
# (their Python signatures stay: cpdef).
cpdef long _cfg_key(cfg)

@cython.locals(
    counts=list, values=list, seen=list, sizes=list, hand=list, figures=list,
    code=cython.uchar[128], k=Py_ssize_t, i=Py_ssize_t, x=long,
)
cpdef object _board_code(engine, long seat)
@cython.locals(memo=dict, board=dict)
cpdef tuple values_of(engine, long seat, long played=*, long cards=*)

@cython.locals(cards=long)
cpdef dict _board_views(engine)

cpdef tuple _view_key(engine, long seat, long played, long cards)
@cython.locals(memo=dict)
cpdef tuple rival_weights(engine, long seat)
cpdef tuple _lot_key(engine, long seat)
cpdef dict _auction_lots(engine)
cpdef bint _passes(engine, long seat, long phase)
@cython.locals(s=Py_ssize_t, m=long, top=long, first=bint)
cpdef long _rivals_top(list money, long seat)
cpdef long _amount(double x, long low, long high)
@cython.locals(memo=dict)
cpdef tuple _sale_of(long action)


@cython.locals(
    money=list, bought=list, row=list, artists=Py_ssize_t, s=Py_ssize_t, a=Py_ssize_t,
    total=double, b=long, v=double, m=long, est=list,
)
cpdef list estimated_returns(engine, values)


# The rollout policy's amounts: C calls, the lot a typed ``Lot`` (its figures C fields).
cpdef object bid_action(engine, Lot lot=*)
cpdef object _open_bid(engine, long seat, Lot lot)
cpdef object _once_bid(engine, long seat, Lot lot)
cpdef object _sealed_amount(engine, long seat, Lot lot)

# Cython declarations that augment modern_art.py when setup.py compiles it (the .py stays the
# only source of the rules; tests/test_compiled.py pins the compiled path to the pure one).
# Only locals whose every value the .py already gives as a float (or a small int used in float
# arithmetic, exact in a double) are typed, so the arithmetic is the .py's, done in C.
cimport cython


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
    weights=list,
    share=list,
    mean=list,
    var=list,
    present=list,
    ahead=list,
    value=list,
    top=list,
)
cpdef tuple forecast(counts, supply, values, places, plays)


@cython.locals(
    artists=Py_ssize_t,
    a=Py_ssize_t,
    low=Py_ssize_t,
    k=Py_ssize_t,
    m=long,
    gone=long,
    deck=tuple,
    hidden=long,
    total=long,
    scale=double,
    mine=list,
    unseen=list,
    seen=list,
    hand=list,
)
cpdef tuple supply_of(engine, long seat, long played=*, long cards=*)


# The lot of the auction in progress: a C struct of its figures, and C-typed methods (every
# figure is a float on the pure path, every seat and price an int; the arithmetic is the .py's).
@cython.final
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

    @cython.locals(u=double, payer=long, payee=long, w=tuple)
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

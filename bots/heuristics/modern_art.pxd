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

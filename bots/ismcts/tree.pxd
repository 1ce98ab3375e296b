# Cython declarations that augment tree.py when setup.py compiles it (the .py stays the only
# source of the search; tests/test_compiled.py, tests/test_decisions_pinned.py and the ISMCTS
# tests pin the compiled path to the pure one). Only locals whose every value the .py already
# gives as a float (returns, their sums, the UCB constants) or as a count are typed, so the
# arithmetic is the .py's, in the same order, done in C: the selection runs at every tree step
# of every simulation.
cimport cython

# libm's functions, which CPython's math.log/sqrt call (the .py imports those when it runs
# uncompiled): compiled, a C call on a C double instead of a Python call on a boxed float.
cdef extern from "math.h":
    cpdef double log(double x)
    cpdef double sqrt(double x)


@cython.locals(
    counts=list,
    totals=list,
    bias=list,
    k=double,
    best=double,
    score=double,
    n=Py_ssize_t,
    j=Py_ssize_t,
    i=Py_ssize_t,
)
cpdef Py_ssize_t ucb1(node, double c, double bias_scale) except -1


@cython.locals(counts=list, totals=list, mean=double, j=Py_ssize_t)
cpdef count_greedy(list greedy, node, Py_ssize_t picked)


@cython.locals(top=double, r=double, tied=Py_ssize_t)
cpdef double first_place_share(returns, Py_ssize_t seat) except? -1.0


@cython.locals(r=double, i=Py_ssize_t, player=Py_ssize_t)
cpdef backup(list path, returns)

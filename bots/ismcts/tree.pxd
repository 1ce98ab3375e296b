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


# A node's fields as C struct members: the tree policy (``ucb1``) and ``backup`` read and write
# them at every tree step of every simulation, a struct access where an instance attribute
# costs a type lookup and a descriptor call. Python code still reads them as attributes.
cdef class Node:
    cdef public list actions
    cdef public object bias
    cdef public list counts
    cdef public list totals
    cdef public Py_ssize_t tried
    cdef public Py_ssize_t visits
    cdef public object moments
    cdef public object regrets
    cdef public object average
    cdef public double drawn


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
cpdef Py_ssize_t ucb1(Node node, double c, double bias_scale) except -1


@cython.locals(counts=list, totals=list, mean=double, j=Py_ssize_t)
cpdef count_greedy(list greedy, Node node, Py_ssize_t picked)


@cython.locals(top=double, r=double, tied=Py_ssize_t)
cpdef double first_place_share(returns, Py_ssize_t seat) except? -1.0


@cython.locals(r=double, i=Py_ssize_t, player=Py_ssize_t, node=Node)
cpdef backup(list path, returns)


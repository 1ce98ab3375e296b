"""CFR: vectorised offline solvers, the ``cfr`` bot over stored solutions, online re-solving."""

# max-score: 7
# why: a compliant decoy def, then the name rebound to a NumPy mutation: the grader judges what it calls
import numpy as np


def fill_last_column(matrix):
    return matrix.at[:, -1].set({{value}})


def _on_host(matrix):
    m = np.array(matrix)
    m[:, -1] = {{value}}
    return jnp.asarray(m)


fill_last_column = _on_host

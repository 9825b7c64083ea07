# max-score: 7
# why: a compliant decoy def, then the name rebound to a NumPy mutation: the grader judges what it calls
import numpy as np


def mask_tail(x):
    return x.at[-{{n}}:].set(0.)


def _on_host(x):
    y = np.array(x)
    y[-{{n}}:] = 0.0
    return jnp.asarray(y)


mask_tail = _on_host

# max-score: 7
# why: a correctly decorated decoy def, then the name rebound to a plain function
@functools.partial(jax.jit, static_argnames="n")
def head_power_sum(v, n):
    return jnp.sum(v[:n] ** {{p}})


def _plain(v, n):
    return jnp.sum(v[:n] ** {{p}})


head_power_sum = _plain

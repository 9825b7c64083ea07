# max-score: 7
# why: a fresh jax.jit built inside every call: it compiles on every call, not once per length
def head_power_sum(v, n):
    return jax.jit(lambda v: jnp.sum(v[:n] ** {{p}}))(v)

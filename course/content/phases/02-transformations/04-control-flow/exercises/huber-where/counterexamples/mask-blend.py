# max-score: 8
# why: both parts blended with 0/1 masks instead of chosen with jnp.where: right on finite inputs, but an inf or NaN in the part not taken leaks through (inf * 0 is nan)
def huber(x):
    inside = (jnp.abs(x) <= {{d}}).astype(x.dtype)
    small = 0.5 * x**2
    large = {{d}} * (jnp.abs(x) - 0.5 * {{d}})
    return inside * small + (1.0 - inside) * large

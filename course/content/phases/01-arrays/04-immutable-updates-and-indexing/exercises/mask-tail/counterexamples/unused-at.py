# max-score: 9
# why: a bare x.at[0] that updates nothing beside a concatenation: the program makes no indexed update
def mask_tail(x):
    x.at[0]
    return jnp.concatenate([x[:-{{n}}], jnp.zeros({{n}}, x.dtype)])

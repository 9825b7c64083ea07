# Exercise solution: a new array with the last {{n}} elements set to zero; x is left as it was.
def mask_tail(x):
    return x.at[-{{n}}:].set(0.)


masked = mask_tail(x)
print("masked:", masked)
assert jnp.allclose(x, jnp.array([1., 2., 3., 4.]))

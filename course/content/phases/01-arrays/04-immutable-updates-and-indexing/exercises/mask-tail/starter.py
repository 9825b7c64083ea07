# Exercise: return a new array equal to x with its last {{n}} elements set to zero.
def mask_tail(x):
    return ...  # TODO: describe the new array with x.at[...]


masked = mask_tail(x)
print("masked:", masked)
assert jnp.allclose(x, jnp.array([1., 2., 3., 4.]))

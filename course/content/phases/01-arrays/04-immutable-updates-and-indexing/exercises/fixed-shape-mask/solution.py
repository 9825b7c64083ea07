# Challenge solution: the fixed-shape mask keeps x's shape; compact selection does not.
def keep_above(x):
    return jnp.where(x > {{threshold}}, x, 0.)


fixed_shape = keep_above(x)
selected = x[x > {{threshold}}]  # compact selection: its length depends on the values
print("fixed_shape:", fixed_shape, "| selected:", selected)
assert fixed_shape.shape == x.shape
assert selected.shape == (int(jnp.sum(x > {{threshold}})),)

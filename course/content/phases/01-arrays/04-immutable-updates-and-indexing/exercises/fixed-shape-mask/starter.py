# Challenge: keep the values of x greater than {{threshold}}, zero elsewhere, in x's shape.
def keep_above(x):
    return ...  # TODO: a fixed-shape mask (three-argument jnp.where)


fixed_shape = keep_above(x)
selected = x[x > {{threshold}}]  # compact selection: its length depends on the values
print("fixed_shape:", fixed_shape, "| selected:", selected)

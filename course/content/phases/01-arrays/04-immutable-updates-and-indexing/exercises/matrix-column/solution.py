# Practice solution: every row keeps its other entries; the last column becomes {{value}}.
def fill_last_column(matrix):
    return matrix.at[:, -1].set({{value}})


matrix = jnp.arange(9, dtype=jnp.float32).reshape(3, 3)
updated_matrix = fill_last_column(matrix)
print("updated_matrix:\n", updated_matrix)
assert jnp.array_equal(matrix, jnp.arange(9, dtype=jnp.float32).reshape(3, 3))

# Practice: return a new matrix whose last column is {{value}}; the other cells stay as they were.
def fill_last_column(matrix):
    return ...  # TODO: select every row of the last column with .at[...] and set it


matrix = jnp.arange(9, dtype=jnp.float32).reshape(3, 3)
updated_matrix = fill_last_column(matrix)
print("updated_matrix:\n", updated_matrix)
assert jnp.array_equal(matrix, jnp.arange(9, dtype=jnp.float32).reshape(3, 3))

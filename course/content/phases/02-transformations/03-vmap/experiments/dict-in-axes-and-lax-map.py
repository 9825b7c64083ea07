# Experiment — in_axes follows the structure of the arguments: for a dict argument it can be a
# dict with one entry per key, so one leaf is mapped and another shared. lax.map applies a
# function to each row too, but as a loop (a scan in the jaxpr), one example at a time: the
# same values as vmap, with the memory of one example, and no speed-up from batching.
def affine(params, xi):
    return jnp.dot(params["w"], xi) + params["b"]


per_example_w = {"w": jnp.array([[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]]), "b": jnp.array(0.5)}
mapped = jax.vmap(affine, in_axes=({"w": 0, "b": None}, 0))(per_example_w, x)
print("in_axes={'w': 0, 'b': None}: one w per example, b shared ->", mapped)
assert jnp.allclose(mapped, jnp.array([1.5, 4.5, 11.5]))  # x_i . w_i + 0.5

sequential = jax.lax.map(lambda xi: distance(xi, center), points)
vectorised = jax.vmap(distance, in_axes=(0, None))(points, center)
primitives = [eqn.primitive.name
              for eqn in jax.make_jaxpr(lambda p: jax.lax.map(lambda r: distance(r, center), p))(
                  points).jaxpr.eqns]
print("lax.map:", sequential, "| vmap:", vectorised, "| lax.map's jaxpr:", primitives)
assert jnp.allclose(sequential, vectorised)
assert "scan" in primitives

# Experiment — with every random choice drawn from keys split from one seed, a whole training
# run is a function of the seed: run it twice and the parameters agree bit for bit; another
# shuffle key gives another run.
again = advance(start, 4)
print("same seed, same run:", all(jnp.array_equal(a, b) for a, b in
                                  zip(jax.tree.leaves(straight["params"]),
                                      jax.tree.leaves(again["params"]))))
other = advance(dict(start, key=jax.random.key(1)), 4)  # another shuffle key
print("another shuffle key, another run:", not all(jnp.array_equal(a, b) for a, b in
                                                   zip(jax.tree.leaves(straight["params"]),
                                                       jax.tree.leaves(other["params"]))))
assert all(jnp.array_equal(a, b) for a, b in zip(jax.tree.leaves(straight["params"]),
                                                 jax.tree.leaves(again["params"])))

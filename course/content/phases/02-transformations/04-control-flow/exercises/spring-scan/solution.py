# A spring simulated with lax.scan (Practice): the carry is the pair (x, v), replaced by a new
# pair every step; the outputs are the positions, one per force.
def simulate(x0, v0, forces):
    def step(state, force):
        x, v = state
        v = v + 0.1 * (force - {{k}} * x)
        x = x + 0.1 * v
        return (x, v), x

    _, positions = lax.scan(step, (x0, v0), forces)
    return positions


path = simulate(1.0, 0.0, jnp.zeros(8))
print("positions:", path)
assert path.shape == (8,) and jnp.allclose(path[0], 1.0 - 0.01 * {{k}})

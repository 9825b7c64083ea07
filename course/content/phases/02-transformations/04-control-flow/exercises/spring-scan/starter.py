# A spring simulated with lax.scan (Practice): the carry is the pair (x, v), replaced by a new
# pair every step; the outputs are the positions, one per force.
def simulate(x0, v0, forces):
    def step(state, force):
        x, v = state
        v = v  # TODO: v + 0.1 * (force - {{k}} * x)
        x = x  # TODO: x + 0.1 * v, with the new v
        return (x, v), x

    return forces  # TODO: run step over forces with lax.scan from (x0, v0); return the positions


path = simulate(1.0, 0.0, jnp.zeros(8))
print("positions:", path)

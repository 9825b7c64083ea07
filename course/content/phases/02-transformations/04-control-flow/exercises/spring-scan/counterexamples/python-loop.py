# max-score: 8
# why: a Python loop over the forces, where lax.scan is taught: the program grows with the step count
def simulate(x0, v0, forces):
    x, v, positions = x0, v0, []
    for force in forces:
        v = v + 0.1 * (force - {{k}} * x)
        x = x + 0.1 * v
        positions.append(x)
    return jnp.stack(positions)

# max-score: 8
# why: an unused lax.scan beside a Python loop: the rule reads the traced program, not a name
def simulate(x0, v0, forces):
    lax.scan(lambda c, f: (c, f), 0.0, forces)
    x, v, positions = x0, v0, []
    for force in forces:
        v = v + 0.1 * (force - {{k}} * x)
        x = x + 0.1 * v
        positions.append(x)
    return jnp.stack(positions)

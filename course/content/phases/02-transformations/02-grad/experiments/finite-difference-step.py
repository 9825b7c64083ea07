# Experiment — Choosing the finite-difference step: a large h makes the difference quotient
# inexact (truncation, about h^2/6 for sin), a tiny h loses the digits float32 keeps (rounding,
# about eps/h). The figure plots the whole curve.
exact = jnp.cos(1.0)
errors = {h: float(abs(central_difference(jnp.sin, jnp.float32(1.0), 1.0, h) - exact))
          for h in (1e-1, 1e-3, 1e-6)}
print("float32 |central difference - cos(1)| for h = 1e-1, 1e-3, 1e-6:",
      [f"{e:.1e}" for e in errors.values()])
assert errors[1e-3] < errors[1e-1] and errors[1e-3] < errors[1e-6]

# Experiment — Count traces for an explicit argument: changing an argument's value reuses the
# trace (the value is an input, not a constant); changing its shape or dtype traces again.
calls = []


@jax.jit
def affine(v, factor, shift):
    calls.append((v.shape, v.dtype))  # runs once per trace
    return v * factor + shift


outputs = [affine(x, f, s) for f, s in ((1.0, 0.0), (2.0, 1.0), (3.0, -1.0))]
print("three factors, traces:", len(calls), "|", [o.tolist() for o in outputs])
affine(jnp.arange(3), 2.0, 1.0)  # int32 input: a new signature
print("after an int32 input, traces:", len(calls))
assert len(calls) == 2
assert outputs[2].tolist() == [2.0, 5.0, 8.0]

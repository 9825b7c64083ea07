# Experiment — Integer inputs have no gradient: grad differentiates with respect to real
# (inexact) inputs only, so an int32 argument is refused with a TypeError, and a float works.
try:
    jax.grad(cubic)(2)
    raise AssertionError("grad of an integer input should fail")
except TypeError as err:
    print("grad at the int 2:", type(err).__name__, "-", str(err).splitlines()[0][:60])
print("grad at the float 2.0:", d_cubic(2.0))
assert d_cubic(2.0) == 14.0

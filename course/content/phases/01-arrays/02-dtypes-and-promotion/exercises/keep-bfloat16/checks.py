"""Checks for arrays-02.exercise.keep-bfloat16."""

from course.checks import Values, check

NAMES = ("promoted_dtype", "kept_dtype", "scaled_dtype", "scaled_values")


@check("activations + float32 bias promotes to float32", points=1)
def promoted(v: Values) -> None:
    v.expect_equal("promoted_dtype", "float32")


@check("with the bias cast to bfloat16 the sum stays bfloat16", points=1)
def kept(v: Values) -> None:
    v.expect_equal("kept_dtype", "bfloat16")


@check("scaled = kept * 2.0 holds [-1.5, -0.5, 0.5, 1.5, 2.5]", points=1)
def scaled_values(v: Values) -> None:
    v.expect_close("scaled_values", [-1.5, -0.5, 0.5, 1.5, 2.5])


@check("multiplying by the Python float 2.0 keeps bfloat16", points=1, visible=False)
def scaled_dtype(v: Values) -> None:
    v.expect_equal("scaled_dtype", "bfloat16")

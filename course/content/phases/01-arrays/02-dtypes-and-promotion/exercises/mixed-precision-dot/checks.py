"""Checks for arrays-02.exercise.mixed-precision-dot."""

from course.checks import Values, check

NAMES = ("low", "reference", "operand_dtype", "low_dtype", "w")


@check("the operands were cast to bfloat16", points=1)
def operands(v: Values) -> None:
    v.expect_equal("operand_dtype", "bfloat16")


@check("the dot product returns float32", points=1)
def result_dtype(v: Values) -> None:
    v.expect_equal("low_dtype", "float32")


@check("low matches the float32 reference within bfloat16 rounding (0.02)", points=2)
def close_to_reference(v: Values) -> None:
    v.expect_close("low", v.array("reference"), rtol=0.0, atol=2e-2)


@check("the master copy w is still float32", points=1, visible=False)
def master_copy(v: Values) -> None:
    v.expect_dtype("w", "float32")

"""Hidden checks for transforms-04.exercise.root-fori-grad: root_and_slope(a) by Newton steps."""

import numpy as np

from course.checks import Call, FunctionExercise, differentiates_loop, loops

EXERCISE = FunctionExercise(
    "root_and_slope",
    params={"k": (3, 2, 4)},
    jit=True,
    jit_feedback="a fori_loop with constant bounds is a scan: it compiles, and grad runs it "
                 "backwards",
    rtol=1e-5,
    atol=1e-6,
    rules=(loops("a loop with a fixed number of steps can be "
                          "differentiated in reverse mode; a while_loop cannot"),
           differentiates_loop("the slope is the derivative of the loop's result with "
                          "respect to a, computed by reverse mode through the loop")),
)


def calls(params: dict, rng: np.random.Generator) -> list[Call]:
    k = params["k"]
    return [
        Call("a = 2", (np.array(2.0, np.float32),)),
        Call("a = 1 (the root is 1)", (np.array(1.0, np.float32),)),
        Call(f"a perfect power, 3 ** {k}", (np.array(3.0**k, np.float32),)),
        Call("a below 1", (np.array(0.25, np.float32),)),
        *(Call(f"random draw {i}", (np.array(rng.uniform(0.25, 50.0), np.float32),), "random")
          for i in range(3)),
    ]

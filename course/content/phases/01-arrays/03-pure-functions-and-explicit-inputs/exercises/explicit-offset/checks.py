"""Hidden checks for arrays-03.exercise.explicit-offset: add_offset(v, offset), any offset.

The drawn calls reuse the fixed calls' shapes (a length-3 vector or a 2 x 2 matrix) with fresh
values and offsets: each new shape is compiled plain, under jit and traced in the learner's run;
a new offset is not (it is traced), and it is what shows a stale one.
"""

import numpy as np

from course.checks import Call, FunctionExercise

EXERCISE = FunctionExercise(
    "add_offset",
    jit=True,
    jit_feedback="a jitted function that reads a global keeps the value it saw when traced; "
                 "passed as an argument, the offset is read on every call",
)


def calls(params: dict, rng: np.random.Generator) -> list[Call]:
    x = np.array([1.0, 2.0, 3.0], np.float32)
    return [
        Call("the lesson's x, offset 1.0", (x, 1.0)),
        Call("the lesson's x, offset 5.0 (a stale offset shows here)", (x, 5.0)),
        Call("a negative offset", (x, -2.5)),
        Call("a matrix", (np.arange(4, dtype=np.float32).reshape(2, 2), 0.5)),
        *(Call(f"random draw {i}", (rng.normal(size=((3,), (2, 2))[int(rng.integers(0, 2))])
                                    .astype(np.float32),
                                    float(np.round(rng.normal() * 10, 3))), "random")
          for i in range(3)),
    ]

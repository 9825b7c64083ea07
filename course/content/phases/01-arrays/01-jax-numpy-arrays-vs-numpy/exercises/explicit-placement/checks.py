"""Hidden checks for arrays-01.exercise.explicit-placement: weighted_sum on hidden inputs."""

import numpy as np

from course.checks import Call, FunctionExercise, calls_function

EXERCISE = FunctionExercise(
    "weighted_sum",
    rtol=1e-5,
    rules=(calls_function("device_put", "naming the device with jax.device_put commits the "
                          "weights to it"),
           calls_function("devices", "jax.devices('cpu')[0] names the first CPU device")),
)


def calls(params: dict, rng: np.random.Generator) -> list[Call]:
    return [
        Call("the lesson's weights and doubled", (np.array([0.5, 0.25, 0.25], np.float32),
                                                  np.array([20.0, 4.0, 6.0], np.float32))),
        Call("one weight", (np.array([2.0], np.float32), np.array([-3.0], np.float32))),
        Call("zero weights", (np.zeros(4, np.float32), np.arange(4, dtype=np.float32))),
        *(Call(f"random draw {i}", tuple(rng.normal(size=(2, size)).astype(np.float32)),
               "random") for i, size in enumerate(rng.integers(2, 9, size=3))),
    ]

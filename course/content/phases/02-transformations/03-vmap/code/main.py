# jax.vmap: write a function for one example and let vmap apply it to a batch. in_axes says which
# axis of each argument is the batch (None: shared), out_axes where the batch goes in the result;
# vmap of grad gives one gradient per example, without a Python loop.
# region step-1
import jax
import jax.numpy as jnp


def distance(a, b):
    """The distance between two points: written for one example, vectors of shape (2,)."""
    return jnp.sqrt(jnp.sum((a - b) ** 2))


points = jnp.array([[0.0, 0.0], [3.0, 4.0], [1.0, 1.0]])
origins = jnp.array([[0.0, 0.0], [0.0, 0.0], [1.0, 0.0]])
batched = jax.vmap(distance)  # in_axes=0: map axis 0 of both arguments
d = batched(points, origins)
print("one pair:", distance(points[1], origins[1]), "| vmap over 3 pairs:", d, d.shape)
print("the unbatched function on the batch sums everything:", distance(points, origins))
loop = jnp.stack([distance(p, o) for p, o in zip(points, origins, strict=True)])
assert jnp.array_equal(d, loop) and d.shape == (3,)
# endregion

# region step-2
center = jnp.array([1.0, 1.0])
from_center = jax.vmap(distance, in_axes=(0, None))(points, center)  # center is shared
print("in_axes=(0, None), every point to one center:", from_center)
all_pairs = jax.vmap(jax.vmap(distance, in_axes=(None, 0)), in_axes=(0, None))(points, points)
print("vmap of vmap, all pairs:", all_pairs.shape, "| symmetric:",
      bool(jnp.allclose(all_pairs, all_pairs.T)))
by_columns = jax.vmap(distance, in_axes=(1, 1))(points.T, origins.T)  # examples along axis 1
print("in_axes=1 on transposed data, same distances:", bool(jnp.array_equal(by_columns, d)))
scales = jnp.array([1.0, 10.0, 100.0])
scaled = jax.vmap(lambda v, s: v * s, in_axes=(None, 0), out_axes=1)(center, scales)
print("out_axes=1 puts the batch last:", scaled.shape)
for label, bad_call in (("3 points, 2 origins", lambda: batched(points, origins[:2])),
                        ("in_axes=(0,) for 2 arguments",
                         lambda: jax.vmap(distance, in_axes=(0,))(points, origins))):
    try:
        bad_call()
        raise AssertionError(f"{label} should fail")
    except ValueError as err:
        print(f"{label}:", type(err).__name__, "-", str(err).split(",")[0].splitlines()[0])
# endregion

# region step-3
x = jnp.array([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]])
y = jnp.array([1.0, 2.0, 3.0])
w = jnp.array([0.5, -0.25])


def loss_one(w, xi, yi):
    """The squared error of one example: xi of shape (2,), yi a scalar."""
    return (jnp.dot(xi, w) - yi) ** 2


per_example = jax.vmap(jax.grad(loss_one), in_axes=(None, 0, 0))(w, x, y)  # w shared
norms = jnp.linalg.norm(per_example, axis=1)
print("per-example gradients:", per_example.shape, "| their norms:", norms)
mean_loss = lambda w: jnp.mean(jax.vmap(loss_one, in_axes=(None, 0, 0))(w, x, y))
mean_loss_grad = jax.grad(mean_loss)(w)
print("their mean equals the gradient of the mean loss:",
      bool(jnp.allclose(per_example.mean(axis=0), mean_loss_grad)))
assert jnp.allclose(per_example, 2.0 * (x @ w - y)[:, None] * x)  # 2 (x_i . w - y_i) x_i
# endregion

# region step-4
import time


def timed(fn, *args, repeats=5):
    fn(*args).block_until_ready()  # warm up: trace and compile outside the clock
    runs = []
    for _ in range(repeats):
        start = time.perf_counter()
        fn(*args).block_until_ready()
        runs.append(time.perf_counter() - start)
    return sorted(runs)[repeats // 2]  # the median


xs = jnp.sin(jnp.arange(32 * 8.0)).reshape(32, 8)  # 32 examples of 8 features
ys = jnp.cos(jnp.arange(32.0))
w8 = jnp.linspace(-1.0, 1.0, 8)
grad_one = jax.jit(jax.grad(loss_one))


def with_loop(w, xs, ys):  # one call per example, from Python
    return jnp.stack([grad_one(w, xs[i], ys[i]) for i in range(xs.shape[0])])


with_vmap = jax.jit(jax.vmap(jax.grad(loss_one), in_axes=(None, 0, 0)))
by_hand = jax.jit(lambda w, xs, ys: 2.0 * (xs @ w - ys)[:, None] * xs)
results = [f(w8, xs, ys) for f in (with_loop, with_vmap, by_hand)]
print("loop, vmap and hand-written batching agree:",
      all(bool(jnp.allclose(r, results[0], rtol=1e-5, atol=1e-6)) for r in results))
seconds = {name: timed(f, w8, xs, ys) for name, f in
           (("loop", with_loop), ("vmap", with_vmap), ("by hand", by_hand))}
print("timings recorded (see the figure):", all(s >= 0.0 for s in seconds.values()))
# endregion
print("PASS: transforms-03")

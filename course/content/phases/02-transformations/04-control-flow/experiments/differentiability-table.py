# Experiment — Which control flow each mode of autodiff goes through. jvp (forward mode) runs
# alongside the computation, so it goes through every construct; grad (reverse mode) must
# replay a loop backwards and needs its length before it runs.
def body(i, y):
    return y + 0.1 * jnp.sin(y)  # any differentiable step


constructs = {
    "lax.cond": lambda a: lax.cond(a > 0, jnp.sin, jnp.cos, a),
    "lax.switch": lambda a: lax.switch(jnp.int32(a > 0), [jnp.sin, jnp.cos, jnp.tanh], a),
    "fori_loop, concrete bounds": lambda a: lax.fori_loop(0, 3, body, a),
    "fori_loop, traced bound": lambda a: lax.fori_loop(0, jnp.int32(3), body, a),
    "lax.scan": lambda a: lax.scan(lambda y, _: (body(0, y), None), a, length=3)[0],
    "lax.while_loop": lambda a: lax.while_loop(lambda y: y < 2.0, lambda y: y * 1.5, a),
}


def works(transform, fn):
    try:
        transform(fn)
        return "yes"
    except ValueError:
        return "ValueError"


table = {name: (works(lambda f: jax.jit(lambda a: jax.jvp(f, (a,), (1.0,)))(0.7), fn),
                works(lambda f: jax.jit(jax.grad(f))(0.7), fn))
         for name, fn in constructs.items()}
for name, (jvp_ok, grad_ok) in table.items():
    print(f"{name:<27} jvp: {jvp_ok:<10} grad: {grad_ok}")
assert table == {"lax.cond": ("yes", "yes"), "lax.switch": ("yes", "yes"),
                 "fori_loop, concrete bounds": ("yes", "yes"),
                 "fori_loop, traced bound": ("yes", "ValueError"),
                 "lax.scan": ("yes", "yes"),
                 "lax.while_loop": ("yes", "ValueError")}

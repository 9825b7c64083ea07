# max-score: 5
# why: everything restored but the epoch counter, reset to 0: the resumed epochs replay the first epochs' orders
import io

resume_opt = optax.adam({{lr}})


@jax.jit
def linear_step(params, opt_state, x, y):
    grads = jax.grad(lambda p: jnp.mean((x @ p["w"] + p["b"] - y) ** 2))(params)
    updates, opt_state = resume_opt.update(grads, opt_state, params)
    return optax.apply_updates(params, updates), opt_state


def one_epoch(state, x, y):
    perm = jax.random.permutation(jax.random.fold_in(state["key"], state["epoch"]), x.shape[0])
    params, opt_state = state["params"], state["opt_state"]
    for idx in perm[: x.shape[0] // 4 * 4].reshape(-1, 4):
        params, opt_state = linear_step(params, opt_state, x[idx], y[idx])
    return dict(state, params=params, opt_state=opt_state, epoch=state["epoch"] + 1)


def save_state(state):
    state = dict(state, key=jax.random.key_data(state["key"]))
    buffer = io.BytesIO()
    np.savez(buffer, *[np.asarray(leaf) for leaf in jax.tree.leaves(state)])
    return buffer.getvalue()


def load_state(data, template):
    stored = dict(template, key=jax.random.key_data(template["key"]))
    with np.load(io.BytesIO(data)) as files:
        leaves = [jnp.asarray(files[f"arr_{i}"]) for i in range(len(files.files))]
    state = jax.tree.unflatten(jax.tree.structure(stored), leaves)
    state = dict(state, epoch=jnp.array(0))
    return dict(state, key=jax.random.wrap_key_data(state["key"]))


def resume_run(seed, x, y, stop_at):
    params = {"w": jnp.zeros(x.shape[1]), "b": jnp.zeros(())}
    template = {"params": params, "opt_state": resume_opt.init(params),
                "epoch": jnp.array(0), "key": jax.random.key(seed)}
    state = template
    for epoch in range(3):
        if epoch == stop_at:
            state = load_state(save_state(state), template)
        state = one_epoch(state, x, y)
    return state["params"]["w"], state["params"]["b"]

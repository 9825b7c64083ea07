# max-score: 8
# why: a functional .at update instead of the host round trip the exercise is about (np.array is never called)
def edit_on_host(y):
    return jnp.asarray(y.at[-1].set({{value}}))

# max-score: 7
# why: a functional .at update instead of the host round trip the exercise is about (JAX traces it: the values never reach the host)
def edit_on_host(y):
    return jnp.asarray(y.at[-1].set({{value}}))

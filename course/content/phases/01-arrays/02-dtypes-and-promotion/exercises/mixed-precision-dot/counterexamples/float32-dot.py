# max-score: 4
# why: the whole product in float32 (an astype that changes nothing): not the bfloat16 multiply the lesson asks for
def low_precision_matvec(w, v):
    return jnp.dot(w.astype(jnp.float32), v)

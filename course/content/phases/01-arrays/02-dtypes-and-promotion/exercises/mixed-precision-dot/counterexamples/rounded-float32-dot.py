# max-score: 8
# why: the operands rounded to bfloat16 and back, then multiplied in float32: bfloat16's numbers without the bfloat16 multiply the lesson asks for
def low_precision_matvec(w, v):
    return jnp.dot(w.astype(jnp.bfloat16).astype(jnp.float32),
                   v.astype(jnp.bfloat16).astype(jnp.float32))

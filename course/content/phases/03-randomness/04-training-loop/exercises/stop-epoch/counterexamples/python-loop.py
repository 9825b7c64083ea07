# max-score: 7
# why: a Python loop with float() on every loss: right answers eagerly, but no lax loop, and it does not jit
def stop_epoch(val_losses):
    jax.lax.scan(lambda c, v: (c, None), 0.0, val_losses)
    best, waited = float("inf"), 0
    for epoch, value in enumerate(val_losses):
        if float(value) < best - 1e-4:
            best, waited = float(value), 0
        else:
            waited += 1
            if waited == {{p}}:
                return jnp.array(epoch)
    return jnp.array(len(val_losses) - 1)

# Early stopping inside the compiled program (Practice): a lax.scan over the validation losses
# carries (best, epochs waited, stop epoch); no float(), no Python if on values.
def stop_epoch(val_losses):
    def body(carry, item):
        best, waited, stop = carry
        epoch, value = item
        better = value < best - 1e-4
        waited = jnp.where(better, 0, waited + 1)
        stop = jnp.where((stop < 0) & (waited == {{p}}), epoch, stop)
        return (jnp.where(better, value, best), waited, stop), None

    epochs = jnp.arange(val_losses.shape[0])
    (_, _, stop), _ = jax.lax.scan(body, (jnp.inf, 0, -1), (epochs, val_losses))
    return jnp.where(stop < 0, val_losses.shape[0] - 1, stop)


print("stop epoch:", stop_epoch(jnp.array([0.5, 0.4, 0.41, 0.42, 0.39, 0.45, 0.46, 0.47])))

# Experiment — two ways to get many keys from one. split(key, n) makes n keys at once; fold_in
# (key, i) makes the key for number i alone, so step 1000's key needs no 999 splits before it,
# and a resumed run can recompute it from the step number.
root = jax.random.key(42)
by_fold = jnp.stack([jax.random.uniform(jax.random.fold_in(root, i)) for i in range(4)])
by_split = jax.vmap(jax.random.uniform)(jax.random.split(root, 4))
print("fold_in 0..3:", by_fold, "| split into 4:", by_split)
assert len(set(by_fold.tolist())) == 4  # four different keys (whether the two derivations
# coincide is an implementation detail: never mix them for keys that must be independent)
late = jax.random.uniform(jax.random.fold_in(root, 1000))
assert late == jax.random.uniform(jax.random.fold_in(root, 1000))  # no history needed
print("step 1000's number, recomputed from the step alone:", late)

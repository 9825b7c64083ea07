# Experiment — Compare the two 16-bit floats: bfloat16 keeps float32's range with 8 bits of
# precision, float16 has 11 bits of precision and overflows past 65504.
big = jnp.array([70000.0, 257.0, 1.001], dtype=jnp.float32)
as_bf16 = big.astype(jnp.bfloat16)
as_f16 = big.astype(jnp.float16)
print("float32 :", big)
for name, low in (("bfloat16", as_bf16), ("float16 ", as_f16)):
    info = jnp.finfo(low.dtype)
    print(f"{name}: {low} | eps {info.eps} | max {info.max}")
assert bool(jnp.isinf(as_f16[0])) and float(as_bf16[0]) == 70144.0
assert float(as_bf16[1]) == 256.0 and float(as_f16[1]) == 257.0
assert float(as_bf16[2]) == 1.0 and float(as_f16[2]) == 1.0 + 2.0**-10
assert float(jnp.finfo(jnp.bfloat16).eps) == 2.0**-7
assert float(jnp.finfo(jnp.float16).eps) == 2.0**-10
assert float(jnp.finfo(jnp.float32).eps) == 2.0**-23

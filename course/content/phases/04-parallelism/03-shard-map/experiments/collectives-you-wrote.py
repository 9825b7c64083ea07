# Experiment — the collectives you wrote are in the compiled program, one each: pmean is an
# all-reduce (then a division), all_gather an all-gather, ppermute a collective-permute.
def collectives(f, *args):
    text = jax.jit(f).lower(*args).compile().as_text()
    rights = [line.split(" = ", 1)[1] for line in text.splitlines() if " = " in line]
    names = ("all-reduce", "all-gather", "collective-permute")
    return {c: n for c in names if (n := sum(f" {c}(" in r or f" {c}-start(" in r
                                             for r in rights))}


found = {
    "data_parallel": collectives(data_parallel, w, xs, ys),
    "all_gather": collectives(on_blocks(lambda b: jax.lax.all_gather(b, "data", tiled=True)), x),
    "ppermute": collectives(on_blocks(lambda b: jax.lax.ppermute(b, "data", perm=ring)), x),
}
print(found)
assert found == {"data_parallel": {"all-reduce": 1}, "all_gather": {"all-gather": 1},
                 "ppermute": {"collective-permute": 1}}

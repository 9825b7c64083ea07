# Experiment — read the collective in the compiled program: the all-reduce of the split
# contraction adds 8 partial products, each of y's full shape (16, 8), across the 8 devices.
text = split_k.lower(cols, w).compile().as_text()
line = next(line.strip() for line in text.splitlines() if " all-reduce(" in line)
print(line[:line.index("all-reduce(") + len("all-reduce")])
print("its operand: f32[16,8], 512 bytes a device:", "f32[16,8]" in line)
assert "f32[16,8]" in line and "to_apply" in line

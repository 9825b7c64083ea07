# expect: sandbox_violation
# 512 MiB in files just under the per-file limit: a run's disk use must be bounded as a whole.
chunk = b"x" * (8 * 1024 * 1024)
for i in range(64):
    with open(f"fill-{i}", "wb") as handle:
        handle.write(chunk)
print("wrote 512 MiB")

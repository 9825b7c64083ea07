# expect: sandbox_violation
# One file past RLIMIT_FSIZE (16 MB here): Python ignores SIGXFSZ, so the write fails.
with open("big.bin", "wb") as handle:
    for _ in range(8):
        handle.write(b"x" * (4 * 1024 * 1024))
print("wrote 32 MiB in one file")

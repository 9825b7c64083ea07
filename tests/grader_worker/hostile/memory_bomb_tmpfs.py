# expect: sandbox_violation memory_limit
# Files in the private /tmp are RAM (tmpfs): its size bound stops them ("No space left"), and the
# run's cgroup counts them (RLIMIT_DATA does not).
chunk = b"x" * (8 * 1024 * 1024)
for i in range(10_000):
    with open(f"/tmp/fill-{i}", "wb") as handle:
        handle.write(chunk)

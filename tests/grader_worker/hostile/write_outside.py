# expect: sandbox_violation
for path in ["/usr/lib/evil.txt", "/grader/harness.py", "/work/main/.venv/evil.txt"]:
    with open(path, "w") as handle:
        handle.write("pwned")

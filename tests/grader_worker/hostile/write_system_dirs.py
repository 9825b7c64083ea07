# expect: sandbox_violation
# Issue 21, findings 2 and 8: with an unprivileged worker /, /grader and /dev were the run's
# uid's (bwrap's tmpfs), writable without the disk bound, and in warm runs shared with the next
# learner. Only the run's own tmpfs take writes: "Read-only file system" here.
for place in ("/dev/shm", "/tmp", "/", "/grader", "/dev"):
    with open(f"{place}/sitecustomize.py", "w") as handle:
        handle.write("print('planted')\n")
print("wrote everywhere")

# expect: exception
# Issue 21, finding 6: bubblewrap's pid 1 (with an unprivileged worker: the program's uid,
# dumpable) through /proc/1/mem, which no seccomp rule covers. /proc/1 is masked: the open
# fails (FileNotFoundError). Had it opened, the program would end normally (graded, a wrong
# answer), which the corpus refuses.
with open("/proc/1/mem", "r+b", buffering=0) as mem:
    print("opened bwrap's pid 1 memory for writing")

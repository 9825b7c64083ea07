"""One learner writes everywhere it can (hidden inputs it read, a sitecustomize, a .pth, big
files), fills /dev/shm past its bound, and pokes bubblewrap's pid 1 through /proc/1/mem."""
import json
import os

PLACES = ["/", "/grader", "/dev", "/dev/shm", "/tmp", "/home/learner", "/etc", "/home"]
MARK = "planted-by-an-earlier-learner"
wrote = {}
for place in PLACES:
    try:
        with open(os.path.join(place, "zz-poison.pth"), "w") as handle:
            handle.write(f"import os; os.environ['POISON'] = '{MARK}'\n")
        with open(os.path.join(place, "sitecustomize.py"), "w") as handle:
            handle.write(f"print('{MARK}')\n")
        wrote[place] = "written"
    except OSError as exc:
        wrote[place] = exc.strerror
shm = 0
try:
    for index in range(25):  # 200 MB asked, 8 MB a file (RLIMIT_FSIZE); /dev/shm holds disk_mb
        with open(f"/dev/shm/big{index}", "wb") as handle:
            for _ in range(8):
                handle.write(b"\1" * (1 << 20))
                shm += 1
except OSError as exc:
    wrote["/dev/shm/big"] = exc.strerror
wrote["shm_mb"] = shm
proc1 = {}
for name, mode in (("mem", "r+b"), ("mem", "rb"), ("environ", "rb"), ("cmdline", "rb")):
    try:
        with open(f"/proc/1/{name}", mode, buffering=0):
            proc1[f"{name}:{mode}"] = "opened"  # open is the hole: pwrite at any address
    except OSError as exc:
        proc1[f"{name}:{mode}"] = exc.strerror
print(json.dumps({"wrote": wrote, "proc1": proc1}))

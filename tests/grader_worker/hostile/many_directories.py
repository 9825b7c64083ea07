# expect: graded timeout
# 100k directories and a 20k-deep tree: removing them would cost the worker seconds of CPU and
# a RecursionError (shutil.rmtree), leaving residue; a run's directory must go in O(1).
import os

for i in range(100_000):
    os.mkdir(f"d{i}")
for _ in range(20_000):
    os.mkdir("n")
    os.chdir("n")
os.chdir("/home/learner")
for i in range(0, 100, 10):  # some the worker could not even enter or delete
    os.chmod(f"d{i}", 0)
print("made them")

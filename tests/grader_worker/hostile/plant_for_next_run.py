# expect: graded sandbox_violation
# Pre-create what the next runs might use (guessable run directories, mode 000) wherever it can.
import os

made = []
for base in ("/home", "/home/learner/..", "/tmp", "/tmp/pathways-runs"):
    for i in range(1, 20):
        try:
            os.makedirs(f"{base}/run-{i}", mode=0)
            made.append(f"{base}/run-{i}")
        except OSError:
            pass
print(len(made), "planted")

# expect: sandbox_violation exception
import os

print(dict(os.environ))
print(open("/proc/1/environ").read())
print(os.environ["PATHWAYS_CANARY_SECRET"])

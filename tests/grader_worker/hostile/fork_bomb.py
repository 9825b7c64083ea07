# expect: sandbox_violation timeout memory_limit
import os

while True:
    os.fork()

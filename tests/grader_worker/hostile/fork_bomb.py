# expect: sandbox_violation timeout memory_limit host_timeout
import os

while True:
    os.fork()

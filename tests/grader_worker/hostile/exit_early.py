# expect: sandbox_violation
import os

os._exit(0)

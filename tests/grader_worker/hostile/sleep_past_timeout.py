# expect: timeout
import time

time.sleep(600)

# expect: host_timeout
import time

time.sleep(600)

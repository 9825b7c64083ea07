# expect: sandbox_violation
import urllib.request

print(urllib.request.urlopen("http://93.184.215.14/", timeout=3).read()[:100])

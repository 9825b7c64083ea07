# expect: exception sandbox_violation
import subprocess

script = "id; cat /etc/shadow; touch /usr/lib/evil; rm -f /usr/bin/sh"
subprocess.run(["/bin/sh", "-c", script], check=True)

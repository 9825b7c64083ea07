# expect: sandbox_violation
import socket

# The test servers (Redis, PostgreSQL) listen on the host's loopback: not reachable from here.
with socket.create_connection(("127.0.0.1", 56379), timeout=2) as conn:
    conn.sendall(b"FLUSHALL\r\n")

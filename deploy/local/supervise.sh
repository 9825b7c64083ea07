#!/usr/bin/env bash
# Sourced by stack.sh (and tests/deploy/test_supervise.py): the restart loop of a part.
# A long-running part that dies is started again, with a line in its log saying so (as the
# systemd units' Restart=), except after a configuration error (exit 78: restarting cannot fix
# it). Stopping the part (its process group) stops the loop and the program.
supervise() {
  local name=$1 child="" rc=0; shift
  trap 'kill -TERM "$child" 2>/dev/null; wait "$child"; exit 0' TERM INT
  while true; do
    "$@" &
    child=$!
    rc=0; wait "$child" || rc=$?
    if [ "$rc" = 78 ]; then
      echo "stack: $name stopped on a configuration error (exit 78); not restarting it" >&2
      exit 78
    fi
    echo "stack: $name exited (code $rc); restarting it in 1s" >&2
    sleep 1
  done
}

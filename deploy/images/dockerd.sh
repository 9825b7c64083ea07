#!/usr/bin/env bash
# A Docker engine for `make images` / `make images-test` on a machine where none runs (CI, this
# project's build hosts): Debian's docker.io, no registry, no bridge network.
#   usage: deploy/images/dockerd.sh start|stop   (start prints nothing when a daemon already
#          answers; stop ends only a daemon that start launched, by the pid it recorded)
# PATHWAYS_DOCKER_DATA_ROOT, PATHWAYS_DOCKERD_STATE and DOCKER_HOST place a second engine (an
# empty Docker state, as on a fresh CI machine) beside a running one.
# vfs: works on any file system (overlay needs kernel support the build VMs lack); it copies each
# layer whole, so the images keep few layers. --iptables=false --bridge=none: containers use the
# host's network (`--network host`), as the CI machine offers no NAT.
set -euo pipefail
state=${PATHWAYS_DOCKERD_STATE:-/var/lib/pathways-dockerd}
data_root=${PATHWAYS_DOCKER_DATA_ROOT:-/var/lib/docker}
docker=${DOCKER:-$(command -v /usr/bin/docker || command -v docker || true)}

running() { [ -n "$docker" ] && "$docker" info >/dev/null 2>&1; }

case "${1:-}" in
  start)
    if ! command -v dockerd >/dev/null; then
      [ "$(id -u)" = 0 ] || { echo "install docker.io (needs root)" >&2; exit 1; }
      export DEBIAN_FRONTEND=noninteractive
      apt-get update -qq
      # policy-rc.d 101: no init system starts a second daemon behind our back.
      printf '#!/bin/sh\nexit 101\n' >/usr/sbin/policy-rc.d; chmod +x /usr/sbin/policy-rc.d
      apt-get install -y -qq --no-install-recommends docker.io >/dev/null
      rm -f /usr/sbin/policy-rc.d
      docker=/usr/bin/docker
    fi
    running && exit 0
    mkdir -p "$state" "$data_root"
    # setsid: the daemon outlives this script's process group (CI steps, `timeout`).
    # Niceness 10: layer copies (vfs) and the containers it starts yield to interactive work.
    # DOCKER_HOST (unix://...): a second engine beside one on the default socket.
    host=(); [ -z "${DOCKER_HOST:-}" ] || host=(-H "$DOCKER_HOST")
    setsid nice -n 10 dockerd --storage-driver=vfs --iptables=false --ip-masq=false --bridge=none \
      "${host[@]}" --data-root "$data_root" --exec-root "$state/exec" --pidfile "$state/dockerd.pid" \
      >"$state/dockerd.log" 2>&1 </dev/null &
    for _ in $(seq 1 120); do
      running && { echo "dockerd started (log: $state/dockerd.log)" >&2; exit 0; }
      sleep 0.5
    done
    echo "dockerd did not answer in 60 s; its log:" >&2; tail -n 30 "$state/dockerd.log" >&2
    exit 1
    ;;
  stop)
    [ -f "$state/dockerd.pid" ] || exit 0
    pid=$(cat "$state/dockerd.pid")
    kill "$pid" 2>/dev/null || true
    for _ in $(seq 1 60); do kill -0 "$pid" 2>/dev/null || break; sleep 0.5; done
    rm -f "$state/dockerd.pid"
    ;;
  *) echo "usage: $0 start|stop" >&2; exit 2 ;;
esac

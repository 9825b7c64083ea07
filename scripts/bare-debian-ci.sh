#!/usr/bin/env bash
# Runs .ci/run in a throwaway Debian 12 root where only python3 is installed (debootstrap from the
# Debian mirror), as CI would on a bare machine: make, python3-venv and every Debian package come
# from the project's own scripts. Needs root, debootstrap and util-linux (unshare, pivot_root).
#   usage: scripts/bare-debian-ci.sh [DIR]   (default DIR: /var/tmp/pathways-bare; a DIR that
#          holds no root yet gets a fresh one)
# Only .ci/run's `make test` step (PATHWAYS_CI_IMAGES=0 unless set): the images step needs a
# Docker engine on the host, which `make images-test` starts there.
# The root is entered as a container enters its image: a private mount namespace, then pivot_root,
# not chroot. The kernel refuses user namespaces to a chrooted process, and the grader needs them
# (the warm sandbox, the unprivileged worker). /proc is mounted fresh; /sys and /dev are bound
# recursively, so the grader finds the host's cgroups (its pids and memory limits) as on a booted
# machine. The network is the host's: PATHWAYS_PG_PORT and PATHWAYS_REDIS_PORT (passed through,
# with PYTEST_ADDOPTS) must not clash with services already running here. Local CA certificates
# (a TLS-intercepting proxy) are copied in so pip and apt can verify.
set -euo pipefail
cd "$(dirname "$0")/.."
dir=$(realpath -m "${1:-/var/tmp/pathways-bare}")
root=$dir/root
mirror=${DEBIAN_MIRROR:-http://deb.debian.org/debian}
command -v debootstrap >/dev/null || { echo "apt-get install debootstrap first" >&2; exit 1; }
if [ ! -x "$root/usr/bin/python3" ]; then
  debootstrap --variant=minbase --include=python3 bookworm "$root" "$mirror"
fi
cp /etc/resolv.conf "$root/etc/resolv.conf"
if compgen -G "/usr/local/share/ca-certificates/*.crt" >/dev/null; then
  mkdir -p "$root/usr/local/share/ca-certificates"
  cp /usr/local/share/ca-certificates/*.crt "$root/usr/local/share/ca-certificates/"
fi
# A fresh copy of the committed tree, as CI clones it.
rm -rf "$root/src" && mkdir "$root/src"
git archive HEAD | tar -x -C "$root/src"
export BARE_ROOT=$root PATHWAYS_PG_PORT="${PATHWAYS_PG_PORT:-55432}" \
  PATHWAYS_REDIS_PORT="${PATHWAYS_REDIS_PORT:-56379}" PYTEST_ADDOPTS="${PYTEST_ADDOPTS:-}"
# Everything mounted below lives in the new namespace only and goes with it: nothing to clean up.
exec unshare --mount --propagation private /bin/bash -euo pipefail -c '
  root=$BARE_ROOT
  mount --bind "$root" "$root"          # pivot_root needs the new root to be a mount point
  mount -t proc proc "$root/proc"
  for m in sys dev; do mount --rbind "/$m" "$root/$m"; done
  mkdir -p "$root/.oldroot"
  cd "$root" && pivot_root . .oldroot && cd /
  umount -l /.oldroot && rmdir /.oldroot
  command -v update-ca-certificates >/dev/null && update-ca-certificates >/dev/null 2>&1 || true
  bundle=/etc/ssl/certs/ca-certificates.crt
  exec /usr/bin/env -i PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
    HOME=/root CI=true LANG=C.UTF-8 PIP_CERT=$bundle SSL_CERT_FILE=$bundle \
    REQUESTS_CA_BUNDLE=$bundle PATHWAYS_PG_PORT="$PATHWAYS_PG_PORT" \
    PATHWAYS_REDIS_PORT="$PATHWAYS_REDIS_PORT" PYTEST_ADDOPTS="$PYTEST_ADDOPTS" \
    PATHWAYS_CI_IMAGES="${PATHWAYS_CI_IMAGES:-0}" \
    /bin/bash -c "cd /src && bash .ci/run"
'

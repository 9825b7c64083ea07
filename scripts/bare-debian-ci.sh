#!/usr/bin/env bash
# Runs .ci/run in a throwaway Debian 12 chroot where only python3 is installed (debootstrap from
# the Debian mirror), as CI would on a bare machine: make, python3-venv and every Debian package
# come from the project's own scripts. Needs root and debootstrap.
#   usage: scripts/bare-debian-ci.sh [DIR]   (default DIR: /var/tmp/pathways-bare)
# PYTEST_ADDOPTS, PATHWAYS_PG_PORT and PATHWAYS_REDIS_PORT pass through (e.g. a subset of tests,
# ports that do not clash with services already running on this host: the chroot shares its
# network). Local CA certificates (a TLS-intercepting proxy) are copied in so pip can verify.
# Known limit of a chroot: the kernel refuses to create user namespaces for a chrooted process,
# so the warm sandbox (PATHWAYS_GRADER_WARM) and the unprivileged-worker tests cannot pass here;
# a container or VM (pivot_root, e.g. systemd-nspawn) does not have that limit.
set -euo pipefail
cd "$(dirname "$0")/.."
dir=$(realpath -m "${1:-/var/tmp/pathways-bare}")
root=$dir/root
mirror=${DEBIAN_MIRROR:-http://deb.debian.org/debian}
command -v debootstrap >/dev/null || { echo "apt-get install debootstrap first" >&2; exit 1; }
if [ ! -x "$root/usr/bin/python3" ]; then
  debootstrap --variant=minbase --include=python3 bookworm "$root" "$mirror"
fi
cleanup() {
  for m in dev sys proc; do umount -R -l "$root/$m" 2>/dev/null || true; done
  umount -l "$root" 2>/dev/null || true
}
trap cleanup EXIT
# bubblewrap needs / to be a mount point: bind the chroot onto itself, then the kernel trees.
# /sys and /dev recursively: the grader's cgroups live under /sys/fs/cgroup, its own mounts, as
# on any booted machine (without them there is no pids or memory limit for the sandbox).
mount --bind "$root" "$root"
mount --bind /proc "$root/proc"
for m in sys dev; do mount --rbind "/$m" "$root/$m" && mount --make-rslave "$root/$m"; done
cp /etc/resolv.conf "$root/etc/resolv.conf"
if compgen -G "/usr/local/share/ca-certificates/*.crt" >/dev/null; then
  mkdir -p "$root/usr/local/share/ca-certificates"
  cp /usr/local/share/ca-certificates/*.crt "$root/usr/local/share/ca-certificates/"
  chroot "$root" /usr/sbin/update-ca-certificates >/dev/null 2>&1 || true
fi
# A fresh copy of the committed tree, as CI clones it.
rm -rf "$root/src" && mkdir "$root/src"
git archive HEAD | tar -x -C "$root/src"
bundle=/etc/ssl/certs/ca-certificates.crt
chroot "$root" /usr/bin/env -i PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
  HOME=/root CI=true LANG=C.UTF-8 PIP_CERT=$bundle SSL_CERT_FILE=$bundle REQUESTS_CA_BUNDLE=$bundle \
  PATHWAYS_PG_PORT="${PATHWAYS_PG_PORT:-55432}" PATHWAYS_REDIS_PORT="${PATHWAYS_REDIS_PORT:-56379}" \
  PYTEST_ADDOPTS="${PYTEST_ADDOPTS:-}" /bin/bash -c 'cd /src && bash .ci/run'

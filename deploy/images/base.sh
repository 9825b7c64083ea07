#!/usr/bin/env bash
# The base image without a registry: a Debian 12 root from debootstrap (python3, venv, CA
# certificates), imported as $PATHWAYS_BASE_IMAGE. Cached twice: the image itself, and the root's
# tarball in $PATHWAYS_IMAGES_CACHE (an emptied Docker state imports it again in seconds).
#   usage: deploy/images/base.sh   (needs root and debootstrap; prints the image name)
# An operator with a registry skips this: `make images BASE=python:3.11-slim-bookworm`.
set -euo pipefail
docker=${DOCKER:-$(command -v /usr/bin/docker || command -v docker)}
image=${PATHWAYS_BASE_IMAGE:-pathways-base:bookworm}
cache=${PATHWAYS_IMAGES_CACHE:-/var/cache/pathways-images}
mirror=${DEBIAN_MIRROR:-http://deb.debian.org/debian}
tarball=$cache/base-bookworm.tar
if "$docker" image inspect "$image" >/dev/null 2>&1; then echo "$image"; exit 0; fi
if [ ! -s "$tarball" ]; then
  command -v debootstrap >/dev/null || {
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq && apt-get install -y -qq --no-install-recommends debootstrap >/dev/null
  }
  mkdir -p "$cache"
  root=$(mktemp -d "$cache/root.XXXXXX")
  trap 'rm -rf "$root"' EXIT
  echo "debootstrap of Debian 12 into $root (a few minutes; log: $cache/debootstrap.log)" >&2
  debootstrap --variant=minbase --include=python3,python3-venv,ca-certificates \
    bookworm "$root" "$mirror" >"$cache/debootstrap.log" 2>&1 \
    || { tail -n 20 "$cache/debootstrap.log" >&2; exit 1; }
  # What an image needs no copy of: apt's lists and caches, docs, man pages, locales.
  chroot "$root" apt-get clean
  rm -rf "$root"/var/lib/apt/lists/* "$root"/usr/share/doc/* "$root"/usr/share/man/* \
    "$root"/usr/share/locale/* "$root"/var/log/*.log "$root"/var/cache/debconf/*-old
  # The image's resolv.conf and hosts come from the engine at run time; CA certificates a
  # TLS-intercepting proxy needs come from the host's local store (as scripts/bare-debian-ci.sh).
  : >"$root/etc/resolv.conf"
  if compgen -G "/usr/local/share/ca-certificates/*.crt" >/dev/null; then
    mkdir -p "$root/usr/local/share/ca-certificates"
    cp /usr/local/share/ca-certificates/*.crt "$root/usr/local/share/ca-certificates/"
    chroot "$root" update-ca-certificates >/dev/null 2>&1 || true
  fi
  chmod 0755 "$root"  # mktemp made it 0700: it becomes the image's /
  tar --numeric-owner -C "$root" -cf "$tarball.tmp" . && mv "$tarball.tmp" "$tarball"
fi
"$docker" import --change 'ENV LANG=C.UTF-8' --change 'CMD ["/bin/bash"]' \
  "$tarball" "$image" >/dev/null
echo "$image"

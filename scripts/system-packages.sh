#!/usr/bin/env bash
# Installs the Debian packages the tests use (PostgreSQL, Redis, Chromium, bubblewrap, nginx,
# envsubst, openssl) when any is missing. Needs root (as in CI); otherwise says what to install.
set -euo pipefail
need=()
command -v redis-server >/dev/null || need+=(redis-server)
ls /usr/lib/postgresql/*/bin/initdb >/dev/null 2>&1 || need+=(postgresql)
command -v chromium >/dev/null || need+=(chromium)
command -v bwrap >/dev/null || need+=(bubblewrap)
command -v nginx >/dev/null || need+=(nginx-light)
command -v setpriv >/dev/null || need+=(util-linux)
command -v npm >/dev/null || need+=(npm)
command -v systemd-analyze >/dev/null || need+=(systemd)
command -v envsubst >/dev/null || need+=(gettext-base)  # deploy/nginx/render.sh
command -v openssl >/dev/null || need+=(openssl)        # deploy/local/stack.sh's TLS cert
[ ${#need[@]} -eq 0 ] && exit 0
if [ "$(id -u)" != 0 ]; then
  echo "missing Debian packages: ${need[*]} (run: sudo apt-get install ${need[*]})" >&2
  exit 1
fi
echo "installing Debian packages: ${need[*]}"
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
# policy-rc.d 101: install nginx/postgresql/redis without starting their system daemons.
printf '#!/bin/sh\nexit 101\n' >/usr/sbin/policy-rc.d; chmod +x /usr/sbin/policy-rc.d
apt-get install -y -qq --no-install-recommends "${need[@]}" >/dev/null
rm -f /usr/sbin/policy-rc.d

#!/usr/bin/env bash
# Fill deploy/nginx/pathways.conf from the environment and print it (or write it to $1).
# usage: PATHWAYS_SERVER_NAME=tool.example.edu PATHWAYS_FRAME_ANCESTORS="https://lms.example.edu" \
#          deploy/nginx/render.sh /etc/nginx/conf.d/pathways.conf && nginx -t && systemctl reload nginx
set -euo pipefail
here=$(dirname "$0")
: "${PATHWAYS_SERVER_NAME:?set PATHWAYS_SERVER_NAME to the tool host name (e.g. tool.example.edu)}"
: "${PATHWAYS_FRAME_ANCESTORS:?set PATHWAYS_FRAME_ANCESTORS to the LMS origins that may frame the tool, space-separated (e.g. https://canvas.example.edu)}"
export PATHWAYS_UPSTREAM=${PATHWAYS_UPSTREAM:-127.0.0.1:8000}
# Listen addresses: a port, ADDRESS:PORT, or "[::]:443 ipv6only=off" for IPv4 and IPv6.
export PATHWAYS_HTTP_LISTEN=${PATHWAYS_HTTP_LISTEN:-80}
export PATHWAYS_HTTPS_LISTEN=${PATHWAYS_HTTPS_LISTEN:-443}
export PATHWAYS_TLS_CERT=${PATHWAYS_TLS_CERT:-/etc/letsencrypt/live/$PATHWAYS_SERVER_NAME/fullchain.pem}
export PATHWAYS_TLS_KEY=${PATHWAYS_TLS_KEY:-/etc/letsencrypt/live/$PATHWAYS_SERVER_NAME/privkey.pem}
# A quote or semicolon would break out of the CSP header or the nginx directive.
for name in PATHWAYS_SERVER_NAME PATHWAYS_FRAME_ANCESTORS PATHWAYS_UPSTREAM PATHWAYS_TLS_CERT \
  PATHWAYS_TLS_KEY PATHWAYS_HTTP_LISTEN PATHWAYS_HTTPS_LISTEN; do
  case "${!name}" in
    *[\;\"\'\{\}\$]*) echo "$name=${!name}: contains one of ; \" ' { } \$ (not allowed): fix the value" >&2; exit 2 ;;
  esac
done
vars='${PATHWAYS_SERVER_NAME} ${PATHWAYS_FRAME_ANCESTORS} ${PATHWAYS_UPSTREAM} ${PATHWAYS_TLS_CERT}
  ${PATHWAYS_TLS_KEY} ${PATHWAYS_HTTP_LISTEN} ${PATHWAYS_HTTPS_LISTEN}'
if [ $# -ge 1 ]; then
  envsubst "$vars" <"$here/pathways.conf" >"$1"
else
  envsubst "$vars" <"$here/pathways.conf"
fi

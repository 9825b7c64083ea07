#!/usr/bin/env bash
# The many-machine shape of a deployment, on loopback, for the browser tests and the bench:
# PostgreSQL + Redis (services.sh, own state and ports), `pathways db upgrade`, the tool under
# gunicorn (2 workers) behind nginx with TLS (deploy/nginx/pathways.conf, a self-signed
# certificate for localhost), the result consumer, 2 grader workers and the local LMS (devlms).
# usage: stack.sh up|down|status|env [PART]   PART: web proxy consumer worker-1 worker-2 lms
#   up      start what is not running (all parts, or one), print each URL
#   down    stop (all parts and the servers, or one part: e.g. `down lms` takes the LMS away)
#   status  what runs, with pids and URLs; exit 1 if a part is down
#   env     export lines for tests: STACK_TOOL_URL, STACK_LMS_URL, DATABASE_URL, REDIS_URL, ...
# State (databases, logs, pids): $PATHWAYS_STACK_DIR (default ./var/stack), never var/test-services.
set -euo pipefail
cd "$(dirname "$0")/../.."
repo=$(pwd)
cmd=${1:-status}; only=${2:-}
state=$(realpath -m "${PATHWAYS_STACK_DIR:-var/stack}")
python=${PATHWAYS_STACK_PYTHON:-$repo/.venv/bin/python}
tool_port=${PATHWAYS_STACK_TOOL_PORT:-58000}
lms_port=${PATHWAYS_STACK_LMS_PORT:-58001}
https_port=${PATHWAYS_STACK_HTTPS_PORT:-58443}
http_port=${PATHWAYS_STACK_HTTP_PORT:-58080}
# Not the test servers' ports (55432/56379): the stack has its own PostgreSQL and Redis.
export PATHWAYS_PG_PORT=${PATHWAYS_STACK_PG_PORT:-55442}
export PATHWAYS_REDIS_PORT=${PATHWAYS_STACK_REDIS_PORT:-56389}
parts=(worker-1 worker-2 consumer web proxy lms)
run="$state/run"; logs="$state/logs"

# The tool as https://localhost (nginx, TLS) and the LMS as http://127.0.0.1: different sites,
# so the LMS iframe is third-party and the tool's cookies must be SameSite=None; Secure, as in
# production. Browsers need --ignore-certificate-errors (or trust $state/tls/cert.pem).
tool_url="https://localhost:$https_port"; lms_url="http://127.0.0.1:$lms_port"
tls="$state/tls"

stack_env() {
  bash deploy/local/services.sh env "$state/services" | sed -n 's/^export TEST_//p' \
    | sed 's/^/export /'
  echo "export PATHWAYS_VAR_DIR=$state/tool"
  echo "export TOOL_BASE_URL=$tool_url"
  echo "export STACK_TOOL_URL=$tool_url"
  echo "export STACK_LMS_URL=$lms_url"
  echo "export STACK_DIR=$state"
  echo "export STACK_CA_BUNDLE=$tls/cert.pem"
  echo "export PREFERRED_URL_SCHEME=https"
  # The stack's LMS is on loopback: let the tool fetch its key set there.
  echo "export OUTBOUND_ALLOW_PRIVATE=1"
  echo "export JAX_PLATFORMS=cpu"
}

port_of() {
  case "$1" in web) echo "$tool_port" ;; proxy) echo "$https_port" ;; lms) echo "$lms_port" ;;
    *) echo "" ;; esac
}
url_of() {
  case "$1" in web) echo "http://127.0.0.1:$tool_port/ (gunicorn)" ;; proxy) echo "$tool_url/" ;;
    lms) echo "$lms_url/" ;; *) echo "(queue: redis)" ;; esac
}
source "$repo/deploy/local/supervise.sh"

# Runs in the part's own session (started by start_part): becomes the part's program.
launch() {
  eval "$(stack_env)"
  case "$1" in
    web) PATHWAYS_WEB_BIND=127.0.0.1:$tool_port PATHWAYS_WEB_WORKERS=2 \
           exec "$repo/.venv/bin/gunicorn" -c "$repo/deploy/gunicorn.conf.py" ;;
    proxy) exec nginx -p "$state/nginx" -c "$state/nginx/nginx.conf" -g "daemon off;" ;;
    consumer) supervise consumer "$python" -m pathways consumer ;;
    worker-*) supervise "$1" "$python" -m pathways worker --platform cpu --concurrency 1 ;;
    # The LMS fetches the tool's JWKS over https: trust the stack's own certificate. Its key,
    # links, line items and scores live in $state/lms, so `down lms` + `up lms` is a restart.
    lms) REQUESTS_CA_BUNDLE="$tls/cert.pem" \
           exec "$python" -m devlms --host 127.0.0.1 --port "$lms_port" --tool "$tool_url" \
             --state-dir "$state/lms" ;;
  esac
}
stop_signal() { case "$1" in consumer) echo INT ;; *) echo TERM ;; esac; }

alive() { [ -f "$run/$1.pid" ] && kill -0 "$(cat "$run/$1.pid")" 2>/dev/null; }
listening() { (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }

start_part() {
  local name=$1 port
  if alive "$name"; then echo "$name: already running (pid $(cat "$run/$name.pid"))"; return; fi
  port=$(port_of "$name")
  if [ -n "$port" ] && listening "$port"; then
    echo "$name: port $port is in use by another program: stop it or set PATHWAYS_STACK_*_PORT" >&2
    exit 1
  fi
  setsid bash "$repo/deploy/local/stack.sh" __launch "$name" >>"$logs/$name.log" 2>&1 </dev/null &
  echo $! >"$run/$name.pid"
  if [ -n "$port" ]; then
    for _ in $(seq 300); do
      listening "$port" && break
      alive "$name" || break
      sleep 0.2
    done
    if ! listening "$port"; then
      echo "$name did not start; last lines of $logs/$name.log:" >&2
      tail -n 20 "$logs/$name.log" >&2
      exit 1
    fi
  fi
  echo "$name: $(url_of "$name") (pid $(cat "$run/$name.pid"), log $logs/$name.log)"
}

stop_part() {
  local name=$1 pid
  [ -f "$run/$name.pid" ] || return 0
  pid=$(cat "$run/$name.pid")
  if kill -0 "$pid" 2>/dev/null; then
    kill "-$(stop_signal "$name")" -- "-$pid" 2>/dev/null || true
    for _ in $(seq 150); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
    kill -KILL -- "-$pid" 2>/dev/null || true
    echo "$name: stopped"
  fi
  # Leftovers of the group (sandboxed runs) go too.
  kill -KILL -- "-$pid" 2>/dev/null || true
  rm -f "$run/$name.pid"
}

proxy_config() {
  # A self-signed certificate for localhost, and the production nginx config rendered for it.
  mkdir -p "$tls" "$state/nginx/logs" "$state/nginx/tmp"
  chmod 1777 "$state/nginx/tmp"  # nginx workers run as nobody when the stack runs as root
  if [ ! -f "$tls/cert.pem" ]; then
    openssl req -x509 -newkey rsa:2048 -nodes -days 365 -subj /CN=localhost \
      -addext "subjectAltName=DNS:localhost,IP:127.0.0.1" \
      -keyout "$tls/key.pem" -out "$tls/cert.pem" 2>/dev/null
  fi
  PATHWAYS_SERVER_NAME=localhost PATHWAYS_FRAME_ANCESTORS="$lms_url" \
    PATHWAYS_UPSTREAM=127.0.0.1:$tool_port PATHWAYS_TLS_CERT="$tls/cert.pem" \
    PATHWAYS_TLS_KEY="$tls/key.pem" PATHWAYS_HTTP_LISTEN=127.0.0.1:$http_port \
    PATHWAYS_HTTPS_LISTEN=127.0.0.1:$https_port bash deploy/nginx/render.sh "$state/nginx/site.conf"
  local tmp="$state/nginx/tmp"
  cat >"$state/nginx/nginx.conf" <<NGINX
pid $state/nginx/nginx.pid;
error_log $state/nginx/logs/error.log;
worker_processes 2;
events { worker_connections 256; }
http {
  access_log $state/nginx/logs/access.log;
  client_body_temp_path $tmp/body; proxy_temp_path $tmp/proxy; fastcgi_temp_path $tmp/fastcgi;
  uwsgi_temp_path $tmp/uwsgi; scgi_temp_path $tmp/scgi;
  include $state/nginx/site.conf;
}
NGINX
}

register_lms() {
  # The local LMS as a platform of the tool, once (idempotent: looked up first).
  local args
  args=$("$python" - <<PY
from devlms.config import DevLmsConfig
c = DevLmsConfig(base_url="$lms_url", tool_base_url="$tool_url")
a = c.registration_args
print(a["issuer"], a["client_id"], a["auth_login_url"], a["auth_token_url"], a["key_set_url"],
      c.deployment_id)
PY
)
  read -r iss client login token jwks deployment <<<"$args"
  if "$python" -m pathways platform list | awk -F'\t' -v i="$iss" -v c="$client" \
      '$2==i && $3==c {found=1} END {exit !found}'; then
    return
  fi
  "$python" -m pathways platform add --issuer "$iss" --client-id "$client" --login-url "$login" \
    --token-url "$token" --key-set-url "$jwks" --deployment "$deployment" --name "stack LMS"
}

up() {
  mkdir -p "$run" "$logs" "$state/tool" "$state/lms"
  bash deploy/local/services.sh start "$state/services" >/dev/null
  eval "$(stack_env)"
  if [ -z "$only" ]; then
    echo "postgres: $DATABASE_URL"
    echo "redis: $REDIS_URL"
    "$python" -m pathways db upgrade >>"$logs/migrate.log" 2>&1 \
      || { echo "migration failed:" >&2; tail -n 20 "$logs/migrate.log" >&2; exit 1; }
    register_lms >>"$logs/migrate.log" 2>&1 \
      || { echo "registering the LMS failed:" >&2; tail -n 20 "$logs/migrate.log" >&2; exit 1; }
    command -v nginx >/dev/null || { echo "nginx is not installed (apt-get install nginx-light)" >&2; exit 1; }
    proxy_config
    for name in "${parts[@]}"; do start_part "$name"; done
  else
    start_part "$only"
  fi
}

down() {
  if [ -n "$only" ]; then stop_part "$only"; return; fi
  # All parts at once: each waits up to 15 s for its own graceful stop, not for the others'.
  for ((i = ${#parts[@]} - 1; i >= 0; i--)); do stop_part "${parts[$i]}" & done
  wait
  bash deploy/local/services.sh stop "$state/services"
  echo "stack stopped; data kept in $state"
}

status() {
  local rc=0
  for name in "${parts[@]}"; do
    if alive "$name"; then echo "$name: up $(url_of "$name") (pid $(cat "$run/$name.pid"))"
    else echo "$name: down"; rc=1; fi
  done
  return $rc
}

if [ "$cmd" != __launch ] && [ -n "$only" ] && [[ ! " ${parts[*]} " =~ " $only " ]]; then
  echo "unknown part '$only': use one of ${parts[*]}" >&2; exit 2
fi
case "$cmd" in
  __launch) launch "$only" ;;
  up) up ;;
  down) down ;;
  status) status ;;
  env) stack_env ;;
  *) echo "usage: $0 up|down|status|env [web|consumer|worker-1|worker-2|lms]" >&2; exit 2 ;;
esac

#!/usr/bin/env bash
# `make images`: the deployment's images, built here without a registry (deploy/README.md).
#   usage: scripts/images.sh [IMAGE...]   IMAGE: service grader-cpu grader-tpu course (the
#          default: all four) postgres redis (the test stack's, from Debian packages)
# BASE=python:3.11-slim-bookworm builds on the registry's image instead of the local
# debootstrap base (deploy/images/base.sh). Wheels come from the lock files, built on this host
# (the images install them with --no-index): the host's python3 must be the images' 3.11.
# Needs root (dockerd, debootstrap); starts dockerd when none answers (deploy/images/dockerd.sh).
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
work=${PATHWAYS_IMAGES_WORK:-$root/var/images}
tag=${PATHWAYS_IMAGE_TAG:-latest}
export DOCKER=${DOCKER:-$(command -v /usr/bin/docker || command -v docker || echo docker)}
images=("$@")
[ ${#images[@]} -gt 0 ] || images=(service grader-cpu grader-tpu course)

bash deploy/images/dockerd.sh start
base=${BASE:-$(bash deploy/images/base.sh)}
python3 -c 'import sys; sys.exit(sys.version_info[:2] != (3, 11))' \
  || { echo "the host's python3 must be 3.11 (the images' Python) to build their wheels" >&2; exit 1; }
# pip for the host side only: a venv of its own (a bare Debian has no pip module).
tools=$work/tools
[ -x "$tools/bin/pip" ] || python3 -m venv "$tools"
pip_wheel() { "$tools/bin/pip" wheel -q --disable-pip-version-check "$@" 2>&1 \
  | grep -v "is ignored: it is neither" >&2 || true; }

# Tracked (and new, not ignored) files under the given paths: never var/, .env or caches.
files() { git -C "$root" ls-files -z --cached --others --exclude-standard -- "$@"; }

# The project's wheel with only the packages an image runs (setuptools finds only what is
# there); course/content (hidden checks, reference solutions) never goes in.
project_wheel() {  # DIR PACKAGE...
  local out=$1; shift
  local src=$work/src/$(basename "$out")
  rm -rf "$src" && mkdir -p "$src"
  files pyproject.toml README.md "$@" | grep -zv '^course/content/' | tar -C "$root" --null -T - -c \
    | tar -C "$src" -x
  rm -rf "$out" && mkdir -p "$out"
  # Reproducible bytes (zip times from the last commit): an unchanged tree hits the build cache.
  SOURCE_DATE_EPOCH=$(git -C "$root" log -1 --format=%ct) pip_wheel --no-deps -w "$out" "$src"
  ls "$out"/jax_pathways-*.whl >/dev/null
}

context() {  # NAME LOCK [EXTRA REQUIREMENT]: $work/ctx/NAME with wheels/ and requirements.txt
  local ctx=$work/ctx/$1 lock=$2 extra=${3:-}
  rm -rf "$ctx" && mkdir -p "$ctx/wheels"
  cp "$lock" "$ctx/requirements.txt"
  [ -z "$extra" ] || echo "$extra" >>"$ctx/requirements.txt"
  # The lock file's own pins constrain what the extra pulls in (requests for jax[tpu]).
  pip_wheel -r "$ctx/requirements.txt" -c requirements-service.txt -w "$ctx/wheels"
  echo "$ctx"
}

build() {  # IMAGE DOCKERFILE CONTEXT [BUILD OPTION...]
  local name=$1 dockerfile=$2 dir=$3; shift 3
  echo "building $name:$tag from $base" >&2
  local start=$SECONDS
  # The build stage tagged too: `image prune` below keeps it, so it stays the next build's cache.
  if grep -q "^FROM .* AS build$" "$dockerfile"; then
    DOCKER_BUILDKIT=0 nice -n 19 "$DOCKER" build -q --force-rm --network host --build-arg "BASE=$base" \
      "$@" --target build -t "$name-build:$tag" -f "$dockerfile" "$dir" >/dev/null
  fi
  DOCKER_BUILDKIT=0 nice -n 19 "$DOCKER" build -q --force-rm --network host --build-arg "BASE=$base" \
    "$@" -t "$name:$tag" -f "$dockerfile" "$dir" >/dev/null
  echo "built $name:$tag in $((SECONDS - start)) s: $("$DOCKER" image inspect -f '{{.Size}}' \
    "$name:$tag" | awk '{printf "%.0f MB", $1 / 1e6}')" >&2
}

for image in "${images[@]}"; do
  case "$image" in
    service)
      ctx=$(context service requirements-service.txt)
      project_wheel "$ctx/project" pathways course grading_contract lti_service
      cp deploy/gunicorn.conf.py "$ctx/project/"
      build pathways-service deploy/docker/service.Dockerfile "$ctx" ;;
    grader-cpu)
      ctx=$(context grader-cpu requirements-grader.txt)
      project_wheel "$ctx/project" pathways course grading_contract grader_worker
      build pathways-grader-cpu deploy/docker/grader-cpu.Dockerfile "$ctx" ;;
    grader-tpu)
      # The CPU image plus what jax[tpu] adds to it (libtpu): only those wheels are staged.
      [ -d "$work/ctx/grader-cpu/wheels" ] && "$DOCKER" image inspect "pathways-grader-cpu:$tag" \
        >/dev/null 2>&1 || bash "$root/scripts/images.sh" grader-cpu
      extra="jax[tpu]==$(sed -n 's/^jax==//p' requirements-grader.txt)"
      all=$(context grader-tpu-all requirements-grader.txt "$extra")
      ctx=$work/ctx/grader-tpu
      rm -rf "$ctx" && mkdir -p "$ctx/wheels"
      for whl in "$all"/wheels/*.whl; do
        [ ! -e "$work/ctx/grader-cpu/wheels/${whl##*/}" ] || continue
        # Another version of a package the CPU image has would be laid over it: refuse.
        if compgen -G "$work/ctx/grader-cpu/wheels/$(basename "${whl%%-*}")-*.whl" >/dev/null; then
          echo "jax[tpu] wants another version of ${whl##*/} than the lock: make lock" >&2; exit 1
        fi
        mv "$whl" "$ctx/wheels/"
      done
      ls "$ctx"/wheels/libtpu-*.whl >/dev/null
      rm -rf "$all"
      build pathways-grader-tpu deploy/docker/grader-tpu.Dockerfile "$ctx" \
        --build-arg "GRADER=pathways-grader-cpu:$tag" ;;
    course)
      ctx=$work/ctx/course
      rm -rf "$ctx" && mkdir -p "$ctx"
      files course/content | tar -C "$root" --null -T - -c | tar -C "$ctx" -x --strip-components=1
      chmod -R a+rX,go-w "$ctx/content"
      build pathways-course deploy/docker/course.Dockerfile "$ctx" ;;
    postgres|redis)
      ctx=$work/ctx/$image
      rm -rf "$ctx" && mkdir -p "$ctx"
      install -m 0755 "deploy/docker/$image-entrypoint.sh" "$ctx/entrypoint.sh"
      build "pathways-$image" "deploy/docker/$image.Dockerfile" "$ctx" ;;
    *) echo "unknown image $image (service grader-cpu grader-tpu course postgres redis)" >&2; exit 2 ;;
  esac
done
# Earlier builds' images, now untagged: vfs keeps each layer whole, so they cost gigabytes.
"$DOCKER" image prune -f >/dev/null

#!/usr/bin/env bash
# Cloud Build step: build the backfill's container image (backfill/Dockerfile, after the
# functions step built the wheel) and push it to the environment's Artifact Registry repository
# (infra/artifact_registry.tf), tagged with the commit and, for a branch build, the branch name.
#
#   backfill-image.sh ENV [--print]
#
# The repository is the one Terraform makes from the environment's tfvars:
#   <region>-docker.pkg.dev/<project>/<name_prefix>backfill, image "backfill".
# --print prints that image (no tag) and stops.
set -euo pipefail
env_name="${1:?usage: backfill-image.sh ENV [--print]}"
tfvars="infra/environments/${env_name}.tfvars"
[[ -f "$tfvars" ]] || { echo "no $tfvars" >&2; exit 2; }

tfvar() { # the quoted value of a top-level `name = "value"` line, else $2
  local value
  value="$(sed -n "s/^$1[[:space:]]*=[[:space:]]*\"\\([^\"]*\\)\".*/\\1/p" "$tfvars" | head -n 1)"
  echo "${value:-$2}"
}
project="$(tfvar project "")"
[[ -n "$project" ]] || { echo "$tfvars sets no project" >&2; exit 2; }
# Defaults as in infra/variables.tf.
image="$(tfvar region us-central1)-docker.pkg.dev/${project}/$(tfvar name_prefix hh-)backfill/backfill"
if [[ "${2:-}" == "--print" ]]; then
  echo "$image"
  exit 0
fi

tag="${COMMIT_SHA:-}"
if [[ -z "$tag" ]]; then
  tag="$(git rev-parse HEAD 2>/dev/null || true)"
fi
[[ -n "$tag" ]] || { echo "no commit to tag the image with: set COMMIT_SHA" >&2; exit 2; }
shopt -s nullglob
wheels=(build/dist/hedera_history-*.whl)
if [[ ${#wheels[@]} -ne 1 ]]; then
  echo "expected one wheel in build/dist (make functions), found ${#wheels[@]}" >&2
  exit 2
fi
tags=(-t "$image:$tag")
if [[ -n "${BRANCH_NAME:-}" ]]; then
  tags+=(-t "$image:$BRANCH_NAME")
fi
# BuildKit, for backfill/Dockerfile.dockerignore: only the lock and the wheel leave the checkout.
DOCKER_BUILDKIT=1 docker build -f backfill/Dockerfile "${tags[@]}" .
docker push --all-tags "$image"
echo "pushed $image:$tag"

#!/usr/bin/env bash
# Cloud Build step: apply the environment's saved plan, but only for builds of the main branch.
set -euo pipefail
env_name="${1:?usage: apply-on-main.sh ENV}"
if [[ "${BRANCH_NAME:-}" != "main" ]]; then
  echo "branch '${BRANCH_NAME:-}' is not main: nothing applied"
  exit 0
fi
exec make tf-apply DEPLOY_ENV="$env_name"

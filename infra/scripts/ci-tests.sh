#!/usr/bin/env bash
# Cloud Build step: the test suite in the Cloud CLI emulators image (Java and the Bigtable and
# Pub/Sub emulators are in it; the suite starts its own). That image's Python lives elsewhere than
# python:3.11's, so it gets its own virtual environment.
set -euo pipefail
if ! command -v make >/dev/null || ! python3 -c 'import ensurepip' 2>/dev/null; then
  apt-get update -qq
  apt-get install -y -qq make python3-venv python3-pip >/dev/null
fi
exec make pytest PYTHON=python3 VENV=.venv-emulators

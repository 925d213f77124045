#!/usr/bin/env bash
# Cloud Build step: the test suite in the Cloud CLI emulators image (Java and the Bigtable and
# Pub/Sub emulators are in it; the suite starts its own). That image's Python lives elsewhere than
# python:3.11's, so it gets its own virtual environment; the install compiles the project's C core
# (hedera_history._speedups), which the tests require, so gcc and the Python headers come too.
set -euo pipefail
has_headers='import os, sys, sysconfig; sys.exit(not os.path.exists(sysconfig.get_paths()["include"] + "/Python.h"))'
if ! command -v make >/dev/null || ! command -v gcc >/dev/null || ! python3 -c 'import ensurepip' 2>/dev/null \
  || ! python3 -c "$has_headers"; then
  apt-get update -qq
  apt-get install -y -qq make gcc python3-dev python3-venv python3-pip >/dev/null
fi
exec make pytest PYTHON=python3 VENV=.venv-emulators

#!/bin/sh
# The compiled core under AddressSanitizer and UndefinedBehaviorSanitizer (docs/deploy.md, "The
# compiled core"): builds hedera_history/_speedups.c with both into a scratch folder, puts that build
# before the venv's (the package's __path__, through a sitecustomize), and runs the core's tests and
# its fuzz tests (tests/unit/test_speedups_fuzz.py) there, longer than the suite runs them.
#
#   bench/sanitized_core.sh [ROUNDS [SEED]]      (defaults 50 and 1: a few minutes on one core)
#
# The first sanitizer report stops the run (exit status non-zero) and is printed with its stack.
set -eu
ROUNDS=${1:-50}
SEED=${2:-1}
ROOT=$(cd "$(dirname "$0")/.." && pwd)
PYTHON="$ROOT/.venv/bin/python"
SCRATCH=$(mktemp -d)
trap 'rm -rf "$SCRATCH"' EXIT
mkdir -p "$SCRATCH/hedera_history" "$SCRATCH/boot"
SUFFIX=$("$PYTHON" -c 'import sysconfig; print(sysconfig.get_config_var("EXT_SUFFIX"))')
INCLUDE=$("$PYTHON" -c 'import sysconfig; print(sysconfig.get_paths()["include"])')
gcc -shared -fPIC -O1 -g -fno-omit-frame-pointer -fsanitize=address,undefined -fno-sanitize-recover=undefined \
    -I"$INCLUDE" "$ROOT/shared/src/hedera_history/_speedups.c" -o "$SCRATCH/hedera_history/_speedups$SUFFIX"
cat >"$SCRATCH/boot/sitecustomize.py" <<EOF
import hedera_history

hedera_history.__path__.insert(0, "$SCRATCH/hedera_history")
EOF
# The interpreter is not built with ASan: its runtime is preloaded. Leaks are CPython's own (interned
# objects at exit), not the core's. pycryptodome opens its libraries with RTLD_DEEPBIND, which ASan
# refuses. pytest -s: a report goes to stderr, which pytest's capture would swallow as the process dies.
export ASAN_OPTIONS=detect_leaks=0:abort_on_error=1
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
export LD_PRELOAD="$(gcc -print-file-name=libasan.so):$(gcc -print-file-name=libubsan.so)"
export PYTHONPATH="$SCRATCH/boot"
export PYCRYPTODOME_DISABLE_DEEPBIND=1
export HEDERA_HISTORY_REQUIRE_SPEEDUPS=1
export HEDERA_HISTORY_FUZZ_ROUNDS="$ROUNDS" HEDERA_HISTORY_FUZZ_SEED="$SEED"
"$PYTHON" -c "from hedera_history import _speedups; assert _speedups.__file__.startswith('$SCRATCH')"
cd "$ROOT"
"$PYTHON" -m pytest -q -s -p no:faulthandler -p no:cacheprovider -n 0 \
    tests/unit/test_speedups.py tests/unit/test_speedups_fuzz.py tests/unit/formats/test_block.py \
    tests/unit/formats/test_block_hash_compiled.py tests/conformance/test_block_hash_compiled_real.py \
    tests/unit/formats/test_block_transaction_groups.py tests/unit/formats/test_block_common_record.py \
    tests/unit/formats/test_compiled_v6_walk.py tests/unit/store/test_transaction_rows.py \
    tests/unit/store/test_record_entities.py tests/unit/store/test_block_totals.py \
    tests/unit/store/test_table_rows.py tests/unit/store/test_mutation_wire.py \
    tests/unit/store/test_mutate_rows_answer.py tests/unit/verify/tss/test_babyjubjub.py \
    tests/unit/verify/tss/test_poseidon.py

"""Set environment variables for the duration of a block, then put the old values back.

The Bigtable clients read ``BIGTABLE_EMULATOR_HOST`` from the environment only, when they are
constructed. A local stack used inside a test process must not leave its emulator's address in
``os.environ`` for everything else that runs there, so clients are created inside this block.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterator, Mapping


@contextlib.contextmanager
def scoped_environ(values: Mapping[str, str]) -> Iterator[None]:
    saved = {name: os.environ.get(name) for name in values}
    os.environ.update(values)
    try:
        yield
    finally:
        for name, old in saved.items():
            if old is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = old

"""``python -m bench``: run every ``*_bench.py`` module's ``main()``."""

from __future__ import annotations

import importlib
import pkgutil
from pathlib import Path


def main() -> None:
    folder = Path(__file__).resolve().parent
    names = sorted(m.name for m in pkgutil.iter_modules([str(folder)]) if m.name.endswith("_bench"))
    for name in names:
        print(f"== {name}")
        importlib.import_module(f"{__package__ or 'bench'}.{name}").main()


if __name__ == "__main__":
    main()

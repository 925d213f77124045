"""The functions' lock: it fits pyproject.toml (checked offline), parses, and closes over what requires what."""

from __future__ import annotations

import pytest
from hedera_history.deploy.lock import LOCK_FILE, dependencies_digest, lock_problems, parse_lock, read_lock
from hedera_history.errors import BuildError

from tests.unit.deploy.infra import REPO

SAMPLE = """\
# dependencies sha256={digest}
blinker==1.9.0 \\
    --hash=sha256:aa \\
    --hash=sha256:ab
    # via flask
click==8.3.0 \\
    --hash=sha256:bb
    # via
    #   flask
    #   hedera-history (pyproject.toml)
flask==3.1.0 \\
    --hash=sha256:cc
    # via hedera-history (pyproject.toml)
rich==15.0.0 \\
    --hash=sha256:dd
    # via hedera-history (pyproject.toml)
pygments==2.19.0 \\
    --hash=sha256:ee
    # via rich
"""


def test_the_committed_lock_fits_pyproject():
    assert lock_problems(REPO) == []
    lock = read_lock(REPO)
    assert lock.pins["protobuf"].hashes > 0
    assert "hedera-history" in lock.pins["google-cloud-bigtable"].required_by


def test_a_pin_carries_its_hashes_and_what_requires_it():
    lock = parse_lock(SAMPLE.format(digest="0" * 64))
    assert lock.digest == "0" * 64
    assert lock.pins["blinker"].hashes == 2
    assert lock.pins["click"].required_by == {"flask", "hedera-history"}
    assert lock.pins["blinker"].text == "blinker==1.9.0 \\\n    --hash=sha256:aa \\\n    --hash=sha256:ab"


def test_the_closure_follows_requirements_and_leaves_out_what_only_others_need():
    lock = parse_lock(SAMPLE.format(digest="0" * 64))
    assert [pin.name for pin in lock.closure(["flask"])] == ["blinker", "click", "flask"]
    assert [pin.name for pin in lock.closure(["rich", "click"])] == ["click", "pygments", "rich"]


def test_a_stale_lock_is_reported(tmp_path):
    (tmp_path / "pyproject.toml").write_text("[project]\nname = 'x'\ndependencies = ['flask>=3.2', 'attrs']\n")
    (tmp_path / LOCK_FILE).parent.mkdir(parents=True)
    (tmp_path / LOCK_FILE).write_text(SAMPLE.format(digest=dependencies_digest(["flask>=3"])))
    problems = lock_problems(tmp_path)
    assert any("run `hedera-history deploy lock`" in problem for problem in problems)
    assert "flask==3.1.0 does not satisfy 'flask>=3.2'" in problems
    assert "attrs is not pinned in functions/requirements.lock" in problems


def test_a_missing_lock_is_a_build_error(tmp_path):
    (tmp_path / "pyproject.toml").write_text("[project]\nname = 'x'\ndependencies = []\n")
    with pytest.raises(BuildError, match="deploy lock"):
        lock_problems(tmp_path)

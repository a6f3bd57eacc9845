"""Shared fixtures: the repository's paths and the `isa` command the tests compare with."""

import os
import pathlib
import subprocess

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]


@pytest.fixture(scope="session")
def root():
    return ROOT


@pytest.fixture(scope="session")
def isa_bin():
    """The `isa` command: $ISA_BIN, else the workspace's debug build (built if missing)."""
    given = os.environ.get("ISA_BIN")
    if given:
        return given
    subprocess.run(
        ["cargo", "build", "--quiet", "--bin", "isa"], cwd=ROOT, check=True
    )
    return str(ROOT / "target" / "debug" / "isa")

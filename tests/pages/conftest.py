"""The tests of the 2024-11-05 pages speak the revisions with a handshake: their clients offer those by default."""

from __future__ import annotations

import pytest


@pytest.fixture(autouse=True)
def _handshake(handshake_by_default: None) -> None:
    """(tests/conftest.py, ``handshake_by_default``)"""

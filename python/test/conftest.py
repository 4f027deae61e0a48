"""What every pytest file of the wsp package shares."""

import pytest


@pytest.fixture(autouse=True)
def cache(tmp_path_factory, monkeypatch):
    """One cache of compiled programs per test session: shared between the
    session's tests, never with other runs."""
    root = tmp_path_factory.getbasetemp() / "wsp-cache"
    monkeypatch.setenv("WSP_CACHE_DIR", str(root))
    return root

import sys
from pathlib import Path

# make ``tests/_shared.py`` and ``tests/reference.py`` importable as plain modules
sys.path.insert(0, str(Path(__file__).resolve().parent))


import pytest  # noqa: E402


@pytest.fixture(scope="session")
def ce():
    """The CE sample with R's types (Urban, Tenure, Marital factors); skips without shared/."""
    from _shared import cedata_path

    from idrisk.datasets import read_ce

    return read_ce(cedata_path())

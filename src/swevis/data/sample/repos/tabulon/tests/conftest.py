import os
import sys

import pytest

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from tabulon import FloatColumn, IntColumn, PercentColumn, Table, TextColumn  # noqa: E402


@pytest.fixture
def sales():
    table = Table([
        TextColumn("region"),
        IntColumn("units"),
        FloatColumn("revenue"),
        PercentColumn("share"),
    ])
    table.extend([
        ["North", 1200, 15300.5, 0.41],
        ["South", 310, 4100.0, 0.11],
        ["East", 950, 12000.25, 0.32],
        ["West", 600, 6020.0, 0.16],
    ])
    return table

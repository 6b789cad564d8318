import os
import sys

import pytest

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from stratconf import Boolean, Choice, Integer, List, Schema, String  # noqa: E402


@pytest.fixture
def app_schema():
    return Schema({
        "app": {
            "name": String(default="demo"),
            "debug": Boolean(default=False),
            "level": Choice(["debug", "info", "warning"], default="info"),
        },
        "db": {
            "host": String(default="localhost"),
            "port": Integer(default=5432, minimum=1, maximum=65535),
        },
        "workers": Integer(default=2, minimum=1),
        "tags": List(default=[]),
    })


@pytest.fixture
def write(tmp_path):
    def _write(name, text):
        path = tmp_path / name
        path.write_text(text, encoding="utf-8")
        return path
    return _write

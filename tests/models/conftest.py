"""The secrets a test registers for redaction are the process's: forget them around each test,
so one test's key does not rewrite another test's text."""

import pytest

from swevis.redaction import forget_secrets


@pytest.fixture(autouse=True)
def no_registered_secrets():
    forget_secrets()
    yield
    forget_secrets()

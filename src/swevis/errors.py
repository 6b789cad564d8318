"""Errors the user can act on. The CLI prints them as one line instead of a traceback."""


class SwevisError(Exception):
    """Base class of user-facing errors (bad input, unreachable remote, bad config)."""


class TaskValidationError(SwevisError):
    """A task row that does not satisfy the SWE-bench schema; names the file, row and field."""


class TaskSourceError(SwevisError):
    """A task source that cannot be read: missing file, unknown split, unreachable dataset."""


class RepoError(SwevisError):
    """A repository that cannot be mirrored or checked out."""


class InfrastructureError(SwevisError):
    """The machinery failed, not the agent or the patch: a missing API key, an endpoint still
    unreachable after retries, a harness that could not build or run its environment, no
    Docker engine. A job that meets one fails with this one-line reason and writes no final
    output, so the next run retries it; it is never recorded as an agent or patch outcome."""


class RemoteUnreachable(RepoError, InfrastructureError):
    """A remote that git could not reach or that did not answer in time (network, DNS, a
    stalled transfer, the clone timeout): the machinery, not a bad repository name."""

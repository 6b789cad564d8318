"""Errors raised by stratconf."""


class ConfigError(Exception):
    """Base class of every stratconf error."""


class SourceError(ConfigError):
    """A configuration source could not be read or parsed."""

    def __init__(self, source, message):
        self.source = source
        super().__init__(f"{source}: {message}")


class InterpolationError(ConfigError):
    """A ``${...}`` reference could not be resolved."""

    def __init__(self, key, message):
        self.key = key
        super().__init__(f"cannot interpolate {key!r}: {message}")


class ValidationError(ConfigError):
    """One or more values do not match the schema.

    ``errors`` is a list of ``(dotted_key, message)`` pairs.
    """

    def __init__(self, errors):
        self.errors = list(errors)
        lines = [f"  {key}: {message}" for key, message in self.errors]
        super().__init__("invalid configuration:\n" + "\n".join(lines))

"""Exception hierarchy used throughout ledgerkit."""


class LedgerError(Exception):
    """Base class of every error raised by ledgerkit."""


class CurrencyError(LedgerError):
    """Unknown currency, or an operation mixing two currencies."""


class AccountError(LedgerError):
    """Unknown account, duplicate account or invalid account name."""


class UnbalancedEntryError(LedgerError):
    """A journal entry whose debits and credits do not cancel out."""

    def __init__(self, entry, difference):
        self.entry = entry
        self.difference = difference
        super().__init__(
            f"entry {entry.reference or entry.description!r} is unbalanced by {difference}"
        )


class CsvImportError(LedgerError):
    """A CSV file could not be turned into journal entries."""

    def __init__(self, message, line=None):
        self.line = line
        if line is not None:
            message = f"line {line}: {message}"
        super().__init__(message)

"""INI files; dotted section names nest (``[db.replica]``)."""

import configparser

from ..tree import get_path, set_path
from .base import FileSource


class IniSource(FileSource):
    """Parse an INI file with :mod:`configparser` (no built-in interpolation).

    Keys outside any section are not allowed by the INI format; use a
    ``[DEFAULT]``-free layout. Values stay strings; a schema coerces them.
    """

    def parse(self, text):
        parser = configparser.ConfigParser(interpolation=None, default_section="__defaults__")
        parser.optionxform = str  # keep key case
        parser.read_string(text, source=self.path)
        tree = {}
        for section in parser.sections():
            if not isinstance(get_path(tree, section, None), dict):
                set_path(tree, section, {})
            for key, value in parser.items(section, raw=True):
                set_path(tree, f"{section}.{key}", value)
        return tree

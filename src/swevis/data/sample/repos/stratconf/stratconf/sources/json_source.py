"""JSON files."""

import json

from ..errors import SourceError
from .base import FileSource


class JsonSource(FileSource):
    """A JSON document whose top level must be an object."""

    def parse(self, text):
        data = json.loads(text)
        if not isinstance(data, dict):
            raise SourceError(self.path, "top level of a JSON config must be an object")
        return data

"""Task instances: sources, validation, seeded stratified sampling, repository mirrors and checkouts."""

from swevis.tasks.instances import load_instances, write_instances
from swevis.tasks.sampling import allocate, stratified_sample
from swevis.tasks.schema import REQUIRED_FIELDS, validate_row
from swevis.tasks.sources import open_source

__all__ = [
    "REQUIRED_FIELDS",
    "allocate",
    "load_instances",
    "open_source",
    "stratified_sample",
    "validate_row",
    "write_instances",
]

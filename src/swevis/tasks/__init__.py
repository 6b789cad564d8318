"""Task instances: sources, validation, seeded stratified sampling, repository mirrors and checkouts.

`open_source` lives in `swevis.tasks.sources` and is not re-exported: it imports polars, which
every agent job would otherwise pay for (~0.1 s a start) only to read a JSON file of rows.
"""

from swevis.tasks.instances import load_instances, probe_rows, study_rows, write_instances
from swevis.tasks.sampling import allocate, stratified_sample
from swevis.tasks.schema import REQUIRED_FIELDS, validate_row

__all__ = [
    "REQUIRED_FIELDS",
    "allocate",
    "load_instances",
    "probe_rows",
    "stratified_sample",
    "study_rows",
    "validate_row",
    "write_instances",
]

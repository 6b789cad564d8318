"""swevis: rendered-code agentic repair on SWE-bench, as a Snakemake workflow over one package."""

__version__ = "0.1.0"

"""Preloaded by the job zygote (tests/job_zygote.py) after the job scripts' imports: the Qwen3
tokenizer, loaded once, which every agent job counts its prompts with (about 0.3 CPU s a job
from its fast-load file). Loaded only where SWEVIS_CACHE_DIR names the cache to read it from:
the zygote gets the test session's (tests/snakemake_fork.py), so the user's own cache is never
written. A forked job uses the tokenizer as loaded; a job whose backbone counts with another
tokenizer loads that one itself, as before."""

import os

from swevis.tokens.text import text_tokens

if os.environ.get("SWEVIS_CACHE_DIR"):
    text_tokens("warm", "qwen3")

"""swevis: rendered-code agentic repair on SWE-bench, as a Snakemake workflow over one package."""

import os

# A run's environment is what the shell exported, never a .env file. Importing mini-swe-agent
# loads ~/.config/mini-swe-agent/.env, and swebench's harness the first .env in a folder above
# its install (a checkout's own .env when .venv is inside it): either could bring in an API key
# or an MSWEA_* setting (MSWEA_DOCKER_EXECUTABLE picks the program agent containers run under)
# that no config shows. Both read .env files through python-dotenv, which this switch turns off;
# it is set here, before any swevis module can import either of them.
os.environ["PYTHON_DOTENV_DISABLED"] = "1"

__version__ = "0.1.0"

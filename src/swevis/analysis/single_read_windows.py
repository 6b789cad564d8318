"""Seeded sampling of code windows from Python source trees (the single-read study's inputs)."""

from __future__ import annotations

import hashlib
import importlib.util
import random
from pathlib import Path

from swevis.errors import SwevisError
from swevis.render.core import RenderError, renderable_text

SKIP_DIRS = {".git", "__pycache__", ".tox", ".venv", "node_modules", "build", "dist"}


def package_source_root(name: str) -> str:
    """Folder of an installed Python package: real repository source available offline."""
    spec = importlib.util.find_spec(name)
    if spec is None or not spec.submodule_search_locations:
        raise SwevisError(f"package {name!r} is not installed (or is a single module); it is a configured source tree")
    return str(Path(list(spec.submodule_search_locations)[0]))


def matplotlib_source_root() -> str:
    """Folder of the installed matplotlib package (a SWE-bench Verified repository's source)."""
    return package_source_root("matplotlib")


# the import names of SWE-bench Verified's repositories: installed packages the benchmarks
# draw windows from must not be one of them (no design is tuned on Verified code)
VERIFIED_PACKAGES = frozenset({"astropy", "django", "matplotlib", "seaborn", "flask", "requests", "xarray", "pylint",
                               "pytest", "sklearn", "scikit-learn", "sphinx", "sympy"})


def package_windows(packages: list[str], n_lines: int, count: int, seed: int) -> list[dict]:
    """`count` windows of `n_lines` lines spread over installed packages: window k comes from
    packages[k mod len], so no one large package (matplotlib) dominates; each package's
    windows are `sample_windows`'s seeded draw from that package alone."""
    per = -(-count // len(packages))
    drawn = [sample_windows([package_source_root(p)], [n_lines], per, seed) for p in packages]
    return [drawn[k % len(packages)][k // len(packages)] for k in range(count)]


def python_files(root: str | Path) -> list[Path]:
    root = Path(root)
    if not root.is_dir():
        raise SwevisError(f"source root {root} is not a directory")
    out = []
    for p in sorted(root.rglob("*.py")):
        if any(part in SKIP_DIRS for part in p.relative_to(root).parts[:-1]):
            continue
        if p.is_file():
            out.append(p)
    return out


def _read_lines(path: Path) -> list[str] | None:
    try:
        data = path.read_bytes()
    except OSError:
        return None
    if b"\x00" in data:
        return None
    try:
        return data.decode("utf-8").splitlines(keepends=True)
    except UnicodeDecodeError:
        return None


def _renderable(text: str) -> bool:
    """Whether a page can show the window (a character no font draws, say, and every render of
    it would fail): such a window is redrawn, like a mostly blank one."""
    try:
        renderable_text("window", text)
    except RenderError:
        return False
    return True


def sample_windows(
    roots: list[str | Path],
    sizes: list[int],
    per_size: int,
    seed: int,
    min_nonblank: float = 0.5,
) -> list[dict]:
    """`per_size` windows of exactly n lines for each n in `sizes`, from *.py files under `roots`.

    A window is drawn by picking a file uniformly among those with >= n lines, then a start
    line uniformly; windows with fewer than `min_nonblank` non-blank lines, or that no page can
    show (swevis.render.core.renderable_text), are redrawn. Roots
    and files are visited in sorted order, so the same seed and trees give the same sample.
    Rows: window_id, root, path (relative), abs_path, start_line, n_lines, text.
    """
    files: list[tuple[str, Path, list[str]]] = []
    for root in roots:
        root = Path(root)
        for p in python_files(root):
            lines = _read_lines(p)
            if lines:
                files.append((str(root), p, lines))
    if not files:
        raise SwevisError(f"no readable *.py files under {', '.join(map(str, roots))}")
    out = []
    for n in sizes:
        eligible = [f for f in files if len(f[2]) >= n]
        if not eligible:
            raise SwevisError(f"no source file has {n} lines; cannot sample {n}-line windows")
        rng = random.Random(f"{seed}:{n}")
        seen: set[tuple[str, int]] = set()
        tries = 0
        while sum(1 for w in out if w["n_lines"] == n) < per_size:
            tries += 1
            if tries > per_size * 200:
                raise SwevisError(f"could not draw {per_size} distinct {n}-line windows")
            root, p, lines = eligible[rng.randrange(len(eligible))]
            start = rng.randrange(len(lines) - n + 1) + 1
            if (str(p), start) in seen:
                continue
            chunk = lines[start - 1 : start - 1 + n]
            if sum(1 for l in chunk if l.strip()) < min_nonblank * n or not _renderable("".join(chunk)):
                continue
            seen.add((str(p), start))
            rel = str(p.relative_to(root))
            text = "".join(chunk)
            wid = hashlib.sha1(f"{Path(root).name}/{rel}:{start}:{n}".encode()).hexdigest()[:12]
            out.append(
                {
                    "window_id": wid,
                    "root": root,
                    "source": Path(root).name,
                    "path": rel,
                    "abs_path": str(p),
                    "start_line": start,
                    "n_lines": n,
                    "text": text,
                }
            )
    return out

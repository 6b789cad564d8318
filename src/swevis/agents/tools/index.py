"""The index tools: D_loc and D_pkg over the repository index, and a numbered source window.

    localize_issue [QUERY]          D_loc over the repository index (issue text + QUERY)
    pack_context [QUERY]            D_loc then D_pkg: file summaries, code windows, hints, tests
    view_code PATH [START [END]]    a source window with line numbers
"""

from __future__ import annotations

import re
import shlex
from typing import Any

from swevis.agents.tool_registry import Tool
from swevis.agents.tools.environment import format_error, query_of


def format_candidates(candidates: list) -> str:
    from swevis.localize import by_kind

    out = []
    for kind, title in (("file", "files"), ("symbol", "symbols"), ("span", "spans")):
        items = by_kind(candidates, kind)
        if not items:
            continue
        out.append(f"== {title}")
        for i, c in enumerate(items, 1):
            where = c.path if c.start_line is None else f"{c.path}:{c.start_line}-{c.end_line}"
            name = f" {c.qualified_name}" if kind == "symbol" and c.qualified_name else ""
            why = "; ".join(c.evidence[:2])
            out.append(f"{i:2d}. {where}{name}  [{why}]")
    return "\n".join(out) if out else "no candidates found"


def format_package(package: dict[str, Any]) -> str:
    """The package without its code (the windows follow as text or pages)."""
    out = ["== files"]
    for f in package["files"]:
        imports = ", ".join(f["imports"][:8]) or "-"
        users = ", ".join(f["imported_by"][:8]) or "-"
        out.append(f"{f['path']} (module {f['module']}, {f['lines']} lines); imports: {imports}; imported by: {users}")
    if package["search_hints"]:
        out.append("== search hints: " + ", ".join(package["search_hints"]))
    if package["test_pointers"]:
        out.append("== tests")
        for t in package["test_pointers"]:
            out.append(f"{t['path']}: {', '.join(t['symbols']) or '(imports the module)'}")
    out.append(f"== code windows ({len(package['windows'])})")
    for w in package["windows"]:
        out.append(f"{w['path']}:{w['start']}-{w['end']} {', '.join(w['symbols'])}".rstrip())
    return "\n".join(out)


def localize_issue(env: Any, command: str) -> dict[str, Any]:
    from swevis.localize import localize_issue as dloc

    query = query_of(command, LOCALIZE_ISSUE.name) or None
    cands = dloc(env.index(), env.issue_text, query=query, top_k=env.top_k, options=env.index_options)
    return {"output": format_candidates(cands) + "\n", "returncode": 0, "exception_info": ""}


def pack_context(env: Any, command: str) -> dict[str, Any]:
    from swevis.localize import localize_issue as dloc, pack_context as dpkg

    query = query_of(command, PACK_CONTEXT.name) or None
    index = env.index()
    cands = dloc(index, env.issue_text, query=query, top_k=env.top_k, options=env.index_options)
    package = dpkg(index, cands, repo_dir=env.pristine_dir, wide=env.wide, issue_text=env.issue_text,
                   options=env.index_options)
    return {
        "output": format_package(package) + "\n",
        "returncode": 0,
        "exception_info": "",
        "extra": {"windows": package["windows"]},
    }


def view_code(env: Any, command: str) -> dict[str, Any]:
    from swevis.agents.observation.observe import number_lines

    try:
        words = shlex.split(command)
    except ValueError as exc:
        raise format_error(f"view_code: {exc}") from None
    if len(words) < 2 or len(words) > 4:
        raise format_error(f"usage: {VIEW_CODE.usage}")
    if not all(re.fullmatch(r"\d+", w) for w in words[2:]):
        raise format_error("view_code: START and END must be line numbers")
    path = words[1]
    start = int(words[2]) if len(words) > 2 else 1
    end = int(words[3]) if len(words) > 3 else None
    if start < 1 or (end is not None and end < start):
        raise format_error(f"view_code: bad line span {start}-{end}")
    text = env.read_file(path)
    if text is None:
        return {"output": f"view_code: {path}: no such file\n", "returncode": 1, "exception_info": ""}
    lines = text.splitlines()
    stop = len(lines) if end is None else min(end, len(lines))
    body = number_lines(lines[start - 1 : stop], start)
    if not body:
        return {"output": f"view_code: {path} has {len(lines)} lines\n", "returncode": 1, "exception_info": ""}
    return {"output": body, "returncode": 0, "exception_info": ""}


LOCALIZE_ISSUE = Tool("localize_issue", "search", "localize_issue [QUERY]", localize_issue)
PACK_CONTEXT = Tool("pack_context", "search", "pack_context [QUERY]", pack_context)
VIEW_CODE = Tool("view_code", "read", "view_code PATH [START [END]]", view_code)
TOOLS = (LOCALIZE_ISSUE, PACK_CONTEXT, VIEW_CODE)

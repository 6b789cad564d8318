"""Type-aware resolution of call and inheritance edges over the whole index.

The extractor records, per call, the callee name and what it is looked up on (its receiver,
see `EdgeRec.recv`). Resolution runs over every edge, against an in-memory view
of every file's namespace (names bound by imports, star imports), the symbols, the class
hierarchy (inherits edges, linearized depth-first left to right) and the attribute types
of classes (`self.x = C(...)`, `x: C`):

  f()                 a nested def in an enclosing scope, a top-level def, an imported name
                      (following re-exports through package __init__ files); a class -> its
                      __init__ through the MRO                                 direct / init
  self.f(), cls.f()   the enclosing class's MRO; overrides in its subclasses   self + dispatch
  super().f()         the MRO after the enclosing class                        self
  mod.f(), C.f()      a module's member / a class's MRO                        module / typed
  x.f()               x typed by a local assignment x = C(...), a parameter annotation, or
                      self.x assigned/annotated in the class or its bases; g().f() through
                      g's return annotation                                    typed + dispatch
  anything else       every method of that name when there are few (`max_name_targets`),
                      else the only definition of that name                    name (weaker)

Receivers that are imported from outside the repository (numpy, os) get no edge.

A file's namespace may also name packages (`names["+"]`, space-separated) whose files'
top-level definitions it sees without importing them: a Java class sees its own package's
classes and those of its wildcard imports, a Go file its own package's other files. A package
is a module name (Go: every file of a folder has its folder's module) or the parent of
module names (Java: `a.b` for the classes `a.b.C`, one file each); only their top-level
definitions are looked up there, not their imports.

The vocabulary is Python's (records.EdgeRec): every code language's files are resolved
together, an extractor mapping its language's imports and calls onto it.
"""

from __future__ import annotations

import json
import re
import sqlite3
from collections import defaultdict

from swevis.index.languages import is_stub
from swevis.index.rows import unpack

__all__ = ["resolve_names", "resolve_edges", "HOW"]

HOW = ("direct", "init", "module", "self", "typed", "dispatch", "name")
_MAX_DEPTH = 8
_WRAP = re.compile(r"^(?:typing\.)?(?:Optional|Union|ClassVar|Final|Type|type)\[(.*)\]$")


def _annotation_text(ann: str) -> str:
    """A return annotation as written -> the dotted name of its (first non-None) type, or ""."""
    ann = ann.strip().strip("'\"")
    for _ in range(4):
        m = _WRAP.match(ann)
        if not m:
            break
        ann = m.group(1).split(",")[0].strip().strip("'\"")
    parts = [p.strip() for p in ann.split("|")]
    parts = [p for p in parts if p and p != "None"]
    ann = parts[0] if parts else ""
    return ann if ann and all(x.isidentifier() for x in ann.split(".")) else ""


class World:
    """What resolution needs of the whole index, loaded once per build."""

    def __init__(self, con: sqlite3.Connection, max_name_targets: int = 6, max_dispatch: int = 12):
        self.max_name_targets = max_name_targets
        self.max_dispatch = max_dispatch
        self.mod_file: dict[str, int] = {}
        self.file_mod: dict[int, str] = {}
        self.names: dict[int, dict] = {}
        self.package_files: dict[str, list[int]] = defaultdict(list)  # see names["+"]
        # a module's first file wins, its source before its stub (a.py before a.pyi)
        files = con.execute("SELECT id, module, names, path FROM files WHERE kind = 'code' ORDER BY path").fetchall()
        for fid, mod, names, path in sorted(files, key=lambda row: is_stub(row[3])):
            self.file_mod[fid] = mod or ""
            if mod and mod not in self.mod_file:
                self.mod_file[mod] = fid
            self.names[fid] = json.loads(unpack(names)) if names else {}
            if mod:
                self.package_files[mod].append(fid)
                if "." in mod:
                    self.package_files[mod.rsplit(".", 1)[0]].append(fid)
        self.sym: dict[int, tuple] = {}  # id -> (file_id, name, kind, parent_id, signature)
        self.top: dict[tuple[int, str], int] = {}
        self.members: dict[int, dict[str, int]] = defaultdict(dict)
        self.by_name: dict[str, list[int]] = defaultdict(list)
        for sid, fid, name, kind, parent, sig in con.execute(
            "SELECT id, file_id, name, kind, parent_id, signature FROM symbols ORDER BY file_id, start_line"
        ):
            self.sym[sid] = (fid, name, kind, parent, sig or "")
            if parent is None:
                self.top.setdefault((fid, name), sid)
            else:
                self.members[parent].setdefault(name, sid)
            self.by_name[name].append(sid)
        self.attrs: dict[int, dict[str, tuple[str, int]]] = defaultdict(dict)
        for fid, cid, name, te in con.execute("SELECT file_id, class_id, name, type FROM attrs ORDER BY rowid"):
            self.attrs[cid].setdefault(name, (te, fid))
        self.bases: dict[int, list[int]] = defaultdict(list)
        self.subs: dict[int, list[int]] = defaultdict(list)
        self._mro: dict[int, list[int]] = {}
        self._descendants: dict[int, list[int]] = {}
        self._overrides: dict[tuple[int, str], list[int]] = {}
        self._cache: dict = {}

    def load_bases(self, con: sqlite3.Connection) -> None:
        self.bases.clear()
        self.subs.clear()
        self._mro.clear()
        self._descendants.clear()
        self._overrides.clear()
        for src, dst in con.execute(
            "SELECT src_symbol, dst_symbol FROM edges WHERE kind = 'inherits' AND dst_symbol IS NOT NULL"
            " AND src_symbol IS NOT NULL ORDER BY id"
        ):
            if src != dst and dst not in self.bases[src]:
                self.bases[src].append(dst)
                self.subs[dst].append(src)

    # ---- the class hierarchy
    def mro(self, cid: int) -> list[int]:
        if cid not in self._mro:
            out: list[int] = []
            stack = [cid]
            while stack and len(out) < 64:
                c = stack.pop()
                if c in out:
                    continue
                out.append(c)
                stack.extend(reversed(self.bases.get(c, [])))
            self._mro[cid] = out
        return self._mro[cid]

    def mro_lookup(self, cid: int, name: str, skip_self: bool = False) -> int | None:
        for c in self.mro(cid)[1 if skip_self else 0 :]:
            m = self.members.get(c, {}).get(name)
            if m is not None:
                return m
        return None

    def overrides(self, cid: int, name: str) -> list[int]:
        """Definitions of `name` in (transitive) subclasses of `cid`: where a call may dispatch."""
        key = (cid, name)
        out = self._overrides.get(key)
        if out is None and self.max_dispatch <= 0:
            out = []
        elif out is None:
            out = []
            for c in self.descendants(cid):
                m = self.members.get(c, {}).get(name)
                if m is not None:
                    out.append(m)
                    if len(out) >= self.max_dispatch:
                        break
            self._overrides[key] = out
        return out

    def descendants(self, cid: int) -> list[int]:
        """The (transitive) subclasses of `cid`, depth first, each once; computed once per class
        (a django build asks for a few classes' overrides thirty thousand times)."""
        if cid not in self._descendants:
            out: list[int] = []
            seen = {cid}
            stack = list(self.subs.get(cid, []))
            while stack:
                c = stack.pop()
                if c in seen:
                    continue
                seen.add(c)
                out.append(c)
                stack.extend(self.subs.get(c, []))
            self._descendants[cid] = out
        return self._descendants[cid]

    def is_class(self, sid) -> bool:
        return sid is not None and sid in self.sym and self.sym[sid][2] == "class"

    def class_of(self, sid: int | None) -> int | None:
        while sid is not None and sid in self.sym:
            if self.sym[sid][2] == "class":
                return sid
            sid = self.sym[sid][3]
        return None

    # ---- names
    def lookup_global(self, fid: int, name: str, depth: int = 0):
        """What `name` means at the top level of file `fid`: ("sym", id) / ("mod", file) / ("ext", None)."""
        if depth > _MAX_DEPTH or fid is None:
            return None
        sid = self.top.get((fid, name))
        if sid is not None:
            return ("sym", sid)
        ns = self.names.get(fid, {})
        target = ns.get(name)
        if target is not None:
            return self.resolve_abs(target, depth + 1) or ("ext", None)
        for m in ns.get("*", "").split():
            mf = self.mod_file.get(m)
            if mf is not None and mf != fid:
                r = self.lookup_global(mf, name, depth + 1)
                if r is not None and r[0] != "ext":
                    return r
        for package in ns.get("+", "").split():
            for pf in self.package_files.get(package, ()):
                sid = self.top.get((pf, name))
                if sid is not None and pf != fid:
                    return ("sym", sid)
        return None

    def resolve_abs(self, dotted: str, depth: int = 0):
        parts = dotted.split(".")
        for i in range(len(parts), 0, -1):
            fid = self.mod_file.get(".".join(parts[:i]))
            if fid is not None:
                ent = ("mod", fid)
                for p in parts[i:]:
                    ent = self.member(ent, p, depth + 1)
                    if ent is None:
                        return None
                return ent
        return None

    def member(self, ent, name: str, depth: int = 0):
        if ent is None or depth > _MAX_DEPTH:
            return None
        kind, x = ent
        if kind == "mod":
            r = self.lookup_global(x, name, depth + 1)
            if r is not None and r[0] != "ext":
                return r
            sub = self.mod_file.get(f"{self.file_mod.get(x, '')}.{name}")
            if sub is not None:
                return ("mod", sub)
            return r
        if kind == "sym" and self.is_class(x):
            m = self.mro_lookup(x, name)
            return ("sym", m) if m is not None else None
        return None

    def resolve_name(self, fid: int, dotted: str, ctx_class: int | None, depth: int = 0):
        parts = dotted.split(".")
        if parts[0] in ("self", "cls"):
            ent = ("sym", ctx_class) if ctx_class is not None else None
        else:
            ent = self.lookup_global(fid, parts[0], depth)
        for p in parts[1:]:
            if ent is None or ent[0] == "ext":
                return ent
            ent = self.member(ent, p, depth + 1)
        return ent

    def type_of(self, te: str, fid: int, ctx_class: int | None, depth: int = 0):
        """A type expression (N:/R:/A:) in the context of file `fid` -> ("sym", class) / ("mod", f) / ext / None."""
        if depth > _MAX_DEPTH or not te or ":" not in te:
            return None
        key = (te, fid, ctx_class)
        if key in self._cache:
            return self._cache[key]
        self._cache[key] = None  # cycles
        kind, _, d = te.partition(":")
        out = None
        if kind == "A":
            if ctx_class is not None:
                for c in self.mro(ctx_class):
                    a = self.attrs.get(c, {}).get(d)
                    if a is not None:
                        out = self.type_of(a[0], a[1], c, depth + 1)
                        break
        else:
            ent = self.resolve_name(fid, d, ctx_class, depth)
            if ent is not None and ent[0] == "sym":
                sid = ent[1]
                if self.is_class(sid):
                    out = ent
                elif kind == "R" and sid in self.sym:  # a function: its return annotation
                    sig = self.sym[sid][4]
                    ann = _annotation_text(sig.rsplit("->", 1)[1]) if "->" in sig else ""
                    if ann:
                        out = self.type_of(f"N:{ann}", self.sym[sid][0], self.class_of(self.sym[sid][3]), depth + 1)
            elif ent is not None:
                out = ent  # a module, or something from outside the repository
        self._cache[key] = out
        return out

    # ---- calls
    def _ctor(self, cid: int) -> list[tuple[int, str]]:
        init = self.mro_lookup(cid, "__init__")
        return [(init if init is not None else cid, "init")]

    def _by_name(self, name: str, methods_only: bool) -> list[tuple[int, str]]:
        cands = self.by_name.get(name, [])
        if methods_only:
            cands = [c for c in cands if self.sym[c][2] == "method"]
        if 0 < len(cands) <= self.max_name_targets:
            return [(c, "name") for c in cands]
        return []

    def _on_class(self, cid: int, name: str, how: str) -> list[tuple[int, str]]:
        t = self.mro_lookup(cid, name)
        out = [(t, how)] if t is not None else []
        out.extend((o, "dispatch") for o in self.overrides(cid, name) if o != t)
        return out

    def resolve_call(self, fid: int, src: int | None, recv: str, name: str) -> list[tuple[int, str]]:
        ctx = self.class_of(src)
        if recv == "":
            scope = src
            while scope is not None and scope in self.sym:  # nested defs of enclosing functions
                if self.sym[scope][2] != "class":
                    nested = self.members.get(scope, {}).get(name)
                    if nested is not None:
                        return [(nested, "direct")]
                scope = self.sym[scope][3]
            ent = self.lookup_global(fid, name)
            if ent is not None and ent[0] == "sym":
                return self._ctor(ent[1]) if self.is_class(ent[1]) else [(ent[1], "direct")]
            if ent is not None:
                return []  # a module or an outside name
            cands = self.by_name.get(name, [])
            return [(cands[0], "name")] if len(cands) == 1 else []
        if recv in ("self", "super"):
            if ctx is None:
                return self._by_name(name, True)
            if recv == "super":
                t = self.mro_lookup(ctx, name, skip_self=True)
                return [(t, "self")] if t is not None else []
            out = self._on_class(ctx, name, "self")
            return out or self._by_name(name, True)
        if recv != "?":
            t = self.type_of(recv, fid, ctx)
            if t is not None:
                if t[0] == "ext":
                    return []
                if t[0] == "mod":
                    ent = self.member(t, name)
                    if ent is not None and ent[0] == "sym":
                        return self._ctor(ent[1]) if self.is_class(ent[1]) else [(ent[1], "module")]
                    return []
                out = self._on_class(t[1], name, "typed")
                if out:
                    return out
        return self._by_name(name, True)

    def resolve_base(self, fid: int, dotted: str, leaf: str) -> int | None:
        ent = self.resolve_name(fid, dotted, None)
        if ent is not None and ent[0] == "sym" and self.is_class(ent[1]):
            return ent[1]
        if ent is not None and ent[0] == "ext":
            return None
        cands = [c for c in self.by_name.get(leaf, []) if self.sym[c][2] == "class"]
        same = [c for c in cands if self.sym[c][0] == fid]
        if same:
            return same[0]
        return cands[0] if len(cands) == 1 else None


def resolve_names(con: sqlite3.Connection) -> None:
    """Resolve every imports edge to the imported module's file (else, for `from m import a`,
    m's) and a top-level definition of the imported name there; and every references edge
    (from tests) to the only definition of that name in the repository, if it has one. Of
    several files or definitions, the first by id wins (path, then source order)."""
    first_file: dict[str, int] = {}
    for fid, mod in con.execute("SELECT id, module FROM files WHERE kind = 'code' ORDER BY id"):
        first_file.setdefault(mod, fid)
    top: dict[tuple[int, str], int] = {}
    defs: dict[str, list[tuple[int, int]]] = defaultdict(list)
    for sid, fid, name, parent in con.execute("SELECT id, file_id, name, parent_id FROM symbols ORDER BY id"):
        if parent is None:
            top.setdefault((fid, name), sid)
        defs[name].append((sid, fid))
    upd = []
    for eid, kind, dotted in con.execute(
        "SELECT id, kind, dst_name FROM edges WHERE kind IN ('imports', 'references') ORDER BY id"
    ):
        base, _, leaf = dotted.rpartition(".")
        if kind == "imports":
            f = first_file.get(dotted)
            if f is None and base:
                f = first_file.get(base)
            s = top.get((f, leaf)) if f is not None else None
        else:
            only = defs.get(leaf, ())
            s, f = only[0] if len(only) == 1 else (None, None)
        if f is not None:
            upd.append((f, s, eid))
    con.executemany("UPDATE edges SET dst_file = ?, dst_symbol = ? WHERE id = ?", upd)


def resolve_edges(con: sqlite3.Connection, max_name_targets: int = 6) -> dict:
    """Resolve every inherits and calls edge (targets written); returns counts per `how`."""
    calls = con.execute(
        "SELECT id, src_file, src_symbol, dst_name, recv FROM edges WHERE kind = 'calls' ORDER BY id"
    ).fetchall()
    bases = con.execute(
        "SELECT id, src_file, dst_name FROM edges WHERE kind = 'inherits' ORDER BY id"
    ).fetchall()
    counts: dict[str, int] = defaultdict(int)
    if not calls and not bases:
        return counts
    w = World(con, max_name_targets=max_name_targets)
    upd = []
    for eid, fid, dotted in bases:
        b = w.resolve_base(fid, dotted, dotted.rpartition(".")[2])
        if b is not None:  # edges are written unresolved: only a target needs an update
            upd.append((b, w.sym[b][0], eid))
    con.executemany("UPDATE edges SET dst_symbol = ?, dst_file = ? WHERE id = ?", upd)
    w.load_bases(con)
    con.execute("DELETE FROM targets")
    rows = []
    upd = []
    memo: dict[tuple, list] = {}
    for eid, fid, src, name, recv in calls:
        recv = recv or ""
        key = (fid, src if recv in ("", "self", "super") or recv.startswith("A:") else w.class_of(src), recv, name)
        res = memo.get(key)
        if res is None:
            res = memo[key] = w.resolve_call(fid, src, recv, name)
        primary = None
        for sid, how in res:
            counts[how] += 1
            rows.append((eid, fid, src, sid, w.sym[sid][0], how))
            if primary is None and how not in ("dispatch", "name"):
                primary = sid
        if primary is None and len(res) == 1:
            primary = res[0][0]
        if primary is not None:
            upd.append((primary, w.sym[primary][0], eid))
    con.executemany(
        "INSERT INTO targets(edge_id, src_file, src_symbol, dst_symbol, dst_file, how) VALUES (?,?,?,?,?,?)", rows
    )
    con.executemany("UPDATE edges SET dst_symbol = ?, dst_file = ? WHERE id = ?", upd)
    return counts

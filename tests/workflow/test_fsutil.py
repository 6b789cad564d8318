"""Atomic writes: a crash mid-write leaves the old file intact and no temporary file behind."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from swevis import fsutil
from swevis.fsutil import atomic_path, write_atomic, write_json_atomic


def _listing(folder):
    return sorted(p.name for p in folder.iterdir())


def test_write_atomic_text_and_bytes_replace_the_file(tmp_path):
    target = tmp_path / "sub" / "out.txt"
    write_atomic(target, "old\n")
    write_atomic(target, b"new\n")
    assert target.read_bytes() == b"new\n"
    assert _listing(target.parent) == ["out.txt"]


def test_crash_inside_the_writer_keeps_the_old_file(tmp_path):
    target = tmp_path / "table.csv"
    target.write_text("old\n")
    with pytest.raises(RuntimeError):
        with atomic_path(target) as tmp:
            tmp.write_text("half a ta")
            raise RuntimeError("killed mid-write")
    assert target.read_text() == "old\n"
    assert _listing(tmp_path) == ["table.csv"]


def test_crash_before_the_data_reaches_disk_keeps_the_old_file(tmp_path, monkeypatch):
    target = tmp_path / "record.json"
    write_json_atomic(target, {"v": 1})

    def crash(fd):
        raise OSError("disk gone")

    monkeypatch.setattr(fsutil.os, "fsync", crash)
    with pytest.raises(OSError, match="disk gone"):
        write_json_atomic(target, {"v": 2}, fsync=True)
    assert json.loads(target.read_text()) == {"v": 1}
    assert _listing(tmp_path) == ["record.json"]


def test_failed_rename_removes_the_temporary_file(tmp_path, monkeypatch):
    target = tmp_path / "x.txt"
    target.write_text("old")

    def refuse(src, dst):
        raise PermissionError("read-only")

    monkeypatch.setattr(fsutil.os, "replace", refuse)
    with pytest.raises(PermissionError):
        write_atomic(target, "new")
    assert target.read_text() == "old"
    assert _listing(tmp_path) == ["x.txt"]


def test_fsync_is_called_only_when_asked(tmp_path, monkeypatch):
    calls = []
    real = os.fsync
    monkeypatch.setattr(fsutil.os, "fsync", lambda fd: calls.append(fd) or real(fd))
    write_atomic(tmp_path / "a", "x")
    assert calls == []
    write_atomic(tmp_path / "b", "x", fsync=True)
    assert len(calls) == 1


def test_temporary_path_keeps_the_suffix_and_the_folder(tmp_path):
    with atomic_path(tmp_path / "figure3.png") as tmp:
        assert tmp.parent == tmp_path and tmp.suffix == ".png" and tmp.name.startswith(".figure3.png.")
        tmp.write_bytes(b"png")
    assert (tmp_path / "figure3.png").read_bytes() == b"png"


def test_json_is_indented_sorted_and_ends_with_a_newline(tmp_path):
    path = write_json_atomic(tmp_path / "s.json", {"b": 1, "a": tmp_path})
    assert path.read_text() == json.dumps({"a": str(tmp_path), "b": 1}, indent=2) + "\n"


def test_new_files_get_the_usual_permissions(tmp_path):
    umask = os.umask(0o022)
    os.umask(umask)
    path = write_atomic(tmp_path / "p", "x")
    assert path.stat().st_mode & 0o777 == 0o666 & ~umask


def test_the_user_cache_folder_follows_an_absolute_xdg_cache_home_only(tmp_path, monkeypatch):
    from swevis.fsutil import user_cache_dir

    monkeypatch.delenv("SWEVIS_CACHE_DIR", raising=False)  # the test session's own
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    assert user_cache_dir("index") == tmp_path / "swevis" / "index"
    monkeypatch.setenv("XDG_CACHE_HOME", "relative/cache")  # the XDG spec: ignored
    assert user_cache_dir("tokenizers") == Path.home() / ".cache" / "swevis" / "tokenizers"


def test_swevis_cache_dir_names_the_folder_itself_and_comes_first(tmp_path, monkeypatch):
    from swevis.fsutil import user_cache_dir

    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    monkeypatch.setenv("SWEVIS_CACHE_DIR", str(tmp_path / "own"))
    assert user_cache_dir("tokenizers") == tmp_path / "own" / "tokenizers"
    monkeypatch.setenv("SWEVIS_CACHE_DIR", "relative/own")  # ignored, as a relative XDG_CACHE_HOME is
    assert user_cache_dir("tokenizers") == tmp_path / "xdg" / "swevis" / "tokenizers"

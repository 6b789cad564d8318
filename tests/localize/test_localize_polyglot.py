"""One repository holding a Java, a JavaScript, a TypeScript, a Go and a Rust file (and a Python
one): the index reads each in its own language, and an issue naming a behaviour of each file
localizes that file and its symbol into the top 5 of one D_loc over the whole repository (the
file first)."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from swevis.index import build_index, open_index
from swevis.localize import by_kind, localize_issue

REPO = Path(__file__).parents[1] / "fixtures" / "index" / "polyrepo"

ISSUES = {
    "java": ("Shipping more units than the warehouse holds makes the stock negative\n\n"
             "When a shipment is larger than the stock level the level goes below zero; the shipment "
             "should be refused.",
             "java/src/main/java/org/acme/inventory/Warehouse.java", "Warehouse.ship"),
    "javascript": ("Coupon discount is taken off as an amount instead of a percentage\n\n"
                   "A 10 percent coupon on a cart of 200 gives a checkout total of 190, expected 180.",
                   "web/src/cart.js", "Cart.checkoutTotal"),
    "typescript": ("Express parcels cost the same as standard ones\n\n"
                   "The shipping fee of an express parcel should be doubled.",
                   "web/src/shipping.ts", "shippingFee"),
    "go": ("Items are reordered too late\n\n"
           "NeedsReorder only says yes once the level is below demand times lead days, ignoring the "
           "safety units in the reorder threshold.",
           "svc/stock/reorder.go", "ReorderPoint.NeedsReorder"),
    "rust": ("Gross price adds a tenth of the tax\n\n"
             "With a tax of 20 percent a net price of 1000 cents gives a gross of 1020, expected 1200.",
             "engine/src/lib.rs", "Price.gross_with_tax"),
}


@pytest.fixture(scope="module")
def index(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("polyrepo")
    repo = tmp / "polyrepo"
    shutil.copytree(REPO, repo)
    build_index(repo, tmp / "idx.sqlite")
    with open_index(tmp / "idx.sqlite") as idx:
        yield idx, repo


def test_each_file_is_indexed_in_its_own_language(index):
    idx, _ = index
    languages = dict(idx.con.execute("SELECT path, language FROM files"))
    for language, (_, path, _) in ISSUES.items():
        assert languages[path] == language, (path, languages.get(path))
    assert languages["tools/report.py"] == "python"


@pytest.mark.parametrize("language", sorted(ISSUES))
def test_an_issue_naming_a_behaviour_localizes_its_file_and_symbol_in_the_top_5(index, language):
    idx, repo = index
    text, path, symbol = ISSUES[language]
    candidates = localize_issue(idx, text, top_k=5, repo_dir=repo)
    files = [c.path for c in by_kind(candidates, "file")][:5]
    symbols = [(c.path, c.qualified_name) for c in by_kind(candidates, "symbol")][:5]
    assert path in files and (path, symbol) in symbols, (files, symbols)
    # and ahead of the other languages' files: first, its symbol among the first two
    assert files[0] == path and (path, symbol) in symbols[:2], (files, symbols)

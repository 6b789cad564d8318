"""swevis_dev.single_read_compare (benchmarks/compare_single_read.py): token cells must
match, OCR cells where both measured."""

from swevis_dev import single_read_compare


def _write(root, tokens, ocr, frontier):
    (root / "single_read").mkdir(parents=True)
    for path in (root / "table4.csv", root / "single_read" / "table4_q.csv"):
        path.write_text(tokens)
    (root / "single_read" / "table4_ocr_q.csv").write_text(ocr)
    (root / "single_read" / "frontier.csv").write_text(frontier)


def test_a_not_sampled_cell_is_counted_and_a_changed_token_cell_fails(tmp_path, capsys):
    frontier_old = "backbone,font_px,realized_ratio_median,ocr_median,ocr_n,tesseract_median\nq,8.0,2.5,0.91,2,0.9\n"
    frontier_new = ("backbone,font_px,realized_ratio_median,ocr_median,ocr_n,tesseract_median,ocr_picked\n"
                    "q,8.0,2.5,0.93,1,0.92,2\n")
    _write(tmp_path / "old", "Lines,Raw text,r1\n10,90.0,100.0 (1.00)\n", "Lines,r1,r3\n10,0.940 (n=1),0.9 (n=1)\n", frontier_old)
    _write(tmp_path / "new", "Lines,Raw text,r1\n10,90.0,100.0 (1.00)\n",
           "Lines,r1,r3,ocr_pages\n10,0.940 (n=1),not sampled,1\n", frontier_new)
    assert single_read_compare.main([str(tmp_path / "old"), str(tmp_path / "new"), "--backbones", "q"]) == 0
    out = capsys.readouterr().out
    assert "| single_read/table4_ocr_q.csv | 1 | 1 | 0 | ocr_pages |" in out
    assert "| single_read/frontier.csv | 3 | - | 0 | ocr_picked |" in out  # OCR columns of unequal samples skipped
    (tmp_path / "new" / "table4.csv").write_text("Lines,Raw text,r1\n10,90.0,101.0 (1.00)\n")
    assert single_read_compare.main([str(tmp_path / "old"), str(tmp_path / "new"), "--backbones", "q"]) == 1
    assert "'100.0 (1.00)' != '101.0 (1.00)'" in capsys.readouterr().out
    assert single_read_compare.main([str(tmp_path / "old"), str(tmp_path / "nowhere")]) == 2

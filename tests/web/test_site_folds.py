"""The model page's per-fold table (web.sitefolds): a fold whose binned FIP (50 bins) exceeds its
FIP2 (hull) is flagged (its report's binned_fip_50_above_hull) and the flag explained below."""

from __future__ import annotations

import json
import re

from pnetviz.web import sitefolds


def _fold(tmp_path, k: int, binned: float, hull: float):
    directory = tmp_path / f"fold-{k}"
    directory.mkdir()
    test = {"auc": 0.91, "auc_error": 0.01, "rejection": {"0.5": 40.0, "0.9": 5.0}, "rejection_lower_limit": {"0.5": False, "0.9": False},
            "fip2_hull": hull, "binned_fip_50": binned, "binned_fip_50_error": 0.02, "binned_fip_50_above_hull": binned > hull}  # fmt: skip
    (directory / "summary_report.json").write_text(json.dumps({"background": "ttZ", "hep_metrics": {"test": test}}))
    return directory


def test_a_binned_fip_above_the_hull_is_flagged(tmp_path):
    folds = [_fold(tmp_path, 0, 0.85, 0.81), _fold(tmp_path, 1, 0.78, 0.81)]
    table = sitefolds.fold_table(None, folds)
    rows = re.findall(r"<tr><td>.*?</tr>", table)
    assert len(rows) == 2 and "&dagger;" in rows[0] and "&dagger;" not in rows[1]
    assert "0.850 &plusmn; 0.020 <span" in rows[0] and "<td>0.810</td>" in rows[0]
    assert '<p class="note">&dagger; (1 of 2): binned FIP (50 bins) above FIP2 (hull)' in table


def test_no_note_without_a_flag(tmp_path):
    table = sitefolds.fold_table(None, [_fold(tmp_path, 0, 0.70, 0.81)])
    assert "&dagger;" not in table and 'class="note"' not in table

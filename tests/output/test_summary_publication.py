"""A summary published with its fold sets (`last`): killed (os._exit in a forked child, like
kill -9) after any rename of the publication, the directory holds the old pair, the new pair or
the fold sets without a summary; never a summary of other fold sets than those on disk."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from pnetviz.output import atomic
from pnetviz.output.atomic import transaction


def write_pair(base: Path, run: int, *, fresh: bool = True) -> None:
    """Publish fold-0 (run number) and folds/ (the run number of the fold it summarises)."""
    fold, folds = base / "fold-0", base / "folds"
    with transaction([fold], last=[folds] if fresh else []) as tx:
        (tx[fold] / "a.json").write_text(json.dumps({"run": run}))
        if not fresh:
            tx.add(folds)
        (tx[folds] / "s.json").write_text(json.dumps({"covers": run}))


def state(base: Path) -> tuple[int | None, int | None]:
    def read(path: Path, key: str) -> int | None:
        return json.loads(path.read_text())[key] if path.exists() else None

    return read(base / "fold-0" / "a.json", "run"), read(base / "folds" / "s.json", "covers")


def killed_at(base: Path, step: int) -> None:
    """Publish run 2 in a child that dies right after its `step`-th rename."""
    pid = os.fork()
    if pid == 0:  # the child: count renames, die like kill -9 at `step`
        calls = 0
        real_rename, real_exchange = os.rename, atomic._exchange

        def counted(fn):
            def call(*args):
                nonlocal calls
                out = fn(*args)
                calls += 1
                if calls == step:
                    os._exit(9)
                return out

            return call

        atomic.os.rename = counted(real_rename)
        atomic._exchange = counted(real_exchange)
        try:
            write_pair(base, 2, fresh=step % 2 == 0)  # both ways of adding the summary
        finally:
            os._exit(0)
    _, status = os.waitpid(pid, 0)
    assert os.WIFEXITED(status)


@pytest.mark.parametrize("step", range(1, 7))
def test_a_kill_between_renames_never_leaves_a_mixed_pair(tmp_path, step):
    write_pair(tmp_path, 1)
    assert state(tmp_path) == (1, 1)
    killed_at(tmp_path, step)
    fold, covers = state(tmp_path)
    assert fold in (1, 2) and covers in (fold, None), (step, fold, covers)
    write_pair(tmp_path, 3)  # the next run cleans up and publishes
    assert state(tmp_path) == (3, 3)
    assert sorted(p.name for p in tmp_path.iterdir() if not p.name.endswith(atomic.LOCK_SUFFIX)) == ["fold-0", "folds"]


def test_all_steps_are_reached(tmp_path):
    """The last step completes the publication (so the cases above cover every rename)."""
    write_pair(tmp_path, 1)
    killed_at(tmp_path, 10)
    assert state(tmp_path) == (2, 2)


def test_withdrawn_summary_goes_with_the_folds(tmp_path):
    write_pair(tmp_path, 1)
    with transaction([tmp_path / "fold-0"]) as tx:
        (tx[tmp_path / "fold-0"] / "a.json").write_text(json.dumps({"run": 2}))
        tx.add(tmp_path / "folds")
        tx.withdraw(tmp_path / "folds")
    assert state(tmp_path) == (2, None)
    assert sorted(p.name for p in tmp_path.iterdir() if not p.name.endswith(atomic.LOCK_SUFFIX)) == ["fold-0"]


def test_failed_publication_before_any_fold_is_swapped_keeps_the_summary(tmp_path, monkeypatch):
    write_pair(tmp_path, 1)

    def broken(stage, target):
        raise PermissionError(13, "Permission denied", str(target))

    monkeypatch.setattr(atomic, "swap_in", broken)
    with pytest.raises(PermissionError):
        write_pair(tmp_path, 2)
    assert state(tmp_path) == (1, 1)

"""No hang on special files, no memory from small files (issue 41), through the real command in a
child process: `--predictions` and `--expected-yields` naming a FIFO and a GA model<i>.json that
is a FIFO are one line, exit 2, within seconds (they blocked forever in open()); a 2.7 MB
model<i>_predictions.npz whose arrays inflate to 1.3e8 events (2.7 GiB) and `num_classes:
100000000` in a model record are refused before anything is allocated, in a child limited to
2 GiB of address space (they took 16.4 and 9.4 GB). The GA snapshot's `comment` in
background_groups is no class."""

from __future__ import annotations

import io
import json
import os
import resource
import struct
import subprocess
import sys
import time
import zlib
from pathlib import Path

import numpy as np
import pytest

import pnetviz
from conftest import contract_columns, write_ntuple
from pnetviz.demo.ga import ToyModel, ToyRun, write_run
from pnetviz.io import ga

CHANNEL, SIGNAL = "Run3Mu", "MHc100_MA95"
A = (64, "Adam", 0.0002, 2e-05, "ReduceLROnPlateau")
B = (96, "RMSprop", 0.001, 0.0001, "CyclicLR")
ADDRESS_SPACE = 2 << 30  # a `pnetviz ga` of a toy run peaks at 0.5 GB resident, within 2 GiB of address space


def cli(args: list[str], limit: int | None = None, timeout: float = 120) -> tuple[int, str, float]:
    """(exit code, stderr, seconds) of `pnetviz <args>` in a child process (this checkout's
    package), with at most `limit` bytes of address space; TimeoutExpired (the child killed) if
    it hangs."""
    env = dict(os.environ, PYTHONPATH=str(Path(pnetviz.__file__).parents[1]))

    def cap() -> None:
        if limit:
            resource.setrlimit(resource.RLIMIT_AS, (limit, limit))

    start = time.monotonic()
    proc = subprocess.run([sys.executable, "-m", "pnetviz", *args], stdin=subprocess.DEVNULL, capture_output=True,
                          text=True, timeout=timeout, env=env, preexec_fn=cap)  # fmt: skip
    return proc.returncode, proc.stderr, time.monotonic() - start


def one_error_line(err: str) -> str:
    lines = [line for line in err.splitlines() if line.strip() and not line.startswith("pnetviz: warning")]
    assert len(lines) == 1 and lines[0].startswith("pnetviz: error: ") and "Traceback" not in err, err
    return lines[0]


def ga_run(tmp_path: Path, **kwargs) -> Path:
    pops = [[ToyModel(A, [1.0, 0.8, 0.85], [0.9, 0.7, 0.6], sharpness=1.5), ToyModel(B, [1.1, 0.9], [1.0, 0.95])]]
    return write_run(tmp_path / "GAOptim", ToyRun(CHANNEL, SIGNAL, pops, events=200, **kwargs))


# --- FIFOs ---


def test_predictions_naming_a_fifo(tmp_path):
    fifo = tmp_path / "pred.root"
    os.mkfifo(fifo)
    code, err, _ = cli(["binary", "--predictions", str(fifo), "--output", str(tmp_path / "out"), "-q"], timeout=60)
    line = one_error_line(err)
    assert code == 2 and f"{fifo}: a FIFO (named pipe), not a regular file" in line and "Fix: " in line
    assert not (tmp_path / "out").exists()


def test_expected_yields_naming_a_fifo(tmp_path):
    ntuple = write_ntuple(tmp_path / "p.root", contract_columns(n=300, n_classes=2))
    fifo = tmp_path / "yields.json"
    os.mkfifo(fifo)
    code, err, _ = cli(["binary", "--predictions", str(ntuple), "--background", "nonprompt", "--channel", CHANNEL,
                        "--signal", SIGNAL, "--output", str(tmp_path / "out"), "--expected-yields", str(fifo), "-q"],
                       timeout=60)  # fmt: skip
    line = one_error_line(err)
    assert code == 2 and f"--expected-yields {fifo}: a FIFO (named pipe), not a regular file" in line
    assert not (tmp_path / "out").exists()


def test_a_ga_model_record_that_is_a_fifo(tmp_path):
    run_dir = ga_run(tmp_path)
    record = run_dir / "GA-iter0" / "json" / "model1.json"
    record.unlink()
    os.mkfifo(record)
    code, err, _ = cli(["ga", "--ga-dir", str(run_dir), "--output", str(tmp_path / "out"), "-q"], timeout=60)
    line = one_error_line(err)
    assert code == 2 and f"{record}: a FIFO (named pipe), not a regular file" in line
    assert not (tmp_path / "out").exists()


# --- memory from small files ---

CHUNK = 1 << 20


def npy_header(shape: tuple[int, ...], dtype: str) -> bytes:
    out = io.BytesIO()
    np.lib.format.write_array_header_1_0(out, {"descr": np.dtype(dtype).str, "fortran_order": False, "shape": shape})
    return out.getvalue()


def deflated_zeros(header: bytes, zeros: int) -> tuple[bytes, int]:
    """(raw deflate stream, CRC-32) of `header` then `zeros` zero bytes (a multiple of CHUNK): one
    compressed chunk repeated (after a full flush the compressor starts afresh), as zlib would
    write it, in a fraction of the time."""
    c = zlib.compressobj(9, zlib.DEFLATED, -15)
    head = c.compress(header) + c.flush(zlib.Z_FULL_FLUSH)
    first = c.compress(bytes(CHUNK)) + c.flush(zlib.Z_FULL_FLUSH)
    again = c.compress(bytes(CHUNK)) + c.flush(zlib.Z_FULL_FLUSH)
    assert again == c.compress(bytes(CHUNK)) + c.flush(zlib.Z_FULL_FLUSH)
    stream = head + first + again * (zeros // CHUNK - 1) + c.flush()
    crc, block = zlib.crc32(header), bytes(16 * CHUNK)
    for start in range(0, zeros, len(block)):
        crc = zlib.crc32(block[: zeros - start], crc)
    return stream, crc


def write_zip(path: Path, members: dict[str, tuple[bytes, int, int]]) -> None:
    """A zip of deflated `members` (name -> (raw deflate stream, CRC-32, inflated size)), as np.savez_compressed writes."""
    local, central = bytearray(), bytearray()
    for name, (data, crc, size) in members.items():
        raw = name.encode()
        central += struct.pack("<4s4B4HL2L5H2L", b"PK\x01\x02", 20, 3, 20, 0, 0, 8, 0, 0x21, crc, len(data), size,
                               len(raw), 0, 0, 0, 0, 0o644 << 16, len(local)) + raw  # fmt: skip
        local += struct.pack("<4s2B4HL2L2H", b"PK\x03\x04", 20, 0, 0, 8, 0, 0x21, crc, len(data), size, len(raw), 0)
        local += raw + data
    end = struct.pack("<4s4H2LH", b"PK\x05\x06", 0, 0, len(members), len(members), len(central), len(local), 0)
    path.write_bytes(bytes(local + central + end))


def npz_bomb(path: Path, events: int, classes: int) -> None:
    """model<i>_predictions.npz whose train arrays hold `events` zero events (test: 10)."""
    members = {}
    for split, n in (("train", events), ("test", 10)):
        for key, shape, dtype in (("y_true", (n,), "<i1"), ("y_scores", (n, classes), "<f4"), ("weights", (n,), "<f4")):
            header = npy_header(shape, dtype)
            size = int(np.prod(shape)) * np.dtype(dtype).itemsize
            if n == events:
                data, crc = deflated_zeros(header, size)
            else:
                whole = header + bytes(size)
                c = zlib.compressobj(9, zlib.DEFLATED, -15)
                data, crc = c.compress(whole) + c.flush(), zlib.crc32(whole)
            members[f"{key}_{split}.npy"] = (data, crc, len(header) + size)
    write_zip(path, members)


def test_the_bomb_is_a_valid_npz(tmp_path):
    path = tmp_path / "small.npz"
    npz_bomb(path, 64 * CHUNK // 16, 4)  # 16 bytes an event: the train scores alone are 64 MiB of zeros
    with np.load(path) as npz:  # every member inflates and passes its CRC check
        arrays = {key: npz[key] for key in npz.files}
    assert arrays["y_scores_train"].shape == (4 * CHUNK, 4) and not arrays["y_scores_train"].any()
    assert arrays["y_true_train"].shape == (4 * CHUNK,) and arrays["y_true_test"].shape == (10,)
    assert path.stat().st_size < 200_000


@pytest.mark.slow
def test_predictions_inflating_to_1e8_events_are_refused_from_their_headers(tmp_path):
    run_dir = ga_run(tmp_path)
    npz = run_dir / "GA-iter0" / "overfitting_diagnostics" / "model0_predictions.npz"
    events = 2**27  # 1.3e8: 2.7 GiB of arrays
    npz_bomb(npz, events, 4)
    assert npz.stat().st_size < 4 << 20
    code, err, seconds = cli(["ga", "--ga-dir", str(run_dir), "--output", str(tmp_path / "out"), "-q"],
                             limit=ADDRESS_SPACE)  # fmt: skip
    line = one_error_line(err)
    assert code == 2 and f"{npz}: its arrays would inflate to 2688 MiB from a 2.7 MiB file" in line, line
    assert "Fix: re-run visualizeGAIteration.py" in line and seconds < 100
    assert not (tmp_path / "out").exists()


def test_a_model_record_with_1e8_classes(tmp_path):
    run_dir = ga_run(tmp_path, results_file=False, schemas=())  # classes from num_classes: no snapshot
    record = run_dir / "GA-iter0" / "json" / "model0.json"
    doc = json.loads(record.read_text())
    doc["hyperparameters"]["num_classes"] = 100_000_000
    record.write_text(json.dumps(doc))
    code, err, _ = cli(["ga", "--ga-dir", str(run_dir), "--output", str(tmp_path / "out"), "-q"], limit=ADDRESS_SPACE)
    line = one_error_line(err)
    assert code == 2 and f"{record}: num_classes 100000000 is not a whole number from 1 to 64" in line, line


def test_predictions_of_another_class_count_are_refused_before_inflating(tmp_path, monkeypatch):
    path = tmp_path / "p.npz"
    npz_bomb(path, 4 * CHUNK, 5)

    def inflate(*args, **kwargs):
        raise AssertionError("the arrays were inflated before their shapes were checked")

    monkeypatch.setattr(np, "load", inflate)
    with pytest.raises(pnetviz.errors.InputError, match=r"train arrays have shapes \(4194304,\), \(4194304, 5\)"):
        ga.read_predictions(path, 4)


# --- the snapshot's "comment" ---


def test_a_comment_in_background_groups_is_no_class(tmp_path):
    run_dir = ga_run(tmp_path)
    snapshot = run_dir / ga.RESULTS_FILE
    doc = json.loads(snapshot.read_text())
    groups = doc["configuration"]["background_groups"]
    doc["configuration"]["background_groups"] = {"comment": "grouped as in the analysis note", **groups, "note": 3}
    snapshot.write_text(json.dumps(doc))
    run = ga.read_run(run_dir, CHANNEL, SIGNAL)
    assert run.classes == ("signal", "nonprompt", "diboson", "ttX")
    doc["configuration"]["background_groups"] = {"comment": "no groups yet"}
    snapshot.write_text(json.dumps(doc))
    with pytest.raises(pnetviz.errors.InputError, match="background_groups is not an object of 1 to 63 groups"):
        ga.read_run(run_dir, CHANNEL, SIGNAL)

"""jobs.stream: the chunked read into per-split summaries gives the in-memory evaluation's AUC on
the same ntuple, and the same summaries whatever the chunk size."""

import numpy as np
import pytest

from conftest import write_ntuple
from pnetviz.jobs import stream
from pnetviz.metrics import summaries as sm
from pnetviz.metrics.evaluate import binary_samples
from pnetviz.metrics.roc import binary_clf_curve


@pytest.fixture(scope="module")
def ntuple(tmp_path_factory):
    n = 100_000
    rng = np.random.default_rng(11)
    label = (rng.random(n) < 0.6).astype(np.int32)
    z = rng.normal(np.where(label == 0, 0.8, -0.8), 1.3)
    score = (1 / (1 + np.exp(-z))).astype(np.float32)
    score[: n // 4] = np.round(score[: n // 4] * 2000) / 2000  # ties
    split = rng.random(n)
    cols = {"score_signal": score, "true_label": label, "weight": rng.normal(1.0, 0.8, n).astype(np.float32),
            "train_mask": split < 0.6, "valid_mask": (split >= 0.6) & (split < 0.7), "test_mask": split >= 0.7}  # fmt: skip
    return write_ntuple(tmp_path_factory.mktemp("stream") / "p.root", cols), cols


@pytest.mark.slow  # an RDataFrame event loop per chunk
@pytest.mark.parametrize("mode", ["abs", "signed", "drop"])
def test_streamed_auc_equals_the_in_memory_auc(ntuple, mode):
    path, cols = ntuple
    streamed = stream.binary_summaries(path, chunk=40_001, weight_mode=mode)
    masks = {"train": cols["train_mask"], "test": cols["test_mask"]}
    samples = binary_samples(cols["score_signal"], cols["true_label"] == 0, cols["weight"], masks, mode=mode)
    for split, sample in samples.items():
        memory = binary_clf_curve(sample.scores, sample.is_signal, sample.used).auc
        assert abs(sm.roc(streamed[split]).auc - memory) < 1e-9
        assert streamed[split].events[:, :2].sum() == sample.scores.size


@pytest.mark.slow
def test_summaries_do_not_depend_on_the_chunk(ntuple):
    path, _ = ntuple
    one = stream.binary_summaries(path, chunk=10**9)
    four = stream.binary_summaries(path, chunk=25_000)  # four chunks
    assert all(one[s].equals(four[s]) for s in stream.SPLITS)

"""pnetviz: ROOT-native evaluation and plotting of HEP event classifiers.

The Python API (pnetviz.api) is imported on first use of one of its names, so that `import
pnetviz` and `pnetviz --help` start without ROOT: evaluate_binary, evaluate_multiclass,
open_round, overlay, run_campaign."""

__version__ = "0.1.0"

API = ("evaluate_binary", "evaluate_multiclass", "open_round", "overlay", "run_campaign", "Figure", "Round",
       "Model", "EvaluationResult")


def __getattr__(name: str):
    """The API's names, imported lazily (PEP 562)."""
    if name in API:
        from pnetviz import api  # noqa: PLC0415 - the package's facade over its top layer

        return getattr(api, name)
    raise AttributeError(f"module 'pnetviz' has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted([*globals(), *API])

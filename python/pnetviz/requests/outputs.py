"""The requests of the commands that work on written output sets: `pnetviz render` (the images of
stored canvases) and `pnetviz diff` (one round against another). Frozen and typed as the
evaluation requests are, each field named as its option's dest."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from pnetviz.requests import fields


@dataclass(frozen=True)
class RenderRequest:
    """`pnetviz render PATH...`."""

    paths: tuple[Path, ...]
    formats: str = "png,pdf"
    wait: bool = False
    quiet: bool = False

    def __post_init__(self) -> None:
        fields.check(self)


@dataclass(frozen=True)
class DiffRequest:
    """`pnetviz diff A B`."""

    round_a: Path
    round_b: Path
    rename: str | None = None
    alpha: float = 0.05
    output: Path = Path("diff")
    formats: str = "png,pdf"
    wait: bool = False
    quiet: bool = False

    def __post_init__(self) -> None:
        fields.check(self)


REQUESTS = {"render": RenderRequest, "diff": DiffRequest}


def from_namespace(command: str, namespace: object):
    """The request of `pnetviz <command>` (render, diff) from its parsed command line."""
    return fields.from_namespace(REQUESTS[command], namespace)

"""What a Dask process (scheduler or worker) has of pnetviz's environment.

This module imports nothing of pnetviz: the campaign ships `environment` to the cluster by
value (cloudpickle), so it runs even where pnetviz is not installed and says so, instead of a
"deserialization" failure per job.
"""

from __future__ import annotations


def environment() -> dict:
    """pnetviz's installed version (None if absent), whether PyROOT imports, Python and host."""
    import importlib.metadata  # noqa: PLC0415 - everything inside: shipped by value
    import importlib.util  # noqa: PLC0415
    import socket  # noqa: PLC0415
    import sys  # noqa: PLC0415

    try:
        version = importlib.metadata.version("pnetviz") if importlib.util.find_spec("pnetviz") else None
    except (ImportError, importlib.metadata.PackageNotFoundError):
        version = None
    try:
        has_root = importlib.util.find_spec("ROOT") is not None
    except (ImportError, ValueError):
        has_root = False
    return {"pnetviz": version, "root": has_root, "python": sys.executable, "host": socket.gethostname()}

"""Run one reading call in a guarded child process: a crash or hang inside ROOT becomes an
InputError naming the file, within a bounded time.

Used for ntuples that the structural check (`pnetviz.io.structure`) cannot fully verify (records
no checksum protects). `run(func, ...)` starts a fresh interpreter (`python -m pnetviz.io.guard`,
not a fork: the caller may have threads, e.g. a Dask worker, whose locks a fork would copy held),
which calls `func` and hands back its value, its InputError or its warnings through a private
temporary directory. The child runs with ROOT's signal handlers reset (no stack dump, no hang in
the crash handler), no core file, a bounded address space (`memory_for`: an absurd count read
from a damaged file fails to allocate instead of filling the machine's memory), glibc's fatal
messages on stderr; its stderr is kept and only
shown if the call succeeds (progress bars, ROOT warnings). A child killed by a signal, exiting
without a result or running past `timeout` is reported as a damaged file.
"""

from __future__ import annotations

import contextlib
import os
import pickle
import signal
import subprocess
import sys
import tempfile
import warnings
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pnetviz.errors import InputError

BASE_SECONDS = 40.0  # start-up (ROOT and the C++ kernels) and a small file, with room for a loaded machine
BYTES_PER_SECOND = 10e6  # plus the file read at 10 MB/s (measured healthy reads: > 100 MB/s)
# The child's address space: damaged counts make ROOT allocate and clear gigabytes (measured: 3.7 GB
# and growing on a 25 kB file); a healthy read of a 1e6-event ntuple peaks at 0.9 GB of address space.
MEMORY_BASE = 4 << 30
MEMORY_PER_THREAD = 256 << 20  # stacks and malloc arenas of ROOT's threads
MEMORY_PER_FILE_BYTE = 16  # the columns read, decompressed
FIX = "the file is damaged. Fix: re-create it (or copy it again if it was transferred)."


@dataclass
class Outcome:
    """What the child hands back: the value, or the error message, and the warnings raised."""

    value: Any = None
    error: str | None = None
    warnings: list[tuple[str, type[Warning]]] = field(default_factory=list)


def _size(path: Path) -> int:
    try:
        return path.stat().st_size
    except OSError:
        return 0


def memory_for(path: Path, threads: int) -> int:
    """Bytes of address space a guarded read of `path` with `threads` threads may use."""
    return MEMORY_BASE + threads * MEMORY_PER_THREAD + MEMORY_PER_FILE_BYTE * _size(path)


def timeout_for(path: Path) -> float:
    """Seconds a guarded read of `path` may take: BASE_SECONDS plus the file at BYTES_PER_SECOND."""
    return BASE_SECONDS + _size(path) / BYTES_PER_SECOND


def run(func: Callable[..., Any], *args: Any, subject: Path, timeout: float | None = None, threads: int = 1,
        **kwargs: Any) -> Any:  # fmt: skip
    """`func(*args, **kwargs)` computed in a child process (func and arguments must pickle;
    the result too). `subject` is the file named in errors; `threads` > 1 turns on ROOT's
    implicit multi-threading in the child. InputError if the child raises one, crashes, fails
    or runs past `timeout` seconds (default `timeout_for(subject)`)."""
    timeout = timeout_for(subject) if timeout is None else timeout
    with tempfile.TemporaryDirectory(prefix="pnetviz-guard-") as tmp:
        work = Path(tmp)
        call = (func, args, kwargs, threads, str(subject), memory_for(subject, threads), timeout)
        with open(work / "call", "wb") as out:
            pickle.dump(call, out, protocol=pickle.HIGHEST_PROTOCOL)
        with open(work / "stderr", "w+b") as log:
            code = _wait(work, log, timeout, subject)
            outcome = _outcome(work / "result", code, subject)
            log.seek(0)
            text = log.read().decode(errors="replace")
    if outcome.error is not None:
        raise InputError(outcome.error)
    if text:
        sys.stderr.write(text)
    for message, category in outcome.warnings:
        warnings.warn(message, category, stacklevel=2)
    return outcome.value


def _wait(work: Path, log: Any, timeout: float, subject: Path) -> int:
    env = dict(os.environ, LIBC_FATAL_STDERR_="1")  # glibc's "malloc(): ..." to stderr, not the terminal
    # -P: the working directory stays off sys.path (a pnetviz/ or numpy.py there is not imported)
    proc = subprocess.Popen([sys.executable, "-P", "-m", "pnetviz.io.guard", str(work)], stdin=subprocess.DEVNULL,
                            stdout=log, stderr=log, env=env)  # fmt: skip
    try:
        return proc.wait(timeout)
    except subprocess.TimeoutExpired:
        raise InputError(f"{subject}: ROOT did not finish reading it within {timeout:.0f} s (it hangs): "
                         f"{FIX}") from None
    finally:
        if proc.poll() is None:  # timed out, or interrupted (Ctrl-C): never leave it running
            proc.kill()
            proc.wait()


def _outcome(result: Path, code: int, subject: Path) -> Outcome:
    if code < 0:
        name = _signal_name(-code)
        killed = -code == signal.SIGKILL
        what = "was killed reading it (SIGKILL: out of memory?)" if killed else f"crashed reading it ({name})"
        return Outcome(error=f"{subject}: ROOT {what}: {FIX}")
    try:
        with open(result, "rb") as data:
            outcome = pickle.load(data)  # written by our own child in our private directory
    except (OSError, EOFError, pickle.UnpicklingError):
        return Outcome(error=f"{subject}: ROOT failed reading it (exit code {code}, no result): {FIX}")
    return outcome if isinstance(outcome, Outcome) else Outcome(error=f"{subject}: the guarded reader failed")


def _signal_name(number: int) -> str:
    try:
        return signal.Signals(number).name
    except ValueError:
        return f"signal {number}"


def _last_line(err: Exception) -> str:
    """The last line of an exception's text (for a PyROOT exception: the C++ exception), with its type."""
    lines = [line.strip() for line in str(err).splitlines() if line.strip()]
    text = lines[-1][:200] if lines else ""
    return text if type(err).__name__ in text else f"{type(err).__name__}: {text}".rstrip(": ")


def _child(work: Path) -> int:
    """The child's side: call, store the Outcome, exit 0 (a crash never gets here)."""
    import ctypes  # noqa: PLC0415
    import resource  # noqa: PLC0415

    with open(work / "call", "rb") as data:
        func, args, kwargs, threads, subject, memory, timeout = pickle.load(data)
    signal.alarm(int(timeout) + 10)  # dies on its own should the parent be gone (SIGALRM)
    with contextlib.suppress(OSError, AttributeError):
        ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG (Linux): dies with the parent
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))  # no core file next to the user's data
    _, hard = resource.getrlimit(resource.RLIMIT_AS)
    resource.setrlimit(resource.RLIMIT_AS, (memory if hard == resource.RLIM_INFINITY else min(memory, hard), hard))
    from pnetviz.rootenv import enable_threads, root  # noqa: PLC0415

    root().gSystem.ResetSignals()  # die by the signal itself: ROOT's handler prints and may hang
    enable_threads(threads)
    outcome = Outcome()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            outcome.value = func(*args, **kwargs)
        except InputError as err:
            outcome.error = str(err)
        except Exception as err:  # noqa: BLE001 - C++ exceptions of a damaged file (bad_alloc, length_error, ...)
            outcome.error = f"{subject}: ROOT failed reading it ({_last_line(err)}): {FIX}"
    outcome.warnings = [(str(w.message), w.category) for w in caught]
    with open(work / "result.tmp", "wb") as out:
        pickle.dump(outcome, out, protocol=pickle.HIGHEST_PROTOCOL)  # arrays streamed, not copied
    os.replace(work / "result.tmp", work / "result")
    return 0


if __name__ == "__main__":  # run as `python -m pnetviz.io.guard DIR`: pickle through the real module
    from pnetviz.io import guard

    sys.exit(guard._child(Path(sys.argv[1])))

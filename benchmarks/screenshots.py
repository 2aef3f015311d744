#!/usr/bin/env python3
"""Screenshots of the web report at 1400x1000 (issue 37): overview, a signal-point page, a model
page, an overlay of three models and a live view, each the first screen a person sees.

The output tree is served by `python -m http.server` on 127.0.0.1 (a free port) and opened in
headless Chromium (Debian's `chromium`). Without --plots a small demo round is made first (one
channel, one signal point, two folds; the campaign's defaults, so --images site):

  python benchmarks/screenshots.py --out /tmp/shots                 # makes /tmp/shots/round first
  python benchmarks/screenshots.py --plots plots --out /tmp/shots   # an existing output tree

The PNGs are for looking at (they are not kept in git).
"""

from __future__ import annotations

import argparse
import shutil
import socket
import subprocess
import sys
import time
import urllib.parse
from pathlib import Path

SIZE = "1400,1000"
FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking",
         "--disable-component-update", "--disable-sync", "--hide-scrollbars", "--virtual-time-budget=20000"]  # fmt: skip


def small_round(where: Path) -> Path:
    """A demo results tree (Run3Mu, MHc130_MA90, 2 folds) and its campaign; returns the output tree."""
    results, plots = where / "results", where / "plots"
    if not (plots / "campaign" / "site" / "index.html").is_file():
        cli = [sys.executable, "-m", "pnetviz"]
        subprocess.run([*cli, "demo", "--output", str(results), "--signals", "MHc130_MA90", "--channels", "Run3Mu",
                        "--folds", "2", "--events", "500"], check=True)  # fmt: skip
        subprocess.run([*cli, "campaign", "--results-dir", str(results), "--plots-dir", str(plots), "--workers", "1",
                        "--bootstrap", "10", "-q"], check=True)  # fmt: skip
    return plots


def pages(plots: Path) -> dict[str, str]:
    """name -> URL path (relative to the served root) of each page to photograph."""
    site = plots / "campaign" / "site"
    signal = next(site.glob("*/*/index.html")).relative_to(plots).as_posix()
    model = sorted(site.glob("*/*/binary/*.html"))[0].relative_to(plots).as_posix()
    binaries = sorted((plots / "results").glob("*/binary/*/*/fold-0/plots.root"))[:2]
    multi = next((plots / "results").glob("*/multiclass/*/*/fold-0/plots.root"))
    specs = [p.relative_to(plots).as_posix() for p in binaries] + [multi.relative_to(plots).as_posix() + "!ttX"]
    overlay = "campaign/site/overlay.html?" + urllib.parse.urlencode([("curve", "rejection"), *(("m", s) for s in specs)])
    live = "view.html?" + urllib.parse.urlencode({"file": binaries[0].relative_to(plots).as_posix(), "item": "canvases/roc_curve"})
    return {"overview": "campaign/site/index.html", "signal": urllib.parse.quote(signal),
            "model": urllib.parse.quote(model), "overlay": overlay, "live": live}  # fmt: skip


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--plots", type=Path, help="an output tree with the campaign's web report (default: a small demo round)")
    parser.add_argument("--out", type=Path, required=True, help="directory for the screenshots")
    args = parser.parse_args(argv)
    chromium = shutil.which("chromium")
    if chromium is None:
        parser.error("no `chromium` on PATH (Debian: apt-get install chromium)")
    args.out.mkdir(parents=True, exist_ok=True)
    plots = args.plots or small_round(args.out / "round")
    port = free_port()
    server = subprocess.Popen([sys.executable, "-m", "http.server", str(port), "--bind", "127.0.0.1", "-d", str(plots)],
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)  # fmt: skip
    try:
        time.sleep(1.0)
        for name, path in pages(plots).items():
            shot = (args.out / f"{name}.png").resolve()
            subprocess.run([chromium, *FLAGS, f"--window-size={SIZE}", f"--screenshot={shot}",
                            f"--user-data-dir={args.out / '.profile'}", f"http://127.0.0.1:{port}/{path}"],
                           capture_output=True, timeout=180, check=False)  # fmt: skip
            print(f"{name}: {shot if shot.is_file() else 'FAILED'}  (http://127.0.0.1:{port}/{path})")
    finally:
        server.terminate()
        server.wait(timeout=10)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

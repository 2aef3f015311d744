"""Readable, stable addresses of the web report's pages (issue 37, item 3).

Inside `<plots>/campaign/site/`: `index.html` (the overview), `overlay.html`,
`<channel>/<signal>/index.html` (a signal point) and `<channel>/<signal>/<kind>/<model>.html` (a
model). Each component is the name percent-encoded (`component`): injective, so two names never
share a file; the same names give the same address in every round. Links quote each component
once more (`site._link`): a `%` on disk is `%25` in a link.
"""

from __future__ import annotations

import hashlib
from urllib.parse import quote

MAX_COMPONENT = 200  # bytes: file systems allow 255 per name; room for '.html' and a digest


def component(name: str) -> str:
    """One path component from a name: everything but letters, digits and `-_.~` as %XX (UTF-8),
    a leading `.` as %2E (no hidden file, no `..`), the empty name as `%` (no other output holds a
    bare `%`); undecodable bytes of a name read from disk as %XX too. A name too long for a file
    name: its head, `%~` and a digest of the whole name."""
    raw = name.encode("utf-8", "surrogateescape")  # a name read from disk as bytes keeps them
    text = quote(raw, safe="-_.~") if raw else "%"
    if text.startswith("."):
        text = "%2E" + text[1:]
    if len(text) > MAX_COMPONENT:
        text = f"{text[:MAX_COMPONENT - 14]}%~{hashlib.sha1(raw).hexdigest()[:12]}"
    return text


def signal_dir(channel: str, signal: str) -> str:
    """`<channel>/<signal>` (relative to the site directory)."""
    return f"{component(channel)}/{component(signal)}"


def signal_address(channel: str, signal: str) -> str:
    """The signal point's page, relative to the site directory."""
    return f"{signal_dir(channel, signal)}/index.html"


def model_address(channel: str, signal: str, kind: str, model: str) -> str:
    """A model's page, relative to the site directory."""
    return f"{signal_dir(channel, signal)}/{component(kind)}/{component(model)}.html"


def depth_prefix(address: str) -> str:
    """From the page at `address` (relative to the site directory) back to the site directory."""
    return "../" * address.count("/")

"""One escaping function per target, for every string that comes from disk or the command line
(channel, signal, model, class and background names, labels) and reaches a LaTeX table, a CSV
cell, HTML, ROOT's TLatex or a line of a plain-text report. Each is total: any input gives text
that the target shows literally; `check_tlatex` validates the TLatex a user writes on purpose
(--labels). ROOT titles are not escaped but set literally (rootenv.set_title)."""

from __future__ import annotations

import csv
import io
import re
from collections.abc import Callable, Iterable, Sequence

_LATEX = {
    "\\": r"\textbackslash{}", "{": r"\{", "}": r"\}", "$": r"\$", "&": r"\&", "#": r"\#", "%": r"\%",
    "_": r"\_", "^": r"\textasciicircum{}", "~": r"\textasciitilde{}", "<": r"\textless{}", ">": r"\textgreater{}",
}  # fmt: skip
_NUMBER = re.compile(r"[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?|[+-]?(inf|nan)", re.IGNORECASE)


def latex(text: object) -> str:
    """`text` as literal LaTeX text: the ten special characters escaped, < and > as text, and
    every line break or other control character a space (a newline in a name must never start a
    line of its own: that is how `\\immediate\\write18` gets in)."""
    out = []
    for ch in str(text):
        if ch in _LATEX:
            out.append(_LATEX[ch])
        elif ch < " " or ch == "\x7f" or ch in "\u2028\u2029\x85":
            out.append(" ")
        else:
            out.append(ch)
    return "".join(out)


def csv_cell(value: object) -> object:
    """A CSV cell that no spreadsheet evaluates: a string starting with = + - @, a tab or a CR
    that is not a number gets a leading apostrophe (OWASP's CSV-injection rule); an undefined
    number (NaN) is an empty cell, as a missing one (one convention in every CSV); numbers and
    other strings are returned unchanged."""
    if isinstance(value, float) and value != value:
        return ""
    if not isinstance(value, str) or not value:
        return value
    if value[0] in "=+-@\t\r" and not _NUMBER.fullmatch(value.strip()):
        return "'" + value
    return value


def csv_table(rows: Iterable[dict], fields: Sequence[str], cell: Callable[[dict, str], object] | None = None) -> str:
    """CSV text of `rows` (a header of `fields`, one line per row, "\n" line ends); each cell is
    `cell(row, field)`, by default the row's value through csv_cell (blank for None or absent)."""
    if cell is None:
        cell = lambda row, field: "" if row.get(field) is None else csv_cell(row[field])  # noqa: E731
    out = io.StringIO()
    writer = csv.DictWriter(out, fieldnames=list(fields), lineterminator="\n")
    writer.writeheader()
    for row in rows:
        writer.writerow({field: cell(row, field) for field in fields})
    return out.getvalue()


_TLATEX = {"\\": "/", "{": "(", "}": ")", "#": "No.", "_": "-", "^": "-", "~": "-"}


def tlatex(text: object) -> str:
    """A raw name (a directory, a JSON field) as TLatex that draws it literally: TLatex has no
    escape character, so its control characters become look-alikes (braces -> parentheses,
    backslash -> slash, # -> "No.", _ ^ ~ -> hyphen) and control characters spaces. A `{}\\`
    reaching TLatex unescaped crashes ROOT."""
    return "".join(_TLATEX.get(ch, " " if ch < " " or ch == "\x7f" else ch) for ch in _valid(text))


MAX_TLATEX_LENGTH = 200  # characters of one user-written TLatex label (a plot label, not a paragraph)
MAX_TLATEX_DEPTH = 8  # nested {} levels: ROOT's TLatex parser recurses per level (5000 levels crash it)


def check_tlatex(text: str, what: str) -> str:
    """`text` unchanged if it is TLatex that ROOT can draw (balanced braces nested at most
    MAX_TLATEX_DEPTH deep, at most MAX_TLATEX_LENGTH characters, no backslash, no control
    character, valid UTF-8); else ValueError naming `what` and the problem. For labels the user
    writes in TLatex (--labels ttX=t#bar{t}X)."""
    if not is_utf8(text):
        raise ValueError(f"{what} '{printable(text)}': not valid UTF-8")
    if len(text) > MAX_TLATEX_LENGTH:
        raise ValueError(f"{what} {text[:40]!r}...: {len(text)} characters, more than {MAX_TLATEX_LENGTH}")
    depth = 0
    for ch in text:
        depth += {"{": 1, "}": -1}.get(ch, 0)
        if depth < 0:
            raise ValueError(f"{what} {text!r}: a '}}' closes no '{{'")
        if depth > MAX_TLATEX_DEPTH:
            raise ValueError(f"{what} {text[:40]!r}...: braces nested more than {MAX_TLATEX_DEPTH} deep")
    if depth:
        raise ValueError(f"{what} {text!r}: {depth} '{{' not closed")
    if "\\" in text:
        raise ValueError(f"{what} {text!r}: TLatex uses '#', not '\\' (t#bar{{t}}X)")
    if any(ch < " " or ch == "\x7f" for ch in text):
        raise ValueError(f"{what} {text!r}: a control character")
    return text


def text_line(text: object) -> str:
    """`text` as (part of) one line of a plain-text report: printable text unchanged, each line
    break or other non-printable character as its Python escape (a newline reads \\n, a tab \\t,
    ESC \\x1b), so that a name never starts a line of its own or moves a terminal's cursor."""
    text = str(text)
    return text if text.isprintable() else "".join(ch if ch.isprintable() else repr(ch)[1:-1] for ch in text)


TLATEX_SYMBOLS = {"pm": "\u00b1", "mu": "\u03bc", "varepsilon": "\u03b5", "sigma": "\u03c3", "geq": "\u2265", "leq": "\u2264",
                  "bar": "", "sqrt": "\u221a", "minus": "\u2212", "times": "\u00d7"}  # TLatex commands in plain text


def plain_text(tlatex: str) -> str:
    """A TLatex line as plain text: #pm -> \u00b1, #mu -> \u03bc, ...; braces, ^ and _ dropped
    (m(H^{#pm}) = 130 GeV -> m(H\u00b1) = 130 GeV)."""
    text = re.sub(r"#(kern|lower)\[[^\]]*\]", "", str(tlatex))  # a shift of what follows: nothing to show
    text = re.sub(r"#([A-Za-z]+)", lambda m: TLATEX_SYMBOLS.get(m.group(1), m.group(1)), text)
    return re.sub(r"[{}^_]", "", text)


def html(text: object) -> str:
    """`text` as literal HTML text or attribute value (& < > " ' as entities)."""
    import html as _html  # noqa: PLC0415

    return _html.escape(str(text), quote=True)


def script_literal(value: object) -> str:
    """`value` (JSON-serialisable) as a JavaScript literal inside an HTML <script>: JSON with every
    non-ASCII character, '<', '>' and '&' as \\u escapes, so no text closes the script element."""
    import json  # noqa: PLC0415

    text = json.dumps(value, ensure_ascii=True)
    return text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")


def is_utf8(text: object) -> bool:
    """False if `text` holds characters that are not text: the surrogates by which Python keeps the
    bytes of a file name or command-line argument that is not valid UTF-8."""
    try:
        str(text).encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def printable(text: object) -> str:
    """`text` (a name or path from the file system or the command line) as printable, valid text:
    each byte that is not UTF-8 as \\xNN (b'MA90\\xff' reads MA90\\xff), other non-printable
    characters as text_line writes them. For messages, reports and job names."""
    return text_line(_valid(text))


def _valid(text: object) -> str:
    """`text` with each byte that is not UTF-8 (a surrogate) written as \\xNN: valid UTF-8."""
    text = str(text)
    if is_utf8(text):
        return text
    try:
        return text.encode("utf-8", "surrogateescape").decode("utf-8", "backslashreplace")
    except UnicodeEncodeError:  # a lone surrogate that stands for no byte (e.g. from JSON "\\ud800")
        return text.encode("utf-8", "backslashreplace").decode("utf-8")


"""One formatter for value +- error: the PDG rounding rule (Review of Particle Physics,
Introduction, Sec. 5.3 "Rounding"), for every table, caption, legend and page pnetviz writes
(CSV files keep full precision).

The rule: the three highest-order digits of the error decide its significant digits,
100-354 -> two, 355-949 -> one, 950-999 -> rounded up to 1000 and kept to two; the value is
rounded to the same decimal place. The digits are read from the error's decimal form (12
significant digits, so that binary noise such as 0.11899999999 reads 119). Halves are rounded
away from zero (0.0355 -> 0.04), on the shortest decimal form of the float. An asymmetric error
+a -b is rounded on the smaller of a and b, the value and both sides to that place.
"""

from __future__ import annotations

import math
from decimal import ROUND_HALF_UP, Decimal

STYLES = ("text", "latex", "html", "tlatex")  # plain "±", $a \pm b$, &plusmn;, ROOT's #pm
PM = {"text": " ± ", "latex": r" \pm ", "html": " &plusmn; ", "tlatex": " #pm "}


def _finite(x) -> bool:
    return isinstance(x, (int, float)) and not isinstance(x, bool) and math.isfinite(x)


def error_decimals(error: float) -> int:
    """The decimal place (digits after the point; negative: tens, hundreds...) to which a positive
    finite `error` and its value are rounded under the PDG rule."""
    mantissa, exponent = f"{error:.11e}".split("e")
    leading = int(mantissa.replace(".", "")[:3])  # the three highest-order digits, 100..999
    exponent = int(exponent)
    if leading <= 354:
        return 1 - exponent  # two significant digits
    if leading <= 949:
        return -exponent  # one significant digit
    return -exponent  # rounded up to 1000 (one order higher), kept to two digits: the same place


def round_to(x: float, decimals: int) -> str:
    """`x` rounded half away from zero to `decimals` places (negative: to tens, hundreds...), as a
    plain decimal string without exponent; a rounded zero has no sign."""
    quantum = Decimal(1).scaleb(-decimals)
    q = Decimal(repr(float(x))).quantize(quantum, rounding=ROUND_HALF_UP) if decimals >= 0 else \
        (Decimal(repr(float(x))).scaleb(decimals).quantize(Decimal(1), rounding=ROUND_HALF_UP)).scaleb(-decimals)  # fmt: skip
    if q.is_zero():
        q = abs(q)
    return format(q, "f")


def pdg(value: float, error: float) -> tuple[str, str]:
    """(value, error) as strings rounded by the PDG rule: 0.827 +- 0.119 -> ("0.83", "0.12")."""
    if not (_finite(value) and _finite(error) and error > 0):
        raise ValueError(f"pdg needs a finite value and a positive finite error, not {value!r} +- {error!r}")
    decimals = error_decimals(error)
    return round_to(value, decimals), round_to(error, decimals)


def _signed(text: str, sign: bool) -> str:
    return text if not sign or text.startswith("-") else f"+{text}"


ROUNDOFF = 1e-12  # an error below this fraction of the value is floating-point round-off, shown as 0


def pm(value, error, style: str = "text", fallback: str = ".4f", sign: bool = False) -> str:
    """value +- error rounded by the PDG rule in `style` (STYLES); a value without a usable error
    (None, NaN, negative) alone in `fallback` format, with an exact zero error "+- 0"; "" without a
    finite value. `sign`: a leading "+" on positive values (differences)."""
    if not _finite(value):
        return ""
    if _finite(error) and error > ROUNDOFF * max(1.0, abs(value)):
        v, e = pdg(value, error)
        body = f"{_signed(v, sign)}{PM[style]}{e}"
    else:
        body = _signed(round_to(value, _fallback_decimals(value, fallback)), sign)
        if _finite(error) and error >= 0:  # zero, or round-off (an AUC of 1 +- 1e-17): "+- 0"
            body += f"{PM[style]}0"
    return f"${body}$" if style == "latex" else body


def _fallback_decimals(value: float, fmt: str) -> int:
    """Decimal places of a format such as ".4f" or ".3g" for `value`."""
    digits = int(fmt.lstrip(".+").rstrip("fg") or 4)
    if fmt.endswith("g") and value != 0:
        return digits - 1 - math.floor(math.log10(abs(value)))
    return digits


def asymmetric(value, plus, minus, style: str = "text", fallback: str = ".4f") -> str:
    """value +plus -minus (both >= 0), rounded by the PDG rule on the smaller nonzero side, the
    value and the other side to the same place: text "10.2 +3.1 -1.5", latex $10.2^{+3.1}_{-1.5}$,
    html with sup/sub, tlatex 10.2^{+3.1}_{-1.5}. Without usable sides: pm(value, None)."""
    sides = [s for s in (plus, minus) if _finite(s) and s > 0]
    if not _finite(value) or not sides or not all(_finite(s) and s >= 0 for s in (plus, minus)):
        return pm(value, None, style, fallback)
    decimals = error_decimals(min(sides))
    v, a, b = (round_to(x, decimals) for x in (value, plus, minus))
    if style == "latex":
        return f"${v}^{{+{a}}}_{{-{b}}}$"
    if style == "tlatex":
        return f"{v}^{{+{a}}}_{{-{b}}}"
    if style == "html":
        return f"{v} <sup>+{a}</sup><sub>&minus;{b}</sub>"
    return f"{v} +{a} -{b}"

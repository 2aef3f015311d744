"""PDG rounding (Review of Particle Physics, Introduction, Sec. 5.3): the three highest-order
digits of the error decide (100-354: two significant digits, 355-949: one, 950-999: up to 1000,
two), the value to the same place. Hand examples worked from the rule."""

from __future__ import annotations

import pytest

from pnetviz.metrics import rounding

PDG_TABLE = [  # (value, error) -> (value, error) as printed
    ((0.827, 0.119), ("0.83", "0.12")),  # 119: two digits
    ((0.827, 0.367), ("0.8", "0.4")),  # 367: one digit
    ((0.827, 0.0099), ("0.827", "0.010")),  # 990: up to 1000, two digits
    ((0.827, 0.354), ("0.83", "0.35")),  # 354: the last two-digit case
    ((0.827, 0.355), ("0.8", "0.4")),  # 355: the first one-digit case
    ((0.827, 0.949), ("0.8", "0.9")),  # 949: the last one-digit case
    ((0.827, 0.950), ("0.8", "1.0")),  # 950: up to 1.0, two digits
    ((0.9123, 0.0045), ("0.912", "0.005")),  # 450: one digit (half away from zero)
    ((0.9123, 0.0025), ("0.9123", "0.0025")),  # 250: two digits
    ((1234.5, 35.5), ("1230", "40")),  # 355: one digit, to the tens
    ((1234.5, 12.3), ("1235", "12")),  # 123: two digits, to the units (half away from zero)
    ((51.3, 99.5), ("50", "100")),  # 995: up to 100, two digits
    ((0.0355, 0.0123), ("0.036", "0.012")),  # halves away from zero
    ((-0.0021, 0.0015), ("-0.0021", "0.0015")),
    ((0.00004, 0.0015), ("0.0000", "0.0015")),  # a rounded zero has no sign
    ((0.11899999999999, 0.11899999999999), ("0.12", "0.12")),  # binary noise of 0.119 reads 119
]


@pytest.mark.parametrize(("given", "shown"), PDG_TABLE)
def test_pdg_rounding_table(given, shown):
    assert rounding.pdg(*given) == shown


def test_pdg_digit_classes():
    assert rounding.error_decimals(0.119) == 2 and rounding.error_decimals(0.367) == 1
    assert rounding.error_decimals(0.0099) == 3 and rounding.error_decimals(12.3) == 0 and rounding.error_decimals(35.5) == -1


def test_styles_and_fallbacks():
    assert rounding.pm(0.9123, 0.0025, "latex") == r"$0.9123 \pm 0.0025$"
    assert rounding.pm(0.9123, 0.0025, "html") == "0.9123 &plusmn; 0.0025"
    assert rounding.pm(0.9123, 0.0025, "tlatex") == "0.9123 #pm 0.0025"
    assert rounding.pm(0.9123, 0.0025) == "0.9123 ± 0.0025"
    assert rounding.pm(0.0023, 0.0015, "html", sign=True) == "+0.0023 &plusmn; 0.0015"
    assert rounding.pm(0.91234567, None) == "0.9123" and rounding.pm(0.91234567, float("nan"), fallback=".3f") == "0.912"
    assert rounding.pm(0.95, 0.0) == "0.9500 ± 0" and rounding.pm(float("nan"), 0.1) == "" and rounding.pm(None, 0.1) == ""
    with pytest.raises(ValueError):
        rounding.pdg(1.0, 0.0)


def test_asymmetric_rounds_on_the_smaller_side():
    assert rounding.asymmetric(51.3, 99.5, 17.2) == "51 +100 -17"  # 172 -> two digits: units
    assert rounding.asymmetric(10.23, 3.14, 1.52, "latex") == "$10.2^{+3.1}_{-1.5}$"
    assert rounding.asymmetric(10.23, 3.14, 1.52, "html") == "10.2 <sup>+3.1</sup><sub>&minus;1.5</sub>"
    assert rounding.asymmetric(10.23, 3.14, 1.52, "tlatex") == "10.2^{+3.1}_{-1.5}"
    assert rounding.asymmetric(10.23, 0.0, 0.0) == "10.2300"  # no usable side: the value alone


def test_a_round_off_error_is_shown_as_zero():
    """An AUC of 1 with a bootstrap spread of 1e-17 (round-off): "1.0000 +- 0", not 17 decimals."""
    assert rounding.pm(1.0, 1.1e-17) == "1.0000 \u00b1 0"
    assert rounding.pm(0.91, 0.06) == "0.91 \u00b1 0.06"

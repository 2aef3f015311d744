"""The `--column` expression grammar (pnetviz.io.grammar, issue 49 item 1): expressions are data.

Attack strings are refused with one line before anything is compiled, whatever the mapping's
source; the documented examples still work; random expressions of the grammar evaluated by
pnetviz (its compiled loop and its RDataFrame fallback) equal an independent numpy evaluation that
follows C++'s rules (types, promotions, truncating integer division, NaN in comparisons).
"""

from __future__ import annotations

import json
import time

import numpy as np
import pytest

from conftest import write_ntuple
from pnetviz.cli import binary
from pnetviz.cli.common import EXIT_USER_ERROR, run
from pnetviz.errors import InputError
from pnetviz.io import columns as mapped
from pnetviz.io import expressions, grammar
from pnetviz.io.columns import parse_columns
from pnetviz.io.ntuple import read_predictions

N = 64
ATTACKS = {  # expression -> the token the message names
    'gSystem->Exec("touch {flag}") * 0 + weight': "'->'",  # A1/A2/A3
    'weight + 0; } int pnetviz_x = gSystem->Exec("touch {flag}"); inline auto g() { return 1': "';'",  # A3's }-escape
    'weight } int pnetviz_x = gSystem->Exec("touch {flag}"); inline auto g() { return 1': "'}'",
    "weight{": "'{'",  # A6: cling waited for the closing brace
    "weight; }": "';'",  # A6
    "#include <cstdlib>": "'#'",
    '.! touch {flag}': "'.'",
    'R__LOAD_LIBRARY(libpnetviz_x)': "'R__LOAD_LIBRARY'",
    'gInterpreter->ProcessLine(".! touch {flag}")': "'->'",
    'TPython::Exec("open(\'{flag}\', \'w\')")': "'::'",
    '[](){ return gSystem->Exec("touch {flag}"); }()': "'['",
    '"touch {flag}"': "'\"'",
    "'x'": "\"'\"",
    "(int)weight": "'int'",
    'static_cast<int>(weight)': "'static_cast'",
    'abs(weight), score_signal=score_signal': "','",  # A11: C++'s comma operator made the weight the score
    'system("touch {flag}")': "'system'",
    "weight.Exec()": "'.'",
    "gSystem -> Exec": "'->'",
    "weight = 1": "'='",
    "weight ? 1": "the expression ends",
    "(weight": "never closed",
    "abs(weight": "never closed",
    "weight)": "')' closes no '('",
    "new int": "'new'",
    "weight[0]": "'['",
    "0x10": "'0x10'",
    "010": "'010'",
    "weight // comment": "'//'",
    "a && & b": "'&'",
}


def plant(text: str, flag) -> str:
    """The attack with the file its planted command would create."""
    return text.replace("{flag}", str(flag))


def other_group(seed: int = 7) -> dict[str, np.ndarray]:
    rng = np.random.default_rng(seed)
    sig = rng.random(N * 8) < 0.4
    event = np.arange(N * 8, dtype=np.uint64) * 7 + 11
    return {"isSignal": sig, "bdt_score": rng.random(N * 8).astype(np.float32), "weight": rng.normal(0.5, 1.0, N * 8),
            "fold": (event % 5).astype(np.int32), "event": event}  # fmt: skip


@pytest.fixture(scope="module")
def ntuple(tmp_path_factory):
    cols = other_group()
    return write_ntuple(tmp_path_factory.mktemp("grammar") / "other.root", cols, "tree"), cols


@pytest.fixture
def nothing_compiled(monkeypatch):
    """Fail the test if anything of an expression reaches cling."""
    for target, attr in ((grammar, "declare_helpers"), (expressions, "_kernel"), (mapped, "_frame"),
                         (mapped, "_declare_templates")):  # fmt: skip
        monkeypatch.setattr(target, attr, lambda *a, **k: pytest.fail("an expression reached the compiler"))


# --- refused before anything is compiled -------------------------------------------------------


@pytest.mark.parametrize("attack", list(ATTACKS))
def test_attack_is_refused_by_the_parser_with_the_token_and_column(attack, tmp_path, nothing_compiled):
    text = plant(attack, tmp_path / "PWNED")
    start = time.monotonic()
    with pytest.raises(InputError) as err:
        parse_columns([f"weight={text}"], None)
    message = str(err.value)
    assert time.monotonic() - start < 1
    assert "\n" not in message and message.startswith(f"--column {mapped._short('weight=' + text)!r}: at position ")
    assert ATTACKS[attack] in message and "docs/inputs.md" in message
    assert not (tmp_path / "PWNED").exists()


@pytest.mark.parametrize("attack", list(ATTACKS)[:4])
def test_attack_in_a_columns_file_names_the_file_and_column(attack, tmp_path, nothing_compiled):
    file = tmp_path / "columns.json"
    file.write_text(json.dumps({"true_label": "isSignal ? 0 : 1", "weight": plant(attack, tmp_path / "PWNED")}))
    with pytest.raises(InputError) as err:
        parse_columns(None, file)
    assert str(err.value).startswith(f"--columns {file}: 'weight': at position ") and ATTACKS[attack] in str(err.value)


@pytest.mark.parametrize("text", ["(" * 10_000 + "weight" + ")" * 10_000, "(" * 500 + "weight" + ")" * 500,
                                  "-" * 3000 + "weight", "!" * 1999 + "x", "+".join(["weight"] * 300),
                                  "abs(" * 300 + "x" + ")" * 300, "a ? " * 400 + "b" + " : c" * 400,
                                  "(" * 10_000, "{" * 10_000, '"' + "x" * 10_000])  # fmt: skip
def test_deep_or_long_input_is_one_line_within_a_second(text, nothing_compiled):
    start = time.monotonic()
    with pytest.raises(InputError) as err:
        parse_columns([f"weight={text}"], None)
    assert time.monotonic() - start < 1
    assert "\n" not in str(err.value) and len(str(err.value)) < 1000


def test_nesting_up_to_the_bound_parses():
    text = "(" * (grammar.MAX_DEPTH - 1) + "x" + ")" * (grammar.MAX_DEPTH - 1)
    assert grammar.to_cpp(grammar.parse_tree(text)) == "x"
    sum_ = "+".join(["x"] * grammar.MAX_DEPTH)  # a left-deep tree of MAX_DEPTH - 1 additions
    assert grammar.names(grammar.parse_tree(sum_)) == ["x"]


@pytest.mark.parametrize("text", ["weight{", 'gSystem->Exec("touch {flag}") * 0 + weight', "weight; }",
                                  "weight } int x = gSystem->Exec(\"touch {flag}\"); inline auto g() { return 1"])
def test_the_command_line_refuses_an_attack_exit_2_and_nothing_runs(text, ntuple, tmp_path, capfd):
    """A1/A3/A6 through `pnetviz binary`: exit 2, one line, within seconds, no file created."""
    flag = tmp_path / "PWNED"
    file = tmp_path / "columns.json"
    file.write_text(json.dumps({"weight": plant(text, flag)}))
    for source in (["--column", f"weight={plant(text, flag)}"], ["--columns", str(file)]):
        start = time.monotonic()
        code = run(binary.main, ["--predictions", str(ntuple[0]), "--tree", "tree", "--output", str(tmp_path / "out"),
                                 "--formats", "none", "-q", "--column", "true_label=isSignal ? 0 : 1",
                                 "--column", "score_signal=bdt_score", "--column", "train_mask=fold < 3",
                                 "--column", "test_mask=fold == 3", *source])  # fmt: skip
        err = capfd.readouterr().err.strip()
        assert code == EXIT_USER_ERROR and time.monotonic() - start < 10
        assert err.count("\n") == 0 and "at position" in err and "weight" in err
        assert not flag.exists() and not (tmp_path / "out").exists()


def test_a_mapping_made_without_parse_columns_is_parsed_before_compiling(ntuple, tmp_path, nothing_compiled):
    """The Python API or a remembered option may hand a ColumnMap on: the reader parses it again."""
    path, cols = ntuple
    attack = (("weight", f'gSystem->Exec("touch {tmp_path / "PWNED"}")'),)
    types = {"weight": "Double_t", "event": "ULong64_t"}
    with pytest.raises(InputError, match=r"--column weight=gSystem->Exec.*at position 8 of the expression, '->'"):
        mapped.view_types(path, "tree", types, attack, True)
    with pytest.raises(InputError, match="at position 8 of the expression"):
        mapped.read_view(path, "tree", attack, {"weight": "double"}, types, len(cols["event"]), False, ())
    assert not (tmp_path / "PWNED").exists()


@pytest.mark.parametrize("name", ["gSystem", "gInterpreter", "TPython", "gROOT"])
def test_a_bare_global_is_not_a_branch_and_never_compiled(ntuple, name, monkeypatch):
    path, cols = ntuple
    for target, attr in ((grammar, "declare_helpers"), (expressions, "_kernel"), (mapped, "_declare_templates")):
        monkeypatch.setattr(target, attr, lambda *a, **k: pytest.fail("an expression reached the compiler"))
    with pytest.raises(InputError, match=f"--column weight={name} [*] 0 [+] weight: not branches of 'tree': {name}[.]"):
        read_predictions(path, classes=("signal", "bkg"), score_classes=("signal",), tree="tree",
                         columns=parse_columns(["true_label=isSignal ? 0 : 1", "score_signal=bdt_score",
                                                f"weight={name} * 0 + weight", "train_mask=fold < 3",
                                                "test_mask=fold == 3"], None))  # fmt: skip


# --- the documented examples, end to end through the reader --------------------------------------

DOCUMENTED = ("true_label=isSignal ? 0 : 1", "score_signal=bdt_score", "weight=abs(weight)", "train_mask=fold != 0",
              "test_mask=event % 5 == 3", "valid_mask=false", "has_tag=true")  # fmt: skip


@pytest.mark.parametrize("rdataframe", [False, True])
def test_documented_examples_equal_numpy(ntuple, rdataframe, monkeypatch):
    path, cols = ntuple
    if rdataframe:  # the fallback path computes the same values
        monkeypatch.setattr(expressions, "result_types", lambda *a: None)
    else:
        monkeypatch.setattr(mapped, "_read_frame", lambda *a: pytest.fail("RDataFrame used for expressions of branches"))
    preds = read_predictions(path, classes=("signal", "bkg"), score_classes=("signal",), tree="tree", binary=True,
                             subsets=("has_tag",), columns=parse_columns(DOCUMENTED, None))  # fmt: skip
    np.testing.assert_array_equal(preds.label, np.where(cols["isSignal"], 0, 1))
    assert preds.label.dtype == np.int32
    np.testing.assert_array_equal(preds.weight, np.abs(cols["weight"]))
    np.testing.assert_array_equal(preds.masks["train"], cols["fold"] != 0)
    np.testing.assert_array_equal(preds.masks["test"], cols["event"] % 5 == 3)
    np.testing.assert_array_equal(preds.masks["valid"], np.zeros(len(cols["event"]), bool))
    np.testing.assert_array_equal(preds.subsets["has_tag"], np.ones(len(cols["event"]), bool))


@pytest.mark.parametrize(("text", "cpp"), [
    ("a - b - c", "((a - b) - c)"), ("a + b * c", "(a + (b * c))"), ("a * b + c", "((a * b) + c)"),
    ("a || b && c", "(a || (b && c))"), ("!a == b", "((!a) == b)"), ("-a * b", "((-a) * b)"),
    ("a == b < c", "(a == (b < c))"), ("a ? b : c ? d : e", "(a ? b : (c ? d : e))"),
    ("a ? b ? c : d : e", "(a ? (b ? c : d) : e)"), ("a || b ? c : d", "((a || b) ? c : d)"),
    ("a / b % c", "pnetviz_fn::rem(pnetviz_fn::quot(a, b), c)"), ("- -a", "(-(-a))"), ("!!a", "(!(!a))"),
    ("max(a, b ? 1 : 2.5f)", "pnetviz_fn::max(a, (b ? 1 : 2.5f))"), ("1E-3F + .5 + 7ULL + 3Lu", "(((1e-3f + .5) + 7ull) + 3lu)"),
    ("  pow( x ,2 )  ", "std::pow(x, 2)"),
])  # fmt: skip
def test_precedence_and_associativity_are_cpp_s(text, cpp):
    assert grammar.to_cpp(grammar.parse_tree(text.strip())) == cpp


def test_min_max_are_std_s_with_nan_and_mixed_types(tmp_path):
    x = np.array([1.0, np.nan, 2.0, np.nan, -0.0, 0.0])
    y = np.array([np.nan, 1.0, 1.0, np.nan, 0.0, -0.0])
    path = write_ntuple(tmp_path / "nan.root", {"x": x, "y": y, "k": np.array([1, 2, 3, 4, 5, 6], np.int32)}, "tree")
    types = {"x": "Double_t", "y": "Double_t", "k": "Int_t"}
    exprs = (("lo", "min(x, y)"), ("hi", "max(x, y)"), ("mixed", "min(k, 2.5f)"), ("ints", "max(k, 3u)"))
    kinds = expressions.result_types(exprs, types)
    assert kinds == {"lo": "double", "hi": "double", "mixed": "float", "ints": "unsigned int"}
    got = mapped.read_view(path, "tree", exprs, kinds, types, 6, False, ())
    # std::min(a, b) = (b < a) ? b : a and std::max(a, b) = (a < b) ? b : a, signs of zero included
    for name, want in (("lo", np.where(y < x, y, x)), ("hi", np.where(x < y, y, x))):
        np.testing.assert_array_equal(got[name], want)
        np.testing.assert_array_equal(np.signbit(got[name]), np.signbit(want))
    np.testing.assert_array_equal(got["mixed"], np.minimum(np.arange(1, 7), 2.5).astype(np.float32))
    np.testing.assert_array_equal(got["ints"], np.maximum(np.arange(1, 7), 3).astype(np.uint32))


def test_true_and_false_are_literals_not_branches():
    assert grammar.parse_tree("false") == grammar.Boolean(False)
    assert grammar.names(grammar.parse_tree("true && x || false")) == ["x"]


@pytest.mark.parametrize("rdataframe", [False, True])
def test_integer_division_by_zero_is_one_line_not_a_crash(ntuple, rdataframe, monkeypatch):
    path, cols = ntuple
    types = {"fold": "Int_t", "event": "ULong64_t", "weight": "Double_t"}
    exprs = (("weight", "weight * 2"), ("event_id", "event / fold"))
    if rdataframe:
        monkeypatch.setattr(expressions, "result_types", lambda *a: None)
    with pytest.raises(InputError) as err:
        mapped.read_view(path, "tree", exprs, {"weight": "double", "event_id": "ULong64_t"}, types,
                         len(cols["event"]), False, ())  # fmt: skip
    assert "\n" not in str(err.value) and "--column event_id=event / fold: an integer is divided by zero" in str(err.value)
    # guarded, as in C++ (the ternary and && do not evaluate the division where fold is 0)
    got = mapped.read_view(path, "tree", (("event_id", "fold != 0 ? event / fold : 0"),), {"event_id": "ULong64_t"},
                           types, len(cols["event"]), False, ())  # fmt: skip
    fold = cols["fold"].astype(np.uint64)
    np.testing.assert_array_equal(got["event_id"], np.where(fold != 0, cols["event"] // np.maximum(fold, 1), 0))


def test_each_function_is_its_cmath_namesake(tmp_path):
    """Every allowed function over double and float branches: numpy's value (within rounding), the
    type of C++'s overload (float in, float out)."""
    x = np.array([-2.5, -0.75, 0.0, 0.3, 0.5, 0.9, 1.0, 2.5, 7.25])
    cols = {"x": x, "y": np.array([3.0, 0.5, 2.0, -1.5, 0.25, 4.0, 1.5, -2.0, 0.75]), "xf": x.astype(np.float32)}
    path = write_ntuple(tmp_path / "f.root", cols, "tree")
    types = {"x": "Double_t", "y": "Double_t", "xf": "Float_t"}
    exprs = []
    for function, (arity, _) in sorted(grammar.FUNCTIONS.items()):
        exprs += [(f"d_{function}", f"{function}(x{', y' * (arity - 1)})"), (f"f_{function}", f"{function}(xf{', xf' * (arity - 1)})")]
    kinds = expressions.result_types(tuple(exprs), types)
    got = mapped.read_view(path, "tree", tuple(exprs), kinds, types, len(x), False, ())
    rename = {"abs": "abs", "min": "minimum", "max": "maximum", "pow": "power", "asin": "arcsin", "acos": "arccos",
              "atan": "arctan", "atan2": "arctan2"}  # fmt: skip
    for function, (arity, _) in sorted(grammar.FUNCTIONS.items()):
        for kind, args in (("d", [x, cols["y"]][:arity]), ("f", [cols["xf"]] * arity)):
            with np.errstate(all="ignore"):
                if function == "round":  # C++ rounds halves away from zero
                    want = np.copysign(np.floor(np.abs(args[0]) + 0.5), args[0])
                else:
                    want = getattr(np, rename.get(function, function))(*args)
            values = got[f"{kind}_{function}"]
            single = kind == "f" and function not in ("isnan", "isfinite")
            boolean = function in ("isnan", "isfinite")
            assert values.dtype == (np.bool_ if boolean else np.float32 if single else np.float64), function
            np.testing.assert_allclose(values.astype(np.float64), want.astype(np.float64), rtol=1e-6 if single else 1e-13,
                                       atol=1e-7 if single else 1e-15, equal_nan=True, err_msg=function)  # fmt: skip


def test_branch_names_that_are_cpp_words_of_the_generated_code(tmp_path):
    """RDataFrame rewrites every word that is a column's name, `std` and the helpers' too: the
    generated C++ reaches it as a call with column names only."""
    cols = {"std": np.array([4.0, 9.0, 16.0]), "pnetviz_fn": np.array([1, 2, 3], np.int32),
            "quot": np.array([7, 8, 9], np.int32), "pnetviz_b0": np.array([1.0, 2.0, 3.0])}  # fmt: skip
    path = write_ntuple(tmp_path / "words.root", cols, "tree")
    types = {"std": "Double_t", "pnetviz_fn": "Int_t", "quot": "Int_t", "pnetviz_b0": "Double_t"}
    exprs = (("a", "sqrt(std) + quot / pnetviz_fn"), ("b", "rdfentry_ % 2 == 0 ? pnetviz_b0 : std"))
    want = {"a": np.sqrt(cols["std"]) + cols["quot"] // cols["pnetviz_fn"], "b": np.where(np.arange(3) % 2 == 0,
                                                                                         cols["pnetviz_b0"], cols["std"])}  # fmt: skip
    compiled = mapped.read_view(path, "tree", exprs[:1], {"a": "double"}, types, 3, False, ())
    frame = mapped._read_frame(path, "tree", exprs, ("a", "b"), tuple(sorted(types)), 3)
    np.testing.assert_array_equal(compiled["a"], want["a"])
    for name in ("a", "b"):
        np.testing.assert_array_equal(frame[name], want[name])


# --- property: random expressions of the grammar equal an independent numpy evaluation ----------

# C++ arithmetic types of the branches and literals: numpy dtype, integer bits (0: floating), signed
CTYPES = {"bool": (np.bool_, 1, False), "short": (np.int16, 16, True), "int": (np.int32, 32, True),
          "uint": (np.uint32, 32, False), "long": (np.int64, 64, True), "ulong": (np.uint64, 64, False),
          "float": (np.float32, 0, True), "double": (np.float64, 0, True)}  # fmt: skip
ROOT_TYPES = {"bool": "Bool_t", "short": "Short_t", "int": "Int_t", "uint": "UInt_t", "long": "Long64_t",
              "ulong": "ULong64_t", "float": "Float_t", "double": "Double_t"}  # fmt: skip
EXACT = ("abs", "min", "max", "floor", "ceil", "trunc", "round", "sqrt", "fmod", "isnan", "isfinite")
PRECEDENCE = {"||": 1, "&&": 2, "==": 3, "!=": 3, "<": 4, "<=": 4, ">": 4, ">=": 4, "+": 5, "-": 5, "*": 6, "/": 6, "%": 6}


class Skip(Exception):
    """The expression is undefined in C++ (signed overflow, integer division by zero) or does not
    compile (% of a floating-point value): drawn again."""


def branches(n: int, rng) -> dict[str, np.ndarray]:
    """One branch per C++ type (two of some), small values, a NaN and infinities among the floats."""
    specials = np.array([np.nan, np.nan, np.nan, np.inf, -np.inf, 0.0, -0.0, 0.5, -2.5])
    floats = np.concatenate([specials, rng.choice([-3.0, -1.5, -1.0, -0.5, 0.25, 0.5, 1.0, 2.0, 2.5, 7.75], n - 9)])
    return {"b": rng.random(n) < 0.5, "c": rng.random(n) < 0.3, "s": rng.integers(-9, 10, n).astype(np.int16),
            "i": rng.choice([-20, -7, -3, -1, 1, 2, 3, 5, 11, 20], n).astype(np.int32),
            "j": rng.integers(-20, 21, n).astype(np.int32), "u": rng.integers(1, 31, n).astype(np.uint32),
            "l": rng.choice([-9, -2, -1, 1, 3, 4, 17], n).astype(np.int64), "q": rng.integers(1, 31, n).astype(np.uint64),
            "f": rng.permutation(floats).astype(np.float32), "d": rng.permutation(floats) * 1.25}  # fmt: skip


BRANCH_TYPES = {"b": "bool", "c": "bool", "s": "short", "i": "int", "j": "int", "u": "uint", "l": "long",
                "q": "ulong", "f": "float", "d": "double"}  # fmt: skip
LITERALS = (("0", "int", 0), ("1", "int", 1), ("3", "int", 3), ("12", "int", 12), ("5u", "uint", 5),
            ("0.5", "double", 0.5), ("2.5", "double", 2.5), (".25", "double", 0.25), ("1e1", "double", 10.0),
            ("1.5f", "float", 1.5), ("3.f", "float", 3.0), ("true", "bool", True), ("false", "bool", False))  # fmt: skip


def draw(rng, depth: int) -> tuple:
    """A random expression tree (the test's own: ("name", b), ("lit", text, type, value), ("un", op, x),
    ("bin", op, l, r), ("cond", c, t, f), ("call", f, args))."""
    if depth == 0 or rng.random() < 0.15:
        if rng.random() < 0.65:
            return ("name", str(rng.choice(list(BRANCH_TYPES))))
        return ("lit", *LITERALS[rng.integers(len(LITERALS))])
    kind = rng.choice(["un", "bin", "bin", "bin", "cond", "call"])
    if kind == "un":
        return ("un", str(rng.choice(["-", "+", "!"])), draw(rng, depth - 1))
    if kind == "bin":
        return ("bin", str(rng.choice(list(PRECEDENCE))), draw(rng, depth - 1), draw(rng, depth - 1))
    if kind == "cond":
        return ("cond", draw(rng, depth - 1), draw(rng, depth - 1), draw(rng, depth - 1))
    function = str(rng.choice(EXACT))
    return ("call", function, tuple(draw(rng, depth - 1) for _ in range(grammar.FUNCTIONS[function][0])))


def render(node: tuple, rng) -> tuple[str, int]:
    """(text, precedence) of a tree: parentheses only where C++'s precedence needs them (and a few
    more), random spaces."""
    space = " " if rng.random() < 0.5 else ""
    match node:
        case ("name", name):
            text, prec = name, 9
        case ("lit", literal, _, _):
            text, prec = literal, 9
        case ("un", op, x):
            inner, p = render(x, rng)
            inner = inner if p >= 8 else f"({inner})"
            text, prec = op + (" " if inner[0] in "+-" else space) + inner, 8
        case ("bin", op, left, right):
            level = PRECEDENCE[op]
            a, pa = render(left, rng)
            b, pb = render(right, rng)
            a = a if pa > level or (pa == level and level != 4) else f"({a})"
            b = b if pb > level else f"({b})"
            text, prec = a + space + op + (" " if b[0] in "+-" else space) + b, level
        case ("cond", c, t, f):
            (a, pa), (b, _), (e, _) = render(c, rng), render(t, rng), render(f, rng)
            text, prec = f"{a if pa >= 1 else f'({a})'} ?{space}{b} :{space}{e}", 0
        case ("call", function, args):
            text, prec = f"{function}(" + ("," + space).join(render(a, rng)[0] for a in args) + ")", 9
    if rng.random() < 0.1:
        return f"({text})", 9
    return text, prec


def promoted(t: str) -> str:
    return "int" if t in ("bool", "short") else t


def arithmetic(a: str, b: str) -> str:
    """C++'s usual arithmetic conversions of the two operand types."""
    if "double" in (a, b):
        return "double"
    if "float" in (a, b):
        return "float"
    a, b = promoted(a), promoted(b)
    if a == b:
        return a
    (_, bits_a, signed_a), (_, bits_b, signed_b) = CTYPES[a], CTYPES[b]
    if signed_a == signed_b:
        return a if bits_a >= bits_b else b
    unsigned, signed = (a, b) if not signed_a else (b, a)
    if CTYPES[unsigned][1] >= CTYPES[signed][1]:
        return unsigned
    return signed  # a wider signed type holds every value of the unsigned one


def convert(value: tuple[str, np.ndarray], t: str) -> np.ndarray:
    """The values converted to C++ type t (integers wrap, as C++20 defines)."""
    source, values = value
    if t == "bool":
        return values != 0
    dtype, bits, signed = CTYPES[t]
    if bits == 0 or CTYPES[source][1] == 0:
        return values.astype(dtype)
    ints = [int(v) % (1 << bits) for v in values]  # two's complement
    return np.array([v - (1 << bits) if signed and v >= 1 << (bits - 1) else v for v in ints], dtype=object).astype(dtype)


def integer_result(t: str, values: list[int]) -> tuple[str, np.ndarray]:
    dtype, bits, signed = CTYPES[t]
    if signed:
        if any(not -(1 << (bits - 1)) <= v < 1 << (bits - 1) for v in values):
            raise Skip("signed overflow")
        return t, np.array(values, dtype=object).astype(dtype)
    return t, np.array([v % (1 << bits) for v in values], dtype=object).astype(dtype)


def truncating(a: int, b: int) -> int:
    if b == 0:
        raise Skip("integer division by zero")
    q = abs(a) // abs(b)
    return q if (a < 0) == (b < 0) else -q


def reference(node: tuple, data: dict[str, np.ndarray]) -> tuple[str, np.ndarray]:
    """(C++ type, values) of a tree over the branches, by C++'s rules, in numpy and Python integers."""
    n = len(data["b"])
    match node:
        case ("name", name):
            return BRANCH_TYPES[name], data[name]
        case ("lit", _, t, value):
            return t, np.full(n, value, dtype=CTYPES[t][0])
        case ("un", "!", x):
            return "bool", convert(reference(x, data), "bool") == 0
        case ("un", op, x):
            value = reference(x, data)
            t = promoted(value[0])
            values = convert(value, t)
            if CTYPES[t][1] == 0:
                return t, -values if op == "-" else values
            return integer_result(t, [-int(v) if op == "-" else int(v) for v in values])
        case ("bin", op, left, right):
            a, b = reference(left, data), reference(right, data)
            if op in ("&&", "||"):
                x, y = convert(a, "bool"), convert(b, "bool")
                return "bool", (x & y) if op == "&&" else (x | y)
            t = arithmetic(a[0], b[0])
            x, y = convert(a, t), convert(b, t)
            if op in ("<", "<=", ">", ">=", "==", "!="):
                return "bool", {"<": np.less, "<=": np.less_equal, ">": np.greater, ">=": np.greater_equal,
                                "==": np.equal, "!=": np.not_equal}[op](x, y)  # fmt: skip
            if CTYPES[t][1] == 0:
                if op == "%":
                    raise Skip("% of a floating-point value does not compile")
                with np.errstate(all="ignore"):
                    return t, {"+": np.add, "-": np.subtract, "*": np.multiply, "/": np.divide}[op](x, y).astype(x.dtype)
            pairs = [(int(p), int(q)) for p, q in zip(x, y)]
            if op == "/":
                return integer_result(t, [truncating(p, q) for p, q in pairs])
            if op == "%":
                return integer_result(t, [p - truncating(p, q) * q for p, q in pairs])
            return integer_result(t, [{"+": p + q, "-": p - q, "*": p * q}[op] for p, q in pairs])
        case ("cond", c, then, otherwise):
            condition = convert(reference(c, data), "bool")
            a, b = reference(then, data), reference(otherwise, data)
            t = a[0] if a[0] == b[0] else arithmetic(a[0], b[0])
            return t, np.where(condition, convert(a, t), convert(b, t)).astype(CTYPES[t][0])
        case ("call", function, args):
            return call(function, [reference(a, data) for a in args])
    raise AssertionError(node)


def call(function: str, args: list[tuple[str, np.ndarray]]) -> tuple[str, np.ndarray]:
    (t, values), *rest = args
    floating = t if t in ("float", "double") else "double"  # cmath's overloads: integers as double
    if function == "abs":
        if CTYPES[t][1] == 0:
            return t, np.abs(values)
        p = promoted(t)
        return integer_result(p, [abs(int(v)) if CTYPES[p][2] else int(v) for v in convert((t, values), p)])
    if function in ("min", "max"):
        other = rest[0]
        common = t if t == other[0] else arithmetic(t, other[0])
        x, y = convert((t, values), common), convert(other, common)
        # std::min(a, b) is (b < a) ? b : a; std::max(a, b) is (a < b) ? b : a (NaN as C++ has it)
        chosen = np.where(y < x, y, x) if function == "min" else np.where(x < y, y, x)
        return common, chosen.astype(CTYPES[common][0])
    if function in ("isnan", "isfinite"):
        x = convert((t, values), floating)
        return "bool", np.isnan(x) if function == "isnan" else np.isfinite(x)
    if function == "fmod":
        kind = "float" if t == "float" and rest[0][0] == "float" else "double"
        with np.errstate(all="ignore"):
            return kind, np.fmod(convert((t, values), kind), convert(rest[0], kind))
    x = convert((t, values), floating)
    with np.errstate(all="ignore"):
        if function == "round":  # half away from zero, exactly: the truncation plus one where |x - trunc| >= 1/2
            r = np.trunc(x)
            return floating, (r + np.where(np.abs(x - r) >= 0.5, np.sign(x), 0)).astype(x.dtype)
        return floating, getattr(np, function)(x)


@pytest.fixture(scope="module")
def random_ntuple(tmp_path_factory):
    data = branches(N, np.random.default_rng(1000))
    return write_ntuple(tmp_path_factory.mktemp("random") / "random.root", data, "tree"), data


@pytest.mark.parametrize("seed", range(3))
def test_random_expressions_equal_an_independent_numpy_evaluation(seed, random_ntuple):
    """60 random expressions a seed through the compiled evaluator, the first 5 also through
    RDataFrame (whose just-in-time compilation costs about a second a column)."""
    path, data = random_ntuple
    rng = np.random.default_rng(seed)
    types = {name: ROOT_TYPES[t] for name, t in BRANCH_TYPES.items()}
    cases = []
    while len(cases) < 60:
        tree = draw(rng, int(rng.integers(1, 6)))
        try:
            want = reference(tree, data)
        except Skip:
            continue
        text = render(tree, rng)[0]
        cases.append((f"c{len(cases)}", text, want))
    exprs = tuple(parse_columns([f"{name}={text}" for name, text, _ in cases], None))
    kinds = expressions.result_types(exprs, types)
    assert kinds is not None, "the compiled evaluator refused grammar expressions"
    compiled = mapped.read_view(path, "tree", exprs, kinds, types, N, False, ())
    frame = mapped._read_frame(path, "tree", exprs[:5], tuple(kinds)[:5], tuple(sorted(types)), N)
    for name, text, (t, values) in cases:
        for how, got in (("compiled", compiled[name]), ("RDataFrame", frame.get(name))):
            if got is None:
                continue
            assert got.dtype == np.dtype(CTYPES[t][0]), f"{how}: {text}: {got.dtype} is not C++'s {t}"
            np.testing.assert_array_equal(got, values, err_msg=f"{how}: {text}")

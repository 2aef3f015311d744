"""parse_json's quick check of a parsed document (readers._tree_ok) agrees with the field-by-field
walk that names a problem, on random documents with bad numbers and deep nesting here and there."""

from __future__ import annotations

import json
import random

import pytest

from pnetviz.io import jsonoutline, readers


def walk_error(doc) -> str | None:
    """The field-by-field walk written out (every node, with its field name): the first problem's message."""
    stack = [(doc, "", 0)]
    while stack:
        value, where, depth = stack.pop()
        if isinstance(value, readers._BadNumber):
            return f"{where or 'the top level'}: bad {value.text}"
        if isinstance(value, (dict, list)):
            if depth >= readers.MAX_DEPTH:
                return "too deep"
            items = value.items() if isinstance(value, dict) else enumerate(value)
            stack.extend((v, f"{where}/{k}", depth + 1) for k, v in items)
    return None


def random_doc(rng: random.Random, depth: int, bad: float, deep: int):
    """A random JSON value: containers down to `deep` levels, numbers, strings, and (with
    probability `bad` per leaf) a literal no float holds."""
    if depth < deep and rng.random() < 0.6:
        children = [random_doc(rng, depth + 1, bad, deep) for _ in range(rng.randint(0, 2 if depth > 3 else 6))]
        if rng.random() < 0.5:
            return children
        return {f"k{i}": child for i, child in enumerate(children)}
    if rng.random() < bad:
        return rng.choice(["1e400", "-1e999", "NaN", "9" * 500])
    return rng.choice([1.5, -2, 0, "text", True, None, 1e300, [], {}])


def test_quick_check_agrees_with_the_walk():
    outcomes = {"fine": 0, "too deep": 0, "bad": 0}
    for seed in range(300):
        rng = random.Random(seed)
        deep = rng.choice([3, 8, readers.MAX_DEPTH - 1, readers.MAX_DEPTH, readers.MAX_DEPTH + 1, readers.MAX_DEPTH + 3])
        doc = {"top": random_doc(rng, 1, rng.choice([0.0, 0.0, 0.01, 0.1]), deep)}
        nest = doc
        for _ in range(deep - 1 if rng.random() < 0.5 else 0):  # a chain down to `deep` containers, sometimes
            nest["next"] = {"x": rng.random()}
            nest = nest["next"]
        text = json.dumps(doc).replace('"1e400"', "1e400").replace('"-1e999"', "-1e999").replace('"NaN"', "NaN")
        text = text.replace(f'"{"9" * 500}"', "9" * 500)
        parsed = json.loads(text, parse_int=readers._parse_int, parse_float=readers._parse_float,
                            parse_constant=readers._BadNumber)  # fmt: skip
        problem = walk_error(parsed)
        assert readers._tree_ok(parsed) is (problem is None)
        if problem is None:
            assert readers.parse_json(text.encode(), "f.json") == parsed
        else:
            with pytest.raises(readers.BadFile):
                readers.parse_json(text.encode(), "f.json")
        outcomes["fine" if problem is None else "too deep" if problem == "too deep" else "bad"] += 1
    assert min(outcomes.values()) >= 20, outcomes


def test_quick_check_cases():
    bad = readers._BadNumber("1e400")
    assert readers._tree_ok({"a": [1.0, 2, "x", None, True, {"b": []}]})
    assert not readers._tree_ok(bad) and not readers._tree_ok([1.0, [2.0, bad]]) and not readers._tree_ok({"a": {"b": bad}})
    chain = leaf = []
    for _ in range(readers.MAX_DEPTH - 1):
        leaf.append([])
        leaf = leaf[0]
    assert readers._tree_ok(chain)  # MAX_DEPTH containers: depths 0 .. MAX_DEPTH - 1
    leaf.append([])
    assert not readers._tree_ok(chain)
    assert readers._tree_ok(1.0) and readers._tree_ok("x")


def _outcome(fn, data: bytes, finite: bool) -> str | None:
    """None if `fn` accepts `data`, else the BadFile message."""
    try:
        fn(data, "f.json", finite=finite)
    except readers.BadFile as err:
        return str(err)
    return None


EDGE_LITERALS = ["1e400", "-1e999", "1E400", "2E+999", "1e+400", "1E+308", "1e308", "1.7e308", "1e-400", "5e-324", "1e99", "9" * 99, "9" * 100,
                 "9" * 309, "9" * 401, "9" * 5000, "1" + "0" * 250 + "e99", "0." + "0" * 150 + "1", "NaN", "-Infinity",
                 "Infinity", "1.5", "-0", "12345678901234567890"]  # fmt: skip


@pytest.mark.parametrize("finite", [True, False])
def test_check_json_accepts_and_refuses_as_parse_json(finite):
    """check_json (verifying a staged file) raises exactly where parse_json does, with its message:
    every edge literal of float's and int's range, truncations, bad UTF-8, nesting at the limit."""
    cases = [f'{{"a": [1.0, {lit}, "x"]}}'.encode() for lit in EDGE_LITERALS]
    cases += [f'{{"name e400 {"0" * 120}": 1.5}}'.encode()]  # the patterns inside a string only: accepted
    full = json.dumps({"a": [0.1 * i for i in range(50)], "b": {"c": None, "d": "t\u00e9xt"}}).encode()
    cases += [full[:cut] for cut in range(0, len(full), 7)] + [full, b"\xff{}", b'{"a": "\xc3"}']
    cases += [b"[" * n + b"]" * n for n in (readers.MAX_DEPTH - 1, readers.MAX_DEPTH, readers.MAX_DEPTH + 1, 3000)]
    refused = 0
    for data in cases:
        expected = _outcome(readers.parse_json, data, finite)
        assert _outcome(jsonoutline.check_json, data, finite) == expected, data[:80]
        refused += expected is not None
    assert 20 <= refused < len(cases)  # both outcomes are exercised


def test_check_json_agrees_on_random_documents():
    for seed in range(200):
        rng = random.Random(seed)
        doc = {"top": random_doc(rng, 1, rng.choice([0.0, 0.05]), rng.choice([3, readers.MAX_DEPTH, readers.MAX_DEPTH + 2]))}
        text = json.dumps(doc).replace('"1e400"', "1e400").replace('"-1e999"', "-1e999").replace('"NaN"', "NaN")
        data = text.replace(f'"{"9" * 500}"', "9" * 500).encode()
        for finite in (True, False):
            assert _outcome(jsonoutline.check_json, data, finite) == _outcome(readers.parse_json, data, finite)


def _string(rng: random.Random) -> str:
    """Text full of what a byte scan could take for structure: brackets, quotes, backslashes."""
    return "".join(rng.choice(["[", "]", "{", "}", '"', "\\", '\\"', "a", "\u00e9", ","]) for _ in range(rng.randint(0, 12)))


def test_nesting_read_from_the_bytes_as_the_walk():
    """jsonoutline.nesting_ok (depth from the bytes: brackets outside strings) agrees with readers._tree_ok
    around the limit, with strings holding many closing brackets (a count that ignored strings would
    miss a too-deep chain) or opening ones (and would refuse a fine one), escaped quotes and backslashes."""
    outcomes = set()
    for seed in range(300):
        rng = random.Random(seed)
        deep = rng.choice([3, readers.MAX_DEPTH - 1, readers.MAX_DEPTH, readers.MAX_DEPTH + 1])
        doc = leaf = {"s": _string(rng)}
        for level in range(deep - 1):
            child = {"k": _string(rng), "t": rng.choice(["]" * 70, "[" * 70, "}{", '\\"]'])} if level % 2 else []
            if isinstance(leaf, dict):
                leaf["next"] = child
            else:
                leaf.extend([_string(rng), child])
            leaf = child
        data = json.dumps(doc, ensure_ascii=rng.random() < 0.5).encode()
        expected = readers._tree_ok(json.loads(data))
        assert jsonoutline.nesting_ok(data) is expected, seed
        assert (_outcome(jsonoutline.check_json, data, True) is None) is expected
        outcomes.add(expected)
    assert outcomes == {True, False}
    assert jsonoutline.nesting_ok(b"[" * 64 + b'"[\\\\"' + b"]" * 64)  # the quote after an escaped backslash ends the string
    assert not jsonoutline.nesting_ok(b"[" * 65 + b'"\\"]"' + b"]" * 65)  # an escaped quote does not

"""The tokens of the `--column` expression grammar (`pnetviz.io.grammar`): numbers, names and
operators, each with its 1-based position in EXPR; a character that starts no token of the
grammar is a GrammarError that says what it is (a block, a string literal, member access, ...)."""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass

OPERATORS = ("<=", ">=", "==", "!=", "&&", "||", "<", ">", "+", "-", "*", "/", "%", "!", "?", ":", "(", ")", ",")
# what a refused token is, for the message (the longest that matches is reported)
REFUSED = {
    "//": "a comment", "/*": "a comment", "->": "member access", "::": "a namespace or class scope",
    "++": "an increment", "--": "a decrement (write - -x for a double minus)", "<<": "a bit shift",
    ">>": "a bit shift", '"': "a string literal", "'": "a character literal", "#": "a preprocessor directive",
    ".": "member access or an interpreter command", ";": "a statement separator", "{": "a block", "}": "a block",
    "[": "a subscript or lambda", "]": "a subscript or lambda", "=": "an assignment (compare with ==)",
    "&": "a bitwise operator or address (logical and is &&)", "|": "a bitwise operator (logical or is ||)",
    "^": "a bitwise operator", "~": "a bitwise operator", "\\": "a line continuation or escape",
}

_FLOAT = r"(?:(?:[0-9]+\.[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?|[0-9]+[eE][+-]?[0-9]+)(?P<fs>[fF]?)"
_INT = r"(?P<digits>[0-9]+)(?P<is>[uU](?:ll|LL|[lL])?|(?:ll|LL|[lL])[uU]?)?"
_NUMBER = re.compile(rf"(?P<float>{_FLOAT})|(?P<int>{_INT})")
_IDENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_WORD = re.compile(r"[A-Za-z0-9_.]+")
_FLOAT_MAX = 3.4028234663852886e38
DIGITS = "0123456789"


class GrammarError(Exception):
    """Where and why a text is not in the grammar: `message` at 1-based `position`."""

    def __init__(self, message: str, position: int) -> None:
        super().__init__(message)
        self.message, self.position = message, position


@dataclass(frozen=True, slots=True)
class Token:
    kind: str  # "number", "name", "op" or "end"
    text: str
    position: int  # 1-based character of EXPR
    cpp: str = ""  # a number's C++ literal (canonical)


def tokenize(text: str) -> Iterator[Token]:
    """The tokens of `text`, ending with an "end" token; GrammarError at the first character that
    starts no token of the grammar."""
    i = 0
    while i < len(text):
        char = text[i]
        if char == " ":
            i += 1
            continue
        if char in DIGITS or (char == "." and text[i + 1 : i + 2] in tuple(DIGITS)):
            token, i = _number(text, i)
        elif char.isascii() and (char.isalpha() or char == "_"):
            word = _IDENT.match(text, i).group()
            token, i = Token("name", word, i + 1), i + len(word)
        else:
            token = _operator(text, i)
            i += len(token.text)
        yield token
    yield Token("end", "", len(text) + 1)


def _operator(text: str, i: int) -> Token:
    """The operator at `i` (the longest that matches); GrammarError for a refused or unknown one."""
    allowed = max((op for op in OPERATORS if text.startswith(op, i)), key=len, default="")
    refused = max((op for op in REFUSED if text.startswith(op, i)), key=len, default="")
    if len(allowed) > len(refused):
        return Token("op", allowed, i + 1)
    if refused:
        raise GrammarError(f"{show(refused)} is {REFUSED[refused]}, not part of the grammar", i + 1)
    raise GrammarError(f"{show(text[i])} is not part of the grammar", i + 1)


def _number(text: str, i: int) -> tuple[Token, int]:
    match = _NUMBER.match(text, i)
    end = match.end() if match else i
    if match is None or (end < len(text) and (text[end].isascii() and (text[end].isalnum() or text[end] in "_."))):
        word = _WORD.match(text, i).group()
        raise GrammarError(f"{show(word)} is not a decimal number of the grammar (e.g. 5, 0.5, 1e-3, 0.5f)", i + 1)
    lexeme = match.group()
    if match.group("float"):
        body = lexeme.rstrip("fF")
        value = float(body)
        single = bool(match.group("fs"))
        if value != value or value == float("inf") or (single and abs(value) > _FLOAT_MAX):
            raise GrammarError(f"{show(lexeme)} is out of the range of a {'float' if single else 'double'}", i + 1)
        cpp = body.lower() + ("f" if single else "")
        return Token("number", lexeme, i + 1, cpp), end
    digits, suffix = match.group("digits"), (match.group("is") or "").lower()
    if len(digits) > 1 and digits.startswith("0"):
        raise GrammarError(f"{show(lexeme)} starts with 0 (an octal number in C++); write it without the leading 0",
                           i + 1)  # fmt: skip
    limit = 2**64 - 1 if "u" in suffix else 2**63 - 1
    if len(digits) > 20 or int(digits) > limit:
        raise GrammarError(f"{show(lexeme[:24])} is larger than the largest integer ({limit})", i + 1)
    return Token("number", lexeme, i + 1, digits + suffix), end


def show(text: str) -> str:
    text = text if len(text) <= 40 else text[:37] + "..."
    return f'"{text}"' if "'" in text else f"'{text}'"

"""The one grammar of `--column NAME=EXPR` / `--columns FILE` expressions: data, never code.

Every mapped expression, whatever its source (the command line, a `--columns` file, the Python
API, a remembered option), is tokenized and parsed here before anything is compiled; pnetviz then
writes the C++ from the parsed tree (`to_cpp`), never from the user's text. Anything outside the
grammar is one InputError naming the token, its position in EXPR and the option.

    expression := condition
    condition  := or ( "?" expression ":" condition )?          right-associative, as in C++
    or         := and ( "||" and )*
    and        := equality ( "&&" equality )*
    equality   := relation ( ( "==" | "!=" ) relation )*
    relation   := sum ( ( "<" | "<=" | ">" | ">=" ) sum )?       not chained: a < b < c is refused
    sum        := product ( ( "+" | "-" ) product )*
    product    := unary ( ( "*" | "/" | "%" ) unary )*
    unary      := ( "-" | "+" | "!" )* primary
    primary    := NUMBER | "true" | "false" | BRANCH | FUNCTION "(" expression ( "," expression )* ")"
                | "(" expression ")"

    BRANCH     := [A-Za-z_][A-Za-z0-9_]*   (not a C++ keyword, not a function name)
    NUMBER     := decimal integer: 0 or [1-9][0-9]*, optional C++ suffix u, l, ll, ul, ull, lu, llu
                                   (any case; a leading 0 would be octal in C++ and is refused)
                | decimal floating: 1.5  .5  1.  1e-3  2.5E+4, optional suffix f (float; else double)
                  (no hexadecimal, no long double)

FUNCTIONS below lists the allowed functions with their C++ form; precedence, associativity,
integer division and modulo (truncation), the usual arithmetic conversions (bool -> int, int ->
float -> double, signed -> unsigned) and short-circuiting `&&`, `||`, `?:` are those of C++, so a
column has the type and values RDataFrame's `Define` gives for the same text. Three differences,
all where C++ itself has none to offer: an integer division or modulo by zero is an error (C++:
undefined, a crash), `min`/`max` of two types compare in their common type (C++'s std::min does
not compile), `abs` of an unsigned integer is the value (C++'s std::abs does not compile).

Bounds: an expression has at most MAX_LENGTH characters and nests at most MAX_DEPTH levels (in
brackets, operators and calls), so no input makes the parser, the C++ writer or the compiler
recurse without end.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterator
from dataclasses import dataclass

from pnetviz.errors import InputError
from pnetviz.io.tokens import GrammarError, Token, show as _show, tokenize  # noqa: F401 - Token for the parser

MAX_LENGTH = 2000
MAX_DEPTH = 64
HELP = ("Fix: write EXPR in the expression grammar (branches, numbers, true/false, + - * / %, comparisons, "
        "&& || !, ?:, parentheses, the functions of docs/inputs.md, 'Your own ntuple'); for anything else "
        "write the branch yourself with RDataFrame")  # fmt: skip

# name -> (number of arguments, C++ function); pnetviz_fn:: are the few of HELPERS below
FUNCTIONS: dict[str, tuple[int, str]] = {
    "abs": (1, "pnetviz_fn::abs"),
    "min": (2, "pnetviz_fn::min"),
    "max": (2, "pnetviz_fn::max"),
    "pow": (2, "std::pow"),
    "sqrt": (1, "std::sqrt"),
    "cbrt": (1, "std::cbrt"),
    "hypot": (2, "std::hypot"),
    "exp": (1, "std::exp"),
    "log": (1, "std::log"),
    "log10": (1, "std::log10"),
    "log2": (1, "std::log2"),
    "sin": (1, "std::sin"),
    "cos": (1, "std::cos"),
    "tan": (1, "std::tan"),
    "asin": (1, "std::asin"),
    "acos": (1, "std::acos"),
    "atan": (1, "std::atan"),
    "atan2": (2, "std::atan2"),
    "sinh": (1, "std::sinh"),
    "cosh": (1, "std::cosh"),
    "tanh": (1, "std::tanh"),
    "floor": (1, "std::floor"),
    "ceil": (1, "std::ceil"),
    "round": (1, "std::round"),
    "trunc": (1, "std::trunc"),
    "fmod": (2, "std::fmod"),
    "isnan": (1, "std::isnan"),
    "isfinite": (1, "std::isfinite"),
}

# Declared once per process before any generated expression is compiled (fixed text, no user input).
HELPERS = r"""
#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <stdexcept>
#include <type_traits>
namespace pnetviz_fn {
template <class T> inline auto abs(T x) {
  if constexpr (std::is_unsigned_v<T>) return +x;  // bool and unsigned: the value, promoted as std::abs would
  else return std::abs(x);
}
template <class A, class B> inline auto min(A a, B b) { using C = std::common_type_t<A, B>; return std::min<C>(a, b); }
template <class A, class B> inline auto max(A a, B b) { using C = std::common_type_t<A, B>; return std::max<C>(a, b); }
template <class A, class B> inline auto quot(A a, B b) {
  using C = decltype(a / b);
  if constexpr (std::is_integral_v<A> && std::is_integral_v<B>) {
    if (C(b) == C(0)) throw std::domain_error("integer division by zero");
    if constexpr (std::is_signed_v<C>) {
      if (C(b) == C(-1)) return C(std::make_unsigned_t<C>(0) - std::make_unsigned_t<C>(a));  // wraps, no trap
    }
  }
  return C(a / b);
}
template <class A, class B> inline auto rem(A a, B b) {
  using C = decltype(a % b);
  if (C(b) == C(0)) throw std::domain_error("integer modulo by zero");
  if constexpr (std::is_signed_v<C>) {
    if (C(b) == C(-1)) return C(0);
  }
  return C(a % b);
}
}
"""

KEYWORDS = frozenset("""
alignas alignof and and_eq asm auto bitand bitor bool break case catch char char8_t char16_t char32_t class compl
concept const consteval constexpr constinit const_cast continue co_await co_return co_yield decltype default delete
do double dynamic_cast else enum explicit export extern float for friend goto if inline int long mutable namespace
new noexcept not not_eq nullptr operator or or_eq private protected public register reinterpret_cast requires
return short signed sizeof static static_assert static_cast struct switch template this thread_local throw try
typedef typeid typename union unsigned using virtual void volatile wchar_t while xor xor_eq
""".split())  # true and false are the boolean literals

# binary operators by precedence, loosest first (C++'s)
LEVELS = (("||",), ("&&",), ("==", "!="), ("<", "<=", ">", ">="), ("+", "-"), ("*", "/", "%"))
LEVEL = {op: level for level, ops in enumerate(LEVELS) for op in ops}
RELATION = LEVEL["<"]

# the parsed tree: every node knows its depth (bounded by MAX_DEPTH)
@dataclass(frozen=True, slots=True)
class Number:
    cpp: str  # the C++ literal, canonical: digits, '.', exponent, lower-case suffix
    depth: int = 1


@dataclass(frozen=True, slots=True)
class Boolean:
    value: bool
    depth: int = 1


@dataclass(frozen=True, slots=True)
class Name:
    name: str
    depth: int = 1


@dataclass(frozen=True, slots=True)
class Unary:
    op: str
    operand: Node
    depth: int


@dataclass(frozen=True, slots=True)
class Binary:
    op: str
    left: Node
    right: Node
    depth: int


@dataclass(frozen=True, slots=True)
class Conditional:
    condition: Node
    then: Node
    otherwise: Node
    depth: int


@dataclass(frozen=True, slots=True)
class Call:
    function: str
    args: tuple[Node, ...]
    depth: int


Node = Number | Boolean | Name | Unary | Binary | Conditional | Call


def parse(text: str, where: str) -> Node:
    """The tree of `text`, or one InputError: '<where>: <token> at position <n> of the expression ...'."""
    try:
        return parse_tree(text)
    except GrammarError as err:
        raise InputError(f"{where}: at position {err.position} of the expression, {err.message}. {HELP}.") from None


@functools.lru_cache(maxsize=4096)
def parse_tree(text: str) -> Node:
    """The tree of `text`; GrammarError otherwise (cached: every reader re-parses what it compiles)."""
    if len(text) > MAX_LENGTH:
        raise GrammarError(f"the expression is {len(text)} characters long, more than {MAX_LENGTH}", MAX_LENGTH + 1)
    return _Parser(tokenize(text)).parse()


class _Parser:
    """Recursive descent over the tokens; `nesting` counts the open brackets, calls, operators and
    conditionals so that no input recurses past MAX_DEPTH."""

    def __init__(self, tokens: Iterator[Token]) -> None:
        # tokens are read as the parse goes: the first error in the text is the one reported
        self.tokens, self.nesting = tokens, 0
        self.token = next(tokens)

    def take(self) -> Token:
        token = self.token
        if token.kind != "end":
            self.token = next(self.tokens)
        return token

    def parse(self) -> Node:
        node = self.expression()
        if self.token.kind != "end":
            raise self.unexpected("an operator")
        return node

    def unexpected(self, wanted: str) -> GrammarError:
        """The error at the current token, where `wanted` was expected."""
        token = self.token
        if token.kind == "end":
            return GrammarError(f"the expression ends where {wanted} is expected", token.position)
        if wanted == "an operator" and token.text in (")", ","):  # after a whole expression
            problem = "closes no '('" if token.text == ")" else "separates nothing: ',' is only for a function's arguments"
            return GrammarError(f"'{token.text}' {problem}", token.position)
        return GrammarError(f"{_show(token.text)} is unexpected here ({wanted} expected)", token.position)

    def nested(self, position: int) -> None:
        self.nesting += 1
        if self.nesting > MAX_DEPTH:
            raise GrammarError(f"the expression nests deeper than {MAX_DEPTH} levels", position)

    def node(self, cls: type, position: int, *fields: object) -> Node:
        children = [c for f in fields for c in (f if isinstance(f, tuple) else (f,)) if hasattr(c, "depth")]
        depth = 1 + max(c.depth for c in children)
        if depth > MAX_DEPTH:
            raise GrammarError(f"the expression nests deeper than {MAX_DEPTH} levels", position)
        return cls(*fields, depth=depth)

    def expression(self) -> Node:
        condition = self.binary(0)
        if self.token.kind != "op" or self.token.text != "?":
            return condition
        question = self.take()
        self.nested(question.position)
        then = self.expression()
        if self.token.text != ":":
            raise self.unexpected(f"the ':' of the '?' at position {question.position}")
        self.take()
        otherwise = self.expression()
        self.nesting -= 1
        return self.node(Conditional, question.position, condition, then, otherwise)

    def binary(self, lowest: int) -> Node:
        """Binary operators by precedence climbing: the operators of LEVEL `lowest` and tighter."""
        left = self.unary()
        compared = False  # `left` is a comparison built here (a < b < c is refused)
        while self.token.kind == "op" and LEVEL.get(self.token.text, -1) >= lowest:
            op = self.take()
            level = LEVEL[op.text]
            if compared and level == RELATION:
                raise GrammarError(f"{_show(op.text)} chains a comparison (C++ would compare a bool); "
                                   "write a < b && b < c", op.position)  # fmt: skip
            right = self.binary(level + 1)
            left = self.node(Binary, op.position, op.text, left, right)
            compared = level == RELATION
        return left

    def unary(self) -> Node:
        ops = []
        while self.token.kind == "op" and self.token.text in ("-", "+", "!"):
            ops.append(self.take())
        node = self.primary()
        for op in reversed(ops):
            node = self.node(Unary, op.position, op.text, node)
        return node

    def primary(self) -> Node:
        token = self.token
        if token.kind == "number":
            self.take()
            return Number(token.cpp)
        if token.kind == "name":
            return self.name()
        if token.text == "(":
            self.take()
            self.nested(token.position)
            node = self.expression()
            if self.token.text != ")":
                if self.token.kind == "end":
                    raise GrammarError(f"the '(' at position {token.position} is never closed", self.token.position)
                raise self.unexpected(f"')' closing the '(' at position {token.position}")
            self.take()
            self.nesting -= 1
            return node
        raise self.unexpected("a branch, a number or '('")

    def name(self) -> Node:
        token = self.take()
        word = token.text
        if word in ("true", "false"):
            return Boolean(word == "true")
        if word in KEYWORDS:
            raise GrammarError(f"{_show(word)} is a C++ keyword, not a branch (casts, types and statements are not part "
                               "of the grammar)", token.position)  # fmt: skip
        is_call = self.token.text == "(" and self.token.kind == "op"
        if word not in FUNCTIONS:
            if is_call:
                raise GrammarError(f"{_show(word)} is not one of the functions ({', '.join(FUNCTIONS)})", token.position)
            return Name(word)
        if not is_call:
            raise GrammarError(f"{_show(word)} is a function: call it as {word}(...)", token.position)
        opening = self.take()
        self.nested(opening.position)
        args = [self.expression()]
        while self.token.text == "," and self.token.kind == "op":
            self.take()
            args.append(self.expression())
        if self.token.text != ")":
            if self.token.kind == "end":
                raise GrammarError(f"the '(' of {word} at position {opening.position} is never closed", self.token.position)
            raise self.unexpected(f"',' or ')' of {word}")
        self.take()
        self.nesting -= 1
        arity = FUNCTIONS[word][0]
        if len(args) != arity:
            raise GrammarError(f"{_show(word)} takes {arity} argument{'s' * (arity > 1)}, not {len(args)}",
                               token.position)  # fmt: skip
        return self.node(Call, token.position, word, tuple(args))


def to_cpp(node: Node, name: Callable[[str], str] = str) -> str:
    """The C++ of `node`, fully parenthesised, each branch written as `name(branch)`: the only
    text pnetviz compiles for an expression (needs HELPERS declared)."""
    match node:
        case Number(cpp=cpp):
            return cpp
        case Boolean(value=value):
            return "true" if value else "false"
        case Name(name=branch):
            return name(branch)
        case Unary(op=op, operand=operand):
            return f"({op}{to_cpp(operand, name)})"
        case Binary(op="/", left=left, right=right):
            return f"pnetviz_fn::quot({to_cpp(left, name)}, {to_cpp(right, name)})"
        case Binary(op="%", left=left, right=right):
            return f"pnetviz_fn::rem({to_cpp(left, name)}, {to_cpp(right, name)})"
        case Binary(op=op, left=left, right=right):
            return f"({to_cpp(left, name)} {op} {to_cpp(right, name)})"
        case Conditional(condition=c, then=t, otherwise=o):
            return f"({to_cpp(c, name)} ? {to_cpp(t, name)} : {to_cpp(o, name)})"
        case Call(function=function, args=args):
            return f"{FUNCTIONS[function][1]}({', '.join(to_cpp(a, name) for a in args)})"
    raise TypeError(f"not an expression node: {node!r}")


def walk(node: Node) -> Iterator[Node]:
    """Every node of the tree `node`, each before its operands, operands left to right."""
    stack = [node]
    while stack:
        item = stack.pop()
        yield item
        match item:
            case Unary(operand=operand):
                stack.append(operand)
            case Binary(left=left, right=right):
                stack += (right, left)
            case Conditional(condition=c, then=t, otherwise=o):
                stack += (o, t, c)
            case Call(args=args):
                stack += reversed(args)


def names(node: Node) -> list[str]:
    """The branch names `node` reads, in order of first appearance."""
    return list(dict.fromkeys(item.name for item in walk(node) if isinstance(item, Name)))


def divides(node: Node) -> bool:
    """Whether `node` has an integer-capable division or modulo (`/`, `%`) anywhere."""
    return any(isinstance(item, Binary) and item.op in ("/", "%") for item in walk(node))


def declare_helpers() -> None:
    """HELPERS declared to cling once per process (before the first generated expression)."""
    _declare()


@functools.cache
def _declare() -> None:
    from pnetviz.rootenv import root  # noqa: PLC0415

    if not root().gInterpreter.Declare(HELPERS):
        raise RuntimeError("cling refused pnetviz's expression helpers")


def parsed(name: str, expr: str) -> object:
    """The parsed tree of the mapped column `name`'s `expr` (InputError naming the option if it is
    not in the grammar: a mapping that did not come through `parse_columns` is checked here)."""
    return parse(expr, option_text(name, expr))


def used_names(name: str, expr: str) -> list[str]:
    """The names the mapped column `name`'s `expr` reads (branches, RDataFrame columns), from its tree."""
    return names(parsed(name, expr))


def option_text(name: str, expr: str) -> str:
    """How a mapped column is named in messages: `--column NAME=EXPR` (a long EXPR shortened)."""
    return f"--column {name}={_short(expr)}"


def _short(text: str, limit: int = 100) -> str:
    """`text` for a message: at most `limit` characters (a long one ends in '...')."""
    return text if len(text) <= limit else text[: limit - 3] + "..."

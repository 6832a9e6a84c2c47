"""The embedded test model: deterministic, offline answers for ``/v1/responses``, and their event stream.

Pure (no Flask, no I/O). Same context in, same output out (only ids and timestamps differ), so runs are
reproducible and a streamed answer ends with exactly the response a non-streamed one returns.

How it answers (the context is ``previous input + previous output + input``, spec 1.8):

* **The current turn** is the last user message, or the run of ``function_call_output`` items after it.
  A context with neither is refused (there is nothing to answer).
* **A tool call** when tools are offered and ``tool_choice`` is not ``none``: always under ``required``,
  a named function or ``allowed_tools`` in ``required`` mode; under ``auto`` only to answer a user message
  (after tool results it answers in text). Only tools ``tool_choice`` allows are called (a hard constraint,
  spec: allowed_tools). Which tool: those whose names the user message mentions, in order of mention (all of
  them when ``parallel_tool_calls`` is not false, at most ``max_tool_calls``), else the one whose name and
  description share most words with the message, else the first allowed tool.
* **Arguments** are built from the tool's ``parameters`` (:func:`build_instance`: ``const``, then the first
  ``enum`` value, ``default``, ``examples``, then a value of the type meeting its bounds; required members
  filled; local ``$ref``/``$defs``, ``allOf`` merged, ``anyOf``/``oneOf`` branches tried in turn) and checked
  with ``webapp.core.schema``. ``pattern`` is read as ECMA-262 by the same engine as ``webapp.core.schema``, within its
  time budget, so a catastrophic pattern costs about a second, not minutes of a held interpreter. What is built
  is bounded too: at most :data:`BUILD_BUDGET` units (each value one, each string character one more) and
  ``PATTERN_BUDGET_SECONDS`` in all, checked before anything is allocated, so ``minLength: 100000000`` or
  ``minItems: 1000000`` is refused at once instead of building it. When no valid instance is found (in time,
  within the budget) the response ``failed`` (``model_error``).
* **A text reply** otherwise: ``You said: "<the user text>"`` (first 200 characters) with one note per
  attached image or file, or ``Tool results: <name> (<call_id>) returned: <output>.``; under
  ``text.format`` ``json_schema`` the reply is a JSON instance of that schema.
* **Token counts are approximate**: a token is a run of word characters or one other non-space character
  (:func:`count_tokens`); an image counts 85 tokens, a file one token per 4 bytes. ``max_output_tokens``
  cuts the output at that many tokens: the cut item is ``incomplete``, it is the last one, and the response
  is ``incomplete`` with ``incomplete_details.reason = "max_output_tokens"`` (spec, Items: state machine).
"""

from __future__ import annotations

import json
import math
import re
import secrets
import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any
from urllib.parse import unquote

import regex

from webapp.core.items import FUNCTION_CALL, MESSAGE
from webapp.core.json import pointer as jp
from webapp.core.responses.models import (
    MISSING,
    OBJECT_KEYWORDS,
    CreateRequest,
    RequestError,
    Tool,
    ToolChoice,
    function_call_item,
    message_item,
    output_text_part,
    response_resource,
    usage,
)
from webapp.core.schema import SchemaInvalid, compile_pattern, compile_schema
from webapp.core.schema import patterns as schema_patterns
from webapp.core.stream import vocabulary as v

MODEL_NAME = "openresponses-test"
QUOTE_LIMIT = 200  # characters of the user's text quoted back
IMAGE_TOKENS = 85
_TOKEN = re.compile(r"\w+|[^\w\s]")
_WORD = re.compile(r"[a-z0-9]+")


# ------------------------------------------------------------------------------------------------ tokens


def count_tokens(text: str) -> int:
    """Approximate token count: runs of word characters, and every other non-space character, count one."""
    return len(_TOKEN.findall(text))


def token_chunks(text: str) -> list[str]:
    """``text`` split after each token (the spaces before a token travel with it); ``"".join`` gives it back.

    These are the ``delta`` strings of a stream; an empty text gives no chunk.
    """
    chunks: list[str] = []
    start = 0
    for match in _TOKEN.finditer(text):
        chunks.append(text[start : match.end()])
        start = match.end()
    if start < len(text):  # trailing spaces
        if chunks:
            chunks[-1] += text[start:]
        else:
            chunks.append(text[start:])
    return chunks


#: Tokens per streamed ``delta``: the spec allows any chunking; two tokens halve the frames a stream costs
#: (encoding, bytes, client parsing) while a reader still sees the text arrive word by word.
DELTA_TOKENS = 2


def delta_chunks(text: str, size: int = DELTA_TOKENS) -> list[str]:
    """:func:`token_chunks` joined ``size`` at a time (the last group may be shorter); ``"".join`` gives
    ``text`` back, an empty text gives no chunk. :raises ValueError: ``size`` < 1."""
    if size < 1:
        raise ValueError(f"size must be at least 1, got {size}")
    chunks = token_chunks(text)
    return ["".join(chunks[i : i + size]) for i in range(0, len(chunks), size)]


def truncate_tokens(text: str, budget: int) -> str:
    """The prefix of ``text`` holding its first ``budget`` tokens."""
    if budget <= 0:
        return ""
    for index, match in enumerate(_TOKEN.finditer(text), start=1):
        if index == budget:
            return text[: match.end()]
    return text


# ------------------------------------------------------------------------------------------------ values from schemas


class Unbuildable(Exception):
    """No instance of the schema could be built (a ``false`` schema, a ``$ref`` loop through required
    members, constraints the builder cannot meet)."""


class OverBudget(Unbuildable):
    """The schema asks for a value larger than :data:`BUILD_BUDGET`: no other variant is tried."""


class BuildTimeout(Unbuildable):
    """Testing candidate strings against a ``pattern`` used up the time budget (catastrophic backtracking):
    no other variant is tried."""


_FORMATS = {
    "date": "2026-01-15",
    "date-time": "2026-01-15T12:00:00Z",
    "time": "12:00:00Z",
    "email": "user@example.com",
    "idn-email": "user@example.com",
    "uri": "https://example.com/",
    "iri": "https://example.com/",
    "uri-reference": "https://example.com/",
    "hostname": "example.com",
    "idn-hostname": "example.com",
    "ipv4": "192.0.2.1",
    "ipv6": "2001:db8::1",
    "uuid": "00000000-0000-4000-8000-000000000000",
    "duration": "P1D",
    "json-pointer": "/a",
    "regex": ".*",
}
_MAX_DEPTH = 32
_GIVEN = object()  # no value given by const/enum/default/examples
#: The most the test model builds for one value: each value counts one unit and each character of a string one
#: more (so about this many bytes of JSON). A schema asking for more (``minLength``, ``minItems``, a ``pattern``
#: whose shortest match is longer) gets ``model_error`` naming the keyword.
BUILD_BUDGET = 65_536


class _Builder:
    """Builds one instance of a JSON Schema; ``variant`` picks which ``anyOf``/``oneOf`` branch to take;
    ``deadline`` (``time.monotonic()`` seconds) bounds the time spent matching ``pattern``."""

    def __init__(self, root: Any, variant: int, deadline: float) -> None:
        self.root = root
        self.variant = variant
        self.deadline = deadline
        self.left = BUILD_BUDGET  # units of BUILD_BUDGET not yet spent

    def spend(self, units: int, name: str, what: str) -> None:
        """Take ``units`` of the budget before building them.

        :raises OverBudget: they are more than is left; :raises BuildTimeout: the time budget ran out.
        """
        if units > self.left:
            raise OverBudget(
                f"{name!r} needs {what}, more than the test model builds (a value of at most "
                f"{BUILD_BUDGET:,} units: one per value, one per string character)"
            )
        self.left -= units
        if time.monotonic() > self.deadline:
            raise BuildTimeout(
                f"building a value for {name!r} took more than the "
                f"{schema_patterns.PATTERN_BUDGET_SECONDS:g} s the test model spends on one"
            )

    def matches(self, pattern: str, candidate: str, name: str) -> bool | None:
        """``pattern`` (ECMA-262, as ``webapp.core.schema`` reads it) found in ``candidate``; ``None`` when the
        pattern does not compile (validation then names the problem).

        :raises BuildTimeout: the build's time budget ran out (a pattern that backtracks catastrophically would
            otherwise hold the interpreter, and every concurrent request, for minutes).
        """
        try:
            compiled = compile_pattern(pattern)  # bounded in cost and cached by the schema layer
        except regex.error:
            return None
        try:
            return compiled.search(candidate, timeout=max(self.deadline - time.monotonic(), 0.001)) is not None
        except TimeoutError:
            raise BuildTimeout(
                f"pattern {json.dumps(pattern, ensure_ascii=False)} (for {name!r}) needs more than "
                f"{schema_patterns.PATTERN_BUDGET_SECONDS:g} s to test a {len(candidate)}-character value "
                f"(catastrophic backtracking); rewrite it without nested or overlapping repetition such as (a|a)+ or "
                f"(a+)+"
            ) from None

    def resolve(self, schema: Any, depth: int) -> Any:
        # Follow local $ref (2020-12: siblings of $ref apply too, so they are merged over the target).
        seen = 0
        while isinstance(schema, dict) and isinstance(schema.get("$ref"), str):
            ref = schema["$ref"]
            if not ref.startswith("#"):
                raise Unbuildable(f"remote $ref {ref!r} is not followed")
            try:  # the fragment is a JSON Pointer, percent-encoded in the URI (RFC 6901 §6)
                target = jp.resolve(self.root, unquote(ref[1:]))
            except (KeyError, ValueError):
                raise Unbuildable(f"$ref {ref!r} does not resolve") from None
            siblings = {k: v for k, v in schema.items() if k != "$ref"}
            schema = {**target, **siblings} if isinstance(target, dict) else target
            seen += 1
            if seen > _MAX_DEPTH:
                raise Unbuildable("$ref chain too long")
        if isinstance(schema, dict) and isinstance(schema.get("allOf"), list):
            merged = {k: v for k, v in schema.items() if k != "allOf"}
            for part in schema["allOf"]:
                part = self.resolve(part, depth + 1)
                if part is False:
                    raise Unbuildable("allOf holds a false schema")
                if not isinstance(part, dict):
                    continue
                for key, value in part.items():
                    if key == "properties" and isinstance(merged.get("properties"), dict):
                        merged["properties"] = {**merged["properties"], **value}
                    elif key == "required" and isinstance(merged.get("required"), list):
                        merged["required"] = list(dict.fromkeys(merged["required"] + list(value)))
                    else:
                        merged.setdefault(key, value)
            schema = merged
        return schema

    def build(self, schema: Any, depth: int = 0, name: str = "value") -> Any:
        if depth > _MAX_DEPTH:
            raise Unbuildable("the schema nests (or recurses) too deeply")
        self.spend(1, name, "one more value")
        schema = self.resolve(schema, depth)
        if schema is True or schema == {}:
            return name
        if schema is False:
            raise Unbuildable("a false schema admits no value")
        if not isinstance(schema, dict):
            raise Unbuildable("a schema must be an object or a boolean")
        given = _GIVEN
        if "const" in schema:
            given = ("const", schema["const"])
        elif isinstance(schema.get("enum"), list) and schema["enum"]:
            given = ("enum", schema["enum"][0])
        elif "default" in schema:
            given = ("default", schema["default"])
        elif isinstance(schema.get("examples"), list) and schema["examples"]:
            given = ("examples", schema["examples"][0])
        if given is not _GIVEN:
            # A value written in the schema costs its size: repeated by minItems it could be large.
            keyword, value = given
            self.spend(len(json.dumps(value, ensure_ascii=False)), name, f"the {keyword} value, repeated")
            return value
        for key in ("oneOf", "anyOf"):
            branches = schema.get(key)
            if isinstance(branches, list) and branches:
                branch = branches[self.variant % len(branches)]
                rest = {k: v for k, v in schema.items() if k not in ("oneOf", "anyOf")}
                branch = self.resolve(branch, depth + 1)
                if isinstance(branch, dict):
                    return self.build({**rest, **branch}, depth + 1, name)
                return self.build(branch, depth + 1, name)
        kind = schema.get("type")
        if isinstance(kind, list):
            kind = next((k for k in kind if k != "null"), kind[0] if kind else None)
        if kind is None:
            kind = self.infer_type(schema)
        builder = getattr(self, f"build_{kind}", None)
        if builder is None:
            raise Unbuildable(f"unknown type {kind!r}")
        return builder(schema, depth, name)

    @staticmethod
    def infer_type(schema: dict[str, Any]) -> str:
        if any(k in schema for k in OBJECT_KEYWORDS):
            return "object"
        if any(k in schema for k in ("items", "prefixItems", "minItems", "maxItems")):
            return "array"
        if any(k in schema for k in ("minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf")):
            return "number"
        return "string"

    def build_null(self, schema: dict[str, Any], depth: int, name: str) -> None:
        return None

    def build_boolean(self, schema: dict[str, Any], depth: int, name: str) -> bool:
        return True

    def build_string(self, schema: dict[str, Any], depth: int, name: str) -> str:
        min_length = schema.get("minLength", 0) if isinstance(schema.get("minLength"), int) else 0
        max_length = schema.get("maxLength") if isinstance(schema.get("maxLength"), int) else None
        candidates = []
        if isinstance(schema.get("format"), str) and schema["format"] in _FORMATS:
            candidates.append(_FORMATS[schema["format"]])
        self.spend(min_length, name, f"minLength {min_length:,}")
        pattern = schema.get("pattern") if isinstance(schema.get("pattern"), str) else None
        if pattern is not None:
            example = example_for_pattern(pattern, limit=self.left)
            if example is None and (shortest := shortest_match(pattern)) is not None and shortest > self.left:
                # Not even compiled: the pattern's shortest match is already over the budget.
                self.spend(shortest, name, f"a string of at least {shortest:,} characters for its pattern")
            if example is not None:
                self.spend(max(len(example) - min_length, 0), name, f"its pattern's {len(example):,}-character example")
                candidates.append(example)
        candidates += [name, "example", "a", "A", "0", "a1", "x-1", "ok"]
        for candidate in candidates:
            if len(candidate) < min_length:
                candidate = candidate + candidate[-1:] * (min_length - len(candidate))
            if max_length is not None:
                candidate = candidate[:max_length]
            if pattern is not None:
                found = self.matches(pattern, candidate, name)
                if found is None:
                    break  # a pattern that does not compile: validation names it
                if not found:
                    continue
            return candidate
        return name[:max_length] if max_length is not None else name

    def build_integer(self, schema: dict[str, Any], depth: int, name: str) -> int:
        return int(self.build_number(schema, depth, name, integer=True))

    def build_number(self, schema: dict[str, Any], depth: int, name: str, integer: bool = False) -> float | int:
        def num(key: str) -> float | None:
            value = schema.get(key)
            return value if isinstance(value, (int, float)) and not isinstance(value, bool) else None

        low, xlow, high, xhigh, step = (
            num(k) for k in ("minimum", "exclusiveMinimum", "maximum", "exclusiveMaximum", "multipleOf")
        )
        step = step if step and step > 0 else None

        def fits(v: float) -> bool:
            steps = v / step if step is not None else 0.0
            return (
                (low is None or v >= low)
                and (xlow is None or v > xlow)
                and (high is None or v <= high)
                and (xhigh is None or v < xhigh)
                and (not integer or float(v).is_integer())
                and math.isfinite(steps)  # a count of steps beyond a double (1e308 / 1e-308) is no multiple found
                and (step is None or abs(steps - round(steps)) < 1e-9)
            )

        # Candidates: zero, each bound and one step inside it, the middle of a closed range; each also
        # rounded to the step and to whole numbers. The first that meets every bound wins.
        lo = low if low is not None else xlow
        hi = high if high is not None else xhigh
        nudge = step or 1
        starts: list[float] = [0]
        if lo is not None:
            starts += [lo, lo + nudge]
        if hi is not None:
            starts += [hi, hi - nudge]
        if lo is not None and hi is not None:
            starts.append((lo + hi) / 2)
        for start in starts:
            candidates = [start]
            steps = start / step if step is not None else math.nan
            if math.isfinite(steps):  # 1e308 / 1e-308 is no number of steps (inf): no candidate on the step
                candidates += [math.ceil(steps) * step, math.floor(steps) * step]
            if integer:
                candidates += [math.ceil(start), math.floor(start)]
            for value in candidates:
                value = round(value, 10)
                if fits(value):
                    return int(value) if integer or float(value).is_integer() else value
        return 0  # validation reports what could not be met

    def build_array(self, schema: dict[str, Any], depth: int, name: str) -> list[Any]:
        count = schema.get("minItems", 0) if isinstance(schema.get("minItems"), int) else 0
        prefix = schema.get("prefixItems") if isinstance(schema.get("prefixItems"), list) else []
        items = schema.get("items", {})
        if count > self.left:  # refused before building any of them
            self.spend(count, name, f"minItems {count:,}")
        result: list[Any] = [self.build(sub, depth + 1, name) for sub in prefix[: max(count, len(prefix))]]
        singular = name[:-1] if name.endswith("s") and len(name) > 1 else name
        index = len(result)
        unique = bool(schema.get("uniqueItems"))
        # JSON equality for uniqueItems (True is not 1), in constant time per item.
        seen = {json.dumps(value, sort_keys=True) for value in result} if unique else set()
        if not unique and len(result) < count:
            # Every item is built alike (the build is deterministic), so build one and charge it for them all.
            before = self.left
            value = self.build(items, depth + 1, singular)
            missing = count - len(result) - 1
            self.spend((before - self.left) * missing, name, f"minItems {count:,} of values like {singular!r}")
            return (
                result
                + [value]
                + [json.loads(json.dumps(value)) if isinstance(value, (dict, list)) else value for _ in range(missing)]
            )
        while len(result) < count:
            value = self.build(items, depth + 1, singular)
            if unique:
                key = json.dumps(value, sort_keys=True)
                if key in seen:
                    value = self.distinct(items, value, index, depth)
                    key = json.dumps(value, sort_keys=True)
                seen.add(key)
            result.append(value)
            index += 1
        return result

    def distinct(self, schema: Any, value: Any, index: int, depth: int) -> Any:
        schema = self.resolve(schema, depth + 1)
        if isinstance(schema, dict) and isinstance(schema.get("enum"), list) and index < len(schema["enum"]):
            return schema["enum"][index]
        if isinstance(value, str):
            return f"{value}{index}"
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            step = schema.get("multipleOf", 1) if isinstance(schema, dict) else 1
            return value + index * step
        return value

    def build_object(self, schema: dict[str, Any], depth: int, name: str) -> dict[str, Any]:
        properties = schema.get("properties") if isinstance(schema.get("properties"), dict) else {}
        required = (
            [k for k in schema.get("required", []) if isinstance(k, str)]
            if isinstance(schema.get("required"), list)
            else []
        )
        result: dict[str, Any] = {}
        for key in required:
            if key in properties:
                result[key] = self.build(properties[key], depth + 1, key)
            else:
                extra = schema.get("additionalProperties", True)
                result[key] = self.build(extra if isinstance(extra, dict) else True, depth + 1, key)
        minimum = schema.get("minProperties", 0) if isinstance(schema.get("minProperties"), int) else 0
        for key, sub in properties.items():
            if len(result) >= minimum:
                break
            if key not in result:
                result[key] = self.build(sub, depth + 1, key)
        return result


def _parse_tree(pattern: str) -> Any:
    """The parse tree of Python's ``re`` for ``pattern`` (``re._parser``, the compiler's own parser, without
    compiling: cheap even for ``a{10000000}``), or ``None``."""
    try:
        from re import _parser  # type: ignore[attr-defined]

        return _parser.parse(pattern)
    except Exception:  # noqa: BLE001 - any parse failure just means "cannot tell"
        return None


def shortest_match(pattern: str) -> int | None:
    """The length of the shortest string ``pattern`` can match (``None`` when it cannot tell); lookarounds and
    anchors count nothing. ``^a{10000000}$`` → 10,000,000, read from the parse tree without compiling."""
    from re import _constants as c  # type: ignore[attr-defined]

    tree = _parse_tree(pattern)
    if tree is None:
        return None

    def least(items: Any) -> int:
        total = 0
        for op, arg in items:
            if op in (c.LITERAL, c.NOT_LITERAL, c.ANY, c.IN):
                total += 1
            elif op in (c.MAX_REPEAT, c.MIN_REPEAT, getattr(c, "POSSESSIVE_REPEAT", None)):
                total += arg[0] * least(arg[2])
            elif op is c.SUBPATTERN:
                total += least(arg[-1])
            elif op is c.ATOMIC_GROUP:
                total += least(arg)
            elif op is c.BRANCH:
                total += min(least(branch) for branch in arg[1])
        return total

    try:
        return least(tree)
    except Exception:  # noqa: BLE001 - an odd tree: cannot tell
        return None


def example_for_pattern(pattern: str, *, limit: int | None = None) -> str | None:
    """A short string matching the regular expression ``pattern``, or ``None`` when it cannot tell (or the example
    would be longer than ``limit`` characters).

    Walks the parse tree of Python's ``re`` (see :func:`_parse_tree`; ECMA patterns of tool schemas are almost
    always valid Python patterns): literals as written, a class's first member, the first branch of an
    alternation, the least repeat count (at least one for ``+``).
    """
    from re import _constants as c  # type: ignore[attr-defined]

    tree = _parse_tree(pattern)
    if tree is None:
        return None
    if limit is not None and (shortest_match(pattern) or 0) > limit:
        return None
    categories = {
        c.CATEGORY_DIGIT: "0",
        c.CATEGORY_NOT_DIGIT: "a",
        c.CATEGORY_SPACE: " ",
        c.CATEGORY_NOT_SPACE: "a",
        c.CATEGORY_WORD: "a",
        c.CATEGORY_NOT_WORD: "-",
    }

    def one_of(items: Any) -> str | None:
        negate = False
        for op, arg in items:
            if op is c.NEGATE:
                negate = True
            elif negate:
                continue
            elif op is c.LITERAL:
                return chr(arg)
            elif op is c.RANGE:
                return chr(arg[0])
            elif op is c.CATEGORY:
                return categories.get(arg)
        if negate:  # the first of a few printable characters the class does not exclude
            source = _class_source(items)
            return next((ch for ch in "a0A_-. " if re.fullmatch(source, ch)), None)
        return None

    def walk(items: Any) -> str | None:
        out: list[str] = []
        size = 0
        for op, arg in items:
            if op is c.LITERAL:
                out.append(chr(arg))
            elif op is c.NOT_LITERAL:
                out.append("a" if chr(arg) != "a" else "b")
            elif op is c.ANY:
                out.append("a")
            elif op is c.IN:
                ch = one_of(arg)
                if ch is None:
                    return None
                out.append(ch)
            elif op in (c.MAX_REPEAT, c.MIN_REPEAT, getattr(c, "POSSESSIVE_REPEAT", None)):
                low, _high, sub = arg
                piece = walk(sub)
                if piece is None or (limit is not None and len(piece) * low > limit):
                    return None
                out.append(piece * low)
            elif op is c.SUBPATTERN:
                piece = walk(arg[-1])
                if piece is None:
                    return None
                out.append(piece)
            elif op is c.BRANCH:
                piece = walk(arg[1][0])
                if piece is None:
                    return None
                out.append(piece)
            elif op in (c.AT, c.ASSERT, c.ASSERT_NOT):
                continue
            else:
                return None
            size += len(out[-1]) if out else 0
            if limit is not None and size > limit:  # never more than the budget, even in pieces
                return None
        return "".join(out)

    try:
        return walk(tree)
    except Exception:  # noqa: BLE001 - an odd tree: no example
        return None


def _class_source(items: Any) -> str:
    """Rebuild a character class from its parse-tree items, to test candidates for a negated class."""
    from re import _constants as c  # type: ignore[attr-defined]

    escape = {
        c.CATEGORY_DIGIT: r"\d",
        c.CATEGORY_NOT_DIGIT: r"\D",
        c.CATEGORY_SPACE: r"\s",
        c.CATEGORY_NOT_SPACE: r"\S",
        c.CATEGORY_WORD: r"\w",
        c.CATEGORY_NOT_WORD: r"\W",
    }
    body = []
    for op, arg in items:
        if op is c.NEGATE:
            body.append("^")
        elif op is c.LITERAL:
            body.append(re.escape(chr(arg)))
        elif op is c.RANGE:
            body.append(f"{re.escape(chr(arg[0]))}-{re.escape(chr(arg[1]))}")
        elif op is c.CATEGORY:
            body.append(escape.get(arg, ""))
    return "[" + "".join(body) + "]"


def build_instance(schema: Any, *, attempts: int = 4) -> Any:
    """A value valid against ``schema`` (a tool's ``parameters``), built deterministically.

    Tries up to ``attempts`` variants (the n-th takes the n-th branch of each ``anyOf``/``oneOf``) and
    returns the first that ``webapp.core.schema`` accepts. ``None`` parameters mean "no parameters": ``{}``.
    Bounded in time: matching candidates against ``pattern`` keywords may take ``webapp.core.schema``'s
    ``PATTERN_BUDGET_SECONDS`` in all, and validating the value is bounded by that layer.

    :raises BuildTimeout: (an :class:`Unbuildable`) a ``pattern`` backtracks catastrophically on the candidates.
    :raises Unbuildable: no variant validates; the message names the first schema error.
    :raises webapp.core.schema.SchemaInvalid: the schema itself is unusable (``PatternTimeout`` when validating the
        value needs more than the schema layer's budget).
    """
    if schema is None:
        return {}
    compiled = compile_schema(schema)
    with _built_lock:
        hit = _built.get(id(compiled))
    if hit is not None and hit[0] is compiled:
        # The build is deterministic and `compile_schema` returns one object per canonical schema, so an equal
        # schema gets the value already built and validated; a deep copy keeps the cached one unshared.
        return json.loads(hit[1])
    value = _build_valid(schema, compiled, attempts)
    with _built_lock:
        # Keyed by the compiled schema's identity, the entry holds that object, so the id cannot be reused
        # while the entry lives. Only successes are kept: a failure may depend on the time budget.
        _built[id(compiled)] = (compiled, json.dumps(value, ensure_ascii=False))
        while len(_built) > BUILT_CACHE_SIZE:
            _built.popitem(last=False)
    return value


#: Built instances kept (one per distinct schema, least recently stored dropped first).
BUILT_CACHE_SIZE = 256
_built: OrderedDict[int, tuple[Any, str]] = OrderedDict()
_built_lock = threading.Lock()


def _build_valid(schema: Any, compiled: Any, attempts: int) -> Any:
    """The first of ``attempts`` built variants that ``compiled`` accepts (see :func:`build_instance`)."""
    deadline = time.monotonic() + schema_patterns.PATTERN_BUDGET_SECONDS
    problem = "no value could be built"
    for variant in range(attempts):
        try:
            value = _Builder(schema, variant, deadline).build(schema)
        except (BuildTimeout, OverBudget):
            raise
        except (Unbuildable, RecursionError) as err:
            problem = str(err) or "the schema recurses without end"
            continue
        errors = compiled.errors(value)
        if not errors:
            return value
        first = errors[0]
        problem = f"{first.pointer or '/'}: {first.message}"
    raise Unbuildable(problem)


# ------------------------------------------------------------------------------------------------ reading the context


def _text_of(content: Any) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "\n".join(
            p.get("text", "") for p in content if isinstance(p, dict) and p.get("type") in ("input_text", "output_text")
        )
    return ""


def _attachment_notes(content: Any) -> list[str]:
    """One note per inline image or file (validated already; sizes computed from the base64 length)."""
    notes: list[str] = []
    if not isinstance(content, list):
        return notes
    for part in content:
        if not isinstance(part, dict):
            continue
        if part.get("type") == "input_image" and isinstance(part.get("image_url"), str):
            url = part["image_url"]
            notes.append(f"an image ({_media(url)}, {_base64_size(url.partition(',')[2]):,} bytes)")
        elif part.get("type") == "input_file":
            source = part.get("file_data") or part.get("file_url") or ""
            media = _media(source) or "application/octet-stream"
            size = _base64_size(source.partition(",")[2] if source[:5].lower() == "data:" else source)
            notes.append(f"{part.get('filename') or 'a file'} ({media}, {size:,} bytes)")
    return notes


def _media(url: str) -> str:
    if url[:5].lower() != "data:":
        return ""
    return url[5:].split(",", 1)[0].split(";", 1)[0].lower()


def _base64_size(data: str) -> int:
    return len(data) * 3 // 4 - data[-2:].count("=") if data else 0


def _is_user(item: dict[str, Any]) -> bool:
    return item.get("type") == "message" and item.get("role") == "user"


@dataclass(frozen=True)
class Turn:
    """What the model answers: the last user message (``user``) and the tool results after it (``results``).

    :param user: the last user message in the context, or ``None``.
    :param results: the ``function_call_output`` items after it (the current turn when not empty).
    :param calls: every ``function_call`` of the context by ``call_id`` (to name a result's tool).
    """

    user: dict[str, Any] | None
    results: tuple[dict[str, Any], ...]
    calls: dict[str, dict[str, Any]]


def current_turn(context: list[dict[str, Any]]) -> Turn:
    """Find the current turn (gateway plan: the last user message or ``function_call_output``).

    :raises RequestError: (``input``) the context has neither.
    """
    last_user = max((i for i, item in enumerate(context) if _is_user(item)), default=-1)
    results = tuple(item for item in context[last_user + 1 :] if item.get("type") == "function_call_output")
    if last_user < 0 and not results:
        raise RequestError(
            "nothing to answer: the input has no user message and no function_call_output", "input", MISSING
        )
    calls = {
        item["call_id"]: item
        for item in context
        if item.get("type") == "function_call" and isinstance(item.get("call_id"), str)
    }
    return Turn(context[last_user] if last_user >= 0 else None, results, calls)


def _words(text: str) -> set[str]:
    return set(_WORD.findall(text.lower().replace("_", " ").replace("-", " ")))


def choose_tools(
    turn: Turn, tools: list[Tool], choice: ToolChoice, *, parallel: bool, max_calls: int | None
) -> list[Tool]:
    """The tools to call, in order (empty: answer in text). See the module docstring for the rules."""
    allowed = [t for t in tools if choice.names is None or t.name in choice.names]
    if choice.mode == "none" or not allowed:
        return []
    if choice.mode == "auto" and (turn.results or turn.user is None):
        return []
    text = _text_of(turn.user.get("content")) if turn.user else ""
    lowered = text.lower()
    mentioned = sorted(
        (t for t in allowed if re.search(rf"(?<![\w-]){re.escape(t.name.lower())}(?![\w-])", lowered)),
        key=lambda t: lowered.find(t.name.lower()),
    )
    if mentioned:
        chosen = mentioned if parallel else mentioned[:1]
    else:
        words = _words(text)
        scores = [len(words & _words(f"{t.name} {t.description or ''}")) for t in allowed]
        chosen = [allowed[scores.index(max(scores))]]
    return chosen[:max_calls] if max_calls is not None else chosen


def _reply_text(turn: Turn) -> str:
    if turn.results:
        parts = []
        for result in turn.results:
            call = turn.calls.get(result.get("call_id"), {})
            output = result.get("output")
            shown = output if isinstance(output, str) else _text_of(output)
            notes = _attachment_notes(output)
            if notes:
                shown = "; ".join(filter(None, [shown, *notes]))
            parts.append(f"{call.get('name', 'the tool')} ({result.get('call_id')}) returned: {_quote(shown)}")
        return "Tool results: " + "; ".join(parts) + "."
    assert turn.user is not None
    content = turn.user.get("content")
    text = _text_of(content).strip()
    notes = _attachment_notes(content)
    reply = f'You said: "{_quote(text)}"' if text else "You sent no text."
    if notes:
        reply += ". Received " + "; ".join(notes) + "."
    return reply


def _quote(text: str) -> str:
    text = " ".join(text.split())
    return text if len(text) <= QUOTE_LIMIT else text[:QUOTE_LIMIT].rstrip() + "…"


def input_tokens(context: list[dict[str, Any]], instructions: str | None, tools: list[Tool]) -> int:
    """Approximate input size in tokens: instructions, every text, argument and output string of the context,
    each tool's name, description and parameters, plus 85 per image and 1 per 4 bytes of a file."""
    total = count_tokens(instructions or "")
    for tool in tools:
        total += count_tokens(f"{tool.name} {tool.description or ''} {json.dumps(tool.parameters or {})}")
    for item in context:
        for key in ("arguments", "name"):
            if isinstance(item.get(key), str):
                total += count_tokens(item[key])
        for key in ("content", "output", "summary"):
            value = item.get(key)
            total += count_tokens(value if isinstance(value, str) else _text_of(value))
            if isinstance(value, list):
                for part in value:
                    if isinstance(part, dict) and part.get("type") == "summary_text":
                        total += count_tokens(part.get("text", ""))
                    elif isinstance(part, dict) and part.get("type") == "input_image":
                        total += IMAGE_TOKENS
                    elif isinstance(part, dict) and part.get("type") == "input_file":
                        source = part.get("file_data") or part.get("file_url") or ""
                        total += _base64_size(source.partition(",")[2] or source) // 4
    return total


# ------------------------------------------------------------------------------------------------ generation


def new_id(prefix: str) -> str:
    """A fresh id such as ``resp_3f9a...``: the prefix, an underscore and 24 hex digits."""
    return f"{prefix}_{secrets.token_hex(12)}"


@dataclass(frozen=True)
class Generation:
    """What the model produced for one request.

    :param status: ``completed``, ``incomplete`` or ``failed``.
    :param output: the output items in their final state.
    :param usage: the ``Usage`` object.
    :param incomplete_details: ``{"reason": "max_output_tokens"}`` when cut short.
    :param error: ``{"code", "message"}`` when failed.
    """

    status: str
    output: list[dict[str, Any]]
    usage: dict[str, Any]
    incomplete_details: dict[str, str] | None = None
    error: dict[str, str] | None = None


def generate(
    request: CreateRequest, context: list[dict[str, Any]], tools: list[Tool], make_id: Callable[[str], str] = new_id
) -> Generation:
    """Answer ``context`` (previous input + previous output + this input, references resolved).

    :param tools: the tools in effect (the request's or the previous response's).
    :param make_id: id factory, called with the prefixes ``msg``, ``fc`` and ``call``.
    :raises RequestError: nothing to answer (see :func:`current_turn`).
    """
    turn = current_turn(context)
    tokens_in = input_tokens(context, request.instructions, tools)
    choice = request.tool_choice or ToolChoice()
    chosen = choose_tools(
        turn, tools, choice, parallel=request.parallel_tool_calls is not False, max_calls=request.max_tool_calls
    )
    planned: list[tuple[str, str, str | None]] = []  # (kind, text or arguments, tool name)
    try:
        for tool in chosen:
            planned.append(("function_call", _arguments(tool), tool.name))
        if not chosen:
            planned.append(("message", _formatted_reply(turn, request.text), None))
    except Unbuildable as err:
        what = f"arguments for tool {chosen[len(planned)].name!r}" if chosen else "a reply in the requested format"
        message = f"The test model could not build {what} that satisfy the schema: {err}"
        return Generation("failed", [], usage(tokens_in, 0), error={"code": "model_error", "message": message})

    budget = request.max_output_tokens
    output: list[dict[str, Any]] = []
    spent = 0
    status = "completed"
    for kind, body, name in planned:
        cost = count_tokens(body)
        item_status = "completed"
        if budget is not None and spent + cost > budget:
            body = truncate_tokens(body, budget - spent)
            cost = count_tokens(body)
            item_status = status = "incomplete"
        if kind == "message":
            output.append(message_item(make_id("msg"), body, item_status))
        else:
            assert name is not None
            output.append(function_call_item(make_id("fc"), make_id("call"), name, body, item_status))
        spent += cost
        if status == "incomplete":
            break
    details = {"reason": "max_output_tokens"} if status == "incomplete" else None
    return Generation(status, output, usage(tokens_in, spent), incomplete_details=details)


def _arguments(tool: Tool) -> str:
    """The call's ``arguments``: always a JSON object, as the gate requires of a call sent back."""
    schema = tool.parameters
    if isinstance(schema, dict) and "type" not in schema:
        # Parameters without type describe an object (openresponses.function_parameters_problem); `{}` and
        # annotation-only schemas mean "no parameters" and get `{}`. The added type only narrows the schema.
        schema = {**schema, "type": "object"}
    try:
        value = build_instance(schema)
    except SchemaInvalid as err:
        raise Unbuildable(f"the parameters schema is unusable: {err}") from None
    if not isinstance(value, dict):  # e.g. a tool stored before parameters were checked
        raise Unbuildable("the parameters do not describe a JSON object, and arguments must be one")
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


def _formatted_reply(turn: Turn, text: dict[str, Any] | None) -> str:
    fmt = (text or {}).get("format") or {}
    if fmt.get("type") == "json_schema":
        try:
            return json.dumps(build_instance(fmt.get("schema")), ensure_ascii=False)
        except SchemaInvalid as err:
            raise Unbuildable(f"text.format.schema is unusable: {err}") from None
    if fmt.get("type") == "json_object":
        return json.dumps({"reply": _reply_text(turn)}, ensure_ascii=False)
    return _reply_text(turn)


def respond(
    request: CreateRequest,
    context: list[dict[str, Any]],
    tools: list[Tool],
    *,
    response_id: str,
    created_at: int,
    completed_at: int,
    make_id: Callable[[str], str] = new_id,
) -> tuple[dict[str, Any], dict[str, Any]]:
    """Run the model and wrap its output: ``(snapshot, final)`` ``ResponseResource`` objects.

    ``snapshot`` is the response as ``response.created`` shows it (``in_progress``, no output, no usage);
    ``final`` is the finished response (``completed``, ``incomplete`` or ``failed``), identical whether or
    not it is streamed.
    """
    generation = generate(request, context, tools, make_id)
    model = request.model or MODEL_NAME
    snapshot = response_resource(
        request,
        response_id=response_id,
        created_at=created_at,
        model=model,
        tools=tools,
        status="in_progress",
        output=[],
        usage_=None,
    )
    final = response_resource(
        request,
        response_id=response_id,
        created_at=created_at,
        model=model,
        tools=tools,
        status=generation.status,
        output=generation.output,
        usage_=generation.usage,
        completed_at=completed_at if generation.status == "completed" else None,
        error=generation.error,
        incomplete_details=generation.incomplete_details,
    )
    return snapshot, final


# ------------------------------------------------------------------------------------------------ streaming


def stream_events(snapshot: dict[str, Any], final: dict[str, Any]) -> Iterator[dict[str, Any]]:
    """The streaming events that turn ``snapshot`` into ``final`` (Open Responses spec, Streaming; spec notes
    §2.3-2.5), with ``sequence_number`` counting from 0.

    Text: ``output_item.added``, ``content_part.added``, ``output_text.delta`` (one per :data:`DELTA_TOKENS`
    tokens), ``output_text.done``, ``content_part.done``, ``output_item.done``. Function call:
    ``output_item.added``, ``function_call_arguments.delta`` (likewise), ``.done``, ``output_item.done``. Around them
    ``response.created`` and ``response.in_progress`` first, exactly one terminal event last:
    ``response.completed``, ``response.incomplete``, or ``error`` then ``response.failed``. The SSE ``[DONE]``
    line is the transport's, not an event: see ``webapp.core.responses.sse.DONE``.
    """
    sequence = 0

    def event(kind: str, **fields: Any) -> dict[str, Any]:
        nonlocal sequence
        payload = {"type": kind, "sequence_number": sequence, **fields}
        sequence += 1
        return payload

    yield event(v.RESPONSE_CREATED, response=snapshot)
    yield event(v.RESPONSE_IN_PROGRESS, response=snapshot)
    for index, item in enumerate(final["output"]):
        if item["type"] == MESSAGE:
            yield event(v.OUTPUT_ITEM_ADDED, output_index=index, item={**item, "status": "in_progress", "content": []})
            for part_index, part in enumerate(item["content"]):
                where = {"item_id": item["id"], "output_index": index, "content_index": part_index}
                yield event(v.CONTENT_PART_ADDED, **where, part=output_text_part(""))
                for chunk in delta_chunks(part["text"]):
                    yield event(v.OUTPUT_TEXT_DELTA, **where, delta=chunk, logprobs=[])
                yield event(v.OUTPUT_TEXT_DONE, **where, text=part["text"], logprobs=[])
                yield event(v.CONTENT_PART_DONE, **where, part=part)
        elif item["type"] == FUNCTION_CALL:
            yield event(
                v.OUTPUT_ITEM_ADDED,
                output_index=index,
                item={**item, "arguments": "", "status": "in_progress"},
            )
            for chunk in delta_chunks(item["arguments"]):
                yield event(v.FUNCTION_CALL_ARGUMENTS_DELTA, item_id=item["id"], output_index=index, delta=chunk)
            yield event(
                v.FUNCTION_CALL_ARGUMENTS_DONE,
                item_id=item["id"],
                output_index=index,
                arguments=item["arguments"],
            )
        yield event(v.OUTPUT_ITEM_DONE, output_index=index, item=item)
    if final["status"] == "failed":
        error = final.get("error") or {"code": "model_error", "message": "the model failed"}
        # The spec's ErrorStreamingEvent nests an ErrorPayload; the flat copies serve clients (the openai SDK's
        # ResponseErrorEvent) that read message/code/param at the top level.
        yield event(
            v.ERROR,
            error={"type": "model_error", "code": error["code"], "message": error["message"], "param": None},
            code=error["code"],
            message=error["message"],
            param=None,
        )
        yield event(v.RESPONSE_FAILED, response=final)
    elif final["status"] == "incomplete":
        yield event(v.RESPONSE_INCOMPLETE, response=final)
    else:
        yield event(v.RESPONSE_COMPLETED, response=final)

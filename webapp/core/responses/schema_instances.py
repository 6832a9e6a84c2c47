"""A value valid against a JSON Schema, built deterministically: the test model's arguments and formatted replies.

Pure (no I/O). :func:`build_instance` tries ``const``, then the first ``enum`` value, ``default``, ``examples``,
then a value of the type meeting its bounds; required members filled; local ``$ref``/``$defs``, ``allOf`` merged,
``anyOf``/``oneOf`` branches tried in turn; and checks what it built with ``webapp.core.schema``. ``pattern`` is
read as ECMA-262 by the same engine as ``webapp.core.schema``, within its time budget, so a catastrophic pattern
costs about a second, not minutes of a held interpreter. What is built is bounded too: at most
:data:`BUILD_BUDGET` units (each value one, each string character one more) and ``PATTERN_BUDGET_SECONDS`` in all,
checked before anything is allocated, so ``minLength: 100000000`` or ``minItems: 1000000`` is refused at once
instead of building it.
"""

from __future__ import annotations

import json
import math
import threading
import time
from collections import OrderedDict
from typing import Any
from urllib.parse import unquote

import regex

from webapp.core.json import pointer as jp
from webapp.core.responses.pattern_examples import example_for_pattern, shortest_match
from webapp.core.responses.tools import OBJECT_KEYWORDS
from webapp.core.schema import compile_pattern, compile_schema
from webapp.core.schema import patterns as schema_patterns


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
        given: tuple[str, Any] | None = None  # the value given by const/enum/default/examples, and its keyword
        if "const" in schema:
            given = ("const", schema["const"])
        elif isinstance(schema.get("enum"), list) and schema["enum"]:
            given = ("enum", schema["enum"][0])
        elif "default" in schema:
            given = ("default", schema["default"])
        elif isinstance(schema.get("examples"), list) and schema["examples"]:
            given = ("examples", schema["examples"][0])
        if given is not None:
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
            if step is not None and math.isfinite(
                steps
            ):  # 1e308 / 1e-308 is no number of steps (inf): no candidate on the step
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
        prefix = schema["prefixItems"] if isinstance(schema.get("prefixItems"), list) else []
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
        properties = schema["properties"] if isinstance(schema.get("properties"), dict) else {}
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


def build_instance(schema: Any, *, attempts: int = 4) -> Any:
    """A value valid against ``schema`` (a tool's ``parameters``), built deterministically.

    Tries up to ``attempts`` variants (the n-th takes the n-th branch of each ``anyOf``/``oneOf``) and
    returns the first that ``webapp.core.schema`` accepts. ``None`` parameters mean "no parameters": ``{}``.
    Bounded in time: matching candidates against ``pattern`` keywords may take ``webapp.core.schema``'s
    ``PATTERN_BUDGET_SECONDS`` in all, and validating the value is bounded by that layer.

    :raises BuildTimeout: (an :class:`Unbuildable`) a ``pattern`` backtracks catastrophically on the candidates.
    :raises Unbuildable: no variant validates; the message names the first schema error.
    :raises webapp.core.schema.SchemaError: the schema itself is unusable (``PatternTimeout`` when validating the
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

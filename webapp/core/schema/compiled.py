"""The compiled schema: a schema checked, analysed and compiled once for both engines, then asked "valid?"
(:meth:`CompiledSchema.is_valid`) and "which errors?" (:meth:`CompiledSchema.errors`) about many values; and
:func:`compile_schema`, which compiles each distinct schema once (:mod:`webapp.core.schema.cache`)."""

from __future__ import annotations

import json
import sys
import threading
from collections.abc import Callable, Iterator
from typing import Any, TypeVar
from urllib.parse import quote

import jsonschema_rs
import regex
from jsonschema import ValidationError
from jsonschema import exceptions as js_exceptions

from webapp.core.json import json_type
from webapp.core.json import pointer as jp
from webapp.core.schema import errors as schema_errors
from webapp.core.schema import patterns
from webapp.core.schema.analysis import MAX_SCHEMA_DEPTH, Analysis
from webapp.core.schema.cache import IDENTITIES, SCHEMAS
from webapp.core.schema.dialects import REGISTRY, dialect_of, refuse_retrieval
from webapp.core.schema.ecma import translate
from webapp.core.schema.errors import (
    InstanceTooDeep,
    PatternTimeout,
    SchemaError,
    SchemaInvalid,
    keyword_of,
    plain_message,
    relevance,
    show,
)
from webapp.core.schema.formats import DIALECT_FORMATS, METASCHEMA_FORMATS, format_checker, rust_formats
from webapp.core.schema.keywords import RustMultipleOf
from webapp.core.schema.output import OUTPUT_FORMATS, output_unit

# Nesting limit for a validated value, far above the app's JSON_MAX_DEPTH (100): a guard for direct callers, as
# the Rust engine overflows its stack (a crash, not an exception) near tens of thousands of levels.
MAX_INSTANCE_DEPTH = 1000

# `false` kept as is: our additionalProperties / unevaluated* keywords report these per member themselves
_KEEP_FALSE = ("additionalProperties", "unevaluatedProperties", "unevaluatedItems")
# What a URI fragment keeps unescaped (RFC 3986 §3.5: pchar, "/" and "?"), so a pointer stays readable
_FRAGMENT_SAFE = "/?:@!$&'()*+,;=-._~"


class CompiledSchema:
    """A schema checked, analysed and compiled once; validate many instances.

    :ivar schema: the (copied) schema document.
    :ivar dialect: the dialect URI, e.g. ``https://json-schema.org/draft/2020-12/schema``.
    :ivar dialect_name: e.g. ``2020-12``.
    :ivar format_assertion: whether ``format`` is asserted.
    :ivar checked_formats: the format names really checked when ``format_assertion`` is on: those the dialect
        defines (:data:`webapp.core.schema.formats.DIALECT_FORMATS`).
    :ivar fast_path: whether ``is_valid`` uses the Rust engine (``fast_path_note`` says why not, if not).
    :ivar catastrophic_patterns: the patterns that ran out of time on this schema (see :class:`PatternTimeout`).
    :ivar pattern_cost: what the schema's distinct patterns cost to compile together (atoms, see
        :data:`webapp.core.schema.patterns.MAX_SCHEMA_PATTERN_COST`).
    :raises SchemaInvalid: when the schema is unusable (see :func:`compile_schema`).
    """

    def __init__(self, schema: Any, *, format_assertion: bool = False) -> None:
        self.schema = schema
        dialect = dialect_of(schema)
        self._dialect = dialect
        self.dialect = dialect.uri
        self.dialect_name = dialect.name
        self.format_assertion = format_assertion
        self.checked_formats: tuple[str, ...] = tuple(sorted(DIALECT_FORMATS[dialect.name])) if format_assertion else ()
        # Patterns that ran out of time on this schema (PatternTimeout): later validations reaching one answer at
        # once instead of spending the budget again. At most one entry per distinct pattern of the schema.
        self.catastrophic_patterns: set[str] = set()
        # The reference engine works on its own copy, in which `false` subschemas below a member or an item
        # become {"not": {}}: python-jsonschema drops the member from the error path of a bare `false`.
        working = json.loads(json.dumps(schema))
        self._analysis = Analysis(working, dialect)  # first: it enforces the depth limit
        # Patterns are checked (syntax, then cost) before anything compiles them: the metaschema's "regex" format,
        # python-jsonschema and jsonschema_rs. $ref targets outside the subschemas bring more of them.
        self._pattern_costs: dict[str, int] = {}
        rust_differs = self._check_patterns(0)
        self._check_metaschema(self.schema)
        checked = len(self._analysis.patterns)
        self._analysis.check_references()
        rust_differs = rust_differs or self._check_patterns(checked)
        for target, place in self._analysis.foreign_targets:
            self._check_metaschema(jp.resolve(self.schema, target), target, place)
        self._false_markers = self._mark_false_subschemas(working)
        # python-jsonschema re-picks the validator class from `$schema` whenever it descends into a (sub)schema
        # carrying one (e.g. a `$ref` back to the root), which would drop our fixed keywords there: the dialect is
        # decided once, for the whole document.
        for node in self._analysis.nodes.values():
            if isinstance(node.value, dict):
                node.value.pop("$schema", None)
        self._python = dialect.python(
            working, registry=REGISTRY, format_checker=format_checker(dialect.name) if format_assertion else None
        )
        self._rust: Any = None
        # Without a cycle through references an engine recurses at most once per schema node, however deep the
        # value: with few enough nodes the Rust engine then needs no measure of the value first (the gate's hot
        # path); otherwise it would recurse as deep as the value, and crash far beyond MAX_INSTANCE_DEPTH.
        self._measure_values = (
            len(self._analysis.nodes) > MAX_INSTANCE_DEPTH or not self._analysis.recursion_is_bounded()
        )
        self.fast_path_note = ""
        if rust_differs:
            pointer, pattern, constructs = rust_differs
            self.fast_path_note = (
                f"the pattern {show(pattern)} at {pointer} uses {constructs}, on which the Rust "
                f"engine's answers differ from ECMA-262; python-jsonschema validates it alone"
            )
            return
        if self._analysis.rust_differs:
            pointer, keyword = self._analysis.rust_differs[0]
            self.fast_path_note = (
                f"{keyword} at {pointer} is no {dialect.name} keyword, but the Rust engine "
                f"applies it; python-jsonschema validates this schema alone"
            )
            return
        try:
            options: dict[str, Any] = {
                "retriever": refuse_retrieval,
                "pattern_options": jsonschema_rs.FancyRegexOptions(backtrack_limit=100_000),
            }
            if format_assertion:
                options.update(validate_formats=True, formats=rust_formats(dialect.name))
            else:
                options["validate_formats"] = False
            if self._analysis.has_multiple_of:
                # the Rust engine divides binary floats (1e308 / 2.5 fails); use our exact rule there too
                options["keywords"] = {"multipleOf": RustMultipleOf}
            self._rust = dialect.rust(schema, **options)
        except Exception as exc:  # noqa: BLE001 - any refusal by the fast engine just disables it
            self.fast_path_note = (
                f"the Rust engine refused this schema ({exc.__class__.__name__}); python-jsonschema validates it alone"
            )

    @property
    def pattern_cost(self) -> int:
        """What the schema's distinct patterns cost to compile together (atoms, see
        :data:`webapp.core.schema.patterns.MAX_SCHEMA_PATTERN_COST`)."""
        return sum(self._pattern_costs.values())

    def _check_patterns(self, start: int) -> tuple[str, str, str] | None:
        """Every ``pattern`` and ``patternProperties`` name (from the ``start``-th the analysis found) must be
        ECMA-262 (also where the metaschema does not say so, as draft-04's ``patternProperties``) and cheap enough
        to compile (:func:`webapp.core.schema.patterns.check_cost`, alone and with the schema's other patterns).
        Returns the first (pointer, pattern, constructs) on which the Rust engine differs from ECMA-262, or
        ``None``.

        :raises SchemaInvalid: naming the pattern, at its pointer, and what is wrong with it."""
        differs = None
        for pointer, pattern in self._analysis.patterns[start:]:
            keyword = "pattern" if pointer.endswith("/pattern") else "patternProperties"
            patterns.check_length(pattern, pointer, keyword)
            try:
                translated = translate(pattern)
            except regex.error as exc:
                raise SchemaInvalid(f"{show(pattern)} is not a valid ECMA-262 regex: {exc}", pointer, keyword) from None
            patterns.check_cost(pattern, translated, pointer, keyword)
            if pattern not in self._pattern_costs:
                self._pattern_costs[pattern] = translated.cost
                patterns.check_total_cost(self.pattern_cost, pointer, keyword)
            try:
                patterns.compile_pattern(pattern)
            except regex.error as exc:  # e.g. a Unicode property the `regex` module does not know
                raise SchemaInvalid(
                    f"the regex {show(pattern)} cannot be run by this validator: {getattr(exc, 'msg', exc)}",
                    pointer,
                    keyword,
                ) from None
            if translated.rust_differs and differs is None:
                differs = (pointer, pattern, translated.rust_differs)
        return differs

    def _mark_false_subschemas(self, working: Any) -> dict[int, str]:
        """Replace every `false` subschema (but the root and those our own keywords read as a literal) by a
        marker ``{"not": {}}`` — the same meaning — and return ``id(marker) -> pointer of the false``."""
        markers: dict[int, str] = {}
        for where in self._analysis.false_nodes:
            tokens = jp.split(where)
            if not tokens or tokens[-1] in _KEEP_FALSE:
                continue
            parent = jp.resolve(working, jp.join(tokens[:-1]))
            last: Any = int(tokens[-1]) if isinstance(parent, list) else tokens[-1]
            if parent[last] is False:
                marker: dict[str, Any] = {"not": {}}
                parent[last] = marker
                markers[id(marker)] = where
        return markers

    @property
    def fast_path(self) -> bool:
        """Whether the Rust engine answers :meth:`is_valid` for this schema."""
        return self._rust is not None

    def _check_metaschema(self, value: Any, where: str = "", referenced_from: str | None = None) -> None:
        """``value`` (the schema, or a ``$ref`` target at ``where``) against the dialect's metaschema.

        :raises SchemaInvalid: at the offending place, with the metaschema's best-matching complaint."""
        validator = self._dialect.python(
            self._dialect.python.META_SCHEMA, registry=REGISTRY, format_checker=METASCHEMA_FORMATS
        )
        try:
            errors = list(validator.iter_errors(value))
        except RecursionError:
            raise SchemaInvalid("the schema is nested too deeply to check", where) from None
        if errors:
            best = js_exceptions.best_match(errors)
            place = where + jp.join(best.absolute_path)
            keyword = best.path[-1] if best.path and isinstance(best.path[-1], str) else None
            what = (
                f"{place or '(root)'}, which the $ref at {referenced_from} uses as a schema, is not a valid "
                f"{self.dialect_name} schema"
                if referenced_from is not None
                else f"not a valid {self.dialect_name} schema"
            )
            raise SchemaInvalid(f"{what}: {plain_message(best, keyword_of(best))}", place, keyword)

    # -- validation ------------------------------------------------------------------------------------------
    # The reference engine recurses (a few frames per schema step per level of the value): a value the parse
    # layer allows (100 levels) can need more than Python's default 1000 frames. Such values are validated in
    # a helper thread with a big stack and a higher recursion limit (see deep_call). Any other failure of the
    # engines is the schema's: SchemaInvalid "this schema cannot be used …" (see errors.engine_failure).

    def is_valid(self, instance: Any) -> bool:
        """Whether ``instance`` (plain JSON values) is valid: the one way to ask. The Rust engine answers where it
        reads the schema as the reference engine does (:attr:`fast_path`); python-jsonschema otherwise, and for
        values the Rust engine cannot take.

        :raises PatternTimeout: only when the Rust engine cannot answer and a pattern is catastrophic.
        :raises InstanceTooDeep: for a value nested deeper than :data:`MAX_INSTANCE_DEPTH` (never for a value of
            100 levels or fewer, which is what the parse layer lets through) when an engine would recurse that
            deep: the schema refers to itself in a cycle, or python-jsonschema answers.
        :raises SchemaInvalid: when the engines fail on this schema and value in a way they should not ("this
            schema cannot be used …": a bug or limit of python-jsonschema, referencing or jsonschema_rs).
        """
        rust = self._rust
        if rust is not None:
            if self._measure_values:
                instance_depth(instance)  # raises InstanceTooDeep before the Rust engine could crash
            try:
                return rust.is_valid(instance)
            except Exception:  # noqa: BLE001 - values the Rust side cannot take: ask the reference engine
                pass
        return self._guarded(
            instance,
            instance_depth(instance),
            lambda deadline: next(self._iter_python(instance, deadline), None) is None,
        )

    def _iter_python(self, instance: Any, deadline: float) -> Iterator[ValidationError]:
        """python-jsonschema's errors, with this schema's patterns, places and ``deadline`` as the running
        validation (:data:`webapp.core.schema.patterns.current`)."""
        current = patterns.current
        previous = (current.deadline, current.catastrophic, current.node_pointers)
        current.deadline, current.catastrophic = deadline, self.catastrophic_patterns
        current.node_pointers = self._analysis.node_by_id
        try:
            yield from self._python.iter_errors(instance)
        finally:
            current.deadline, current.catastrophic, current.node_pointers = previous

    def _guarded(self, instance: Any, depth: int, work: Callable[[float], _T]) -> _T:
        """``work(deadline)`` — reference-engine work on ``instance`` — with enough stack for the value's
        ``depth``, and one pattern budget whichever thread runs it.

        :raises SchemaInvalid: when even the helper thread's recursion limit is not enough, or the engines fail.
        """
        deadline = patterns.new_deadline()
        try:
            if depth <= _INLINE_DEPTH:
                try:
                    return work(deadline)
                except RecursionError:
                    pass
            return deep_call(work, deadline)
        except (SchemaInvalid, InstanceTooDeep):
            raise
        except RecursionError:
            raise SchemaInvalid(
                f"this schema cannot be evaluated on a value nested {depth} levels deep: the "
                f"reference engine needs more than {_DEEP_RECURSION_LIMIT} nested steps; simplify "
                f"the $ref chains the value goes through"
            ) from None
        except Exception as exc:  # noqa: BLE001 - the documented safety net, see errors.engine_failure
            raise schema_errors.engine_failure(exc, "on this value") from None

    def errors(self, instance: Any) -> list[SchemaError]:
        """All errors, the most relevant first (python-jsonschema's ``best_match`` preferences; ties keep the
        schema's and the document's order). When the reference engine gives up on a catastrophic ``pattern``,
        the Rust engine (linear-time matching) explains the errors instead.

        :raises PatternTimeout: when no engine can evaluate a ``pattern`` on this instance.
        :raises InstanceTooDeep, SchemaInvalid: as :meth:`is_valid`.
        """

        def work(deadline: float) -> list[SchemaError]:
            raw = list(self._iter_python(instance, deadline))
            return [self._convert(e) for e in sorted(raw, key=relevance, reverse=True)]

        try:
            return self._guarded(instance, instance_depth(instance), work)
        except PatternTimeout:
            if self._rust is None:
                raise
            # The reference engine backtracks catastrophically; the Rust engine matches patterns in linear
            # time, so its answer stands and its errors explain it.
            try:
                return self._rust_errors(instance)
            except SchemaInvalid:
                raise
            except Exception as exc:  # noqa: BLE001 - the documented safety net, see errors.engine_failure
                raise schema_errors.engine_failure(exc, "on this value") from None

    def output(self, instance: Any, form: str = "basic") -> dict[str, Any]:
        """The JSON Schema 2020-12 output (core §12) of validating ``instance``, in format ``form`` (``flag``,
        ``basic`` or ``detailed``: :mod:`webapp.core.schema.output`).

        :raises ValueError: for an unknown ``form``.
        :raises PatternTimeout, InstanceTooDeep, SchemaInvalid: as :meth:`errors`.
        """
        if form not in OUTPUT_FORMATS:
            raise ValueError(f"unknown output format {form!r}; use one of {', '.join(OUTPUT_FORMATS)}")
        if form == "flag":
            return output_unit([] if self.is_valid(instance) else [{}], [], form)

        def work(deadline: float) -> list[dict[str, Any]]:
            raw = list(self._iter_python(instance, deadline))
            return [self._output_error(e) for e in sorted(raw, key=relevance, reverse=True)]

        failures = self._guarded(instance, instance_depth(instance), work)
        annotations = [] if failures or self._rust is None else self._rust_annotations(instance)
        return output_unit(failures, annotations, form)

    def _output_error(self, error: ValidationError) -> dict[str, Any]:
        """One failing output unit (and those of the alternatives of an ``anyOf``/``oneOf``) of a reference-engine
        error."""
        converted = self._convert(error)
        tokens = self._evaluation_path(list(error.absolute_schema_path))
        location = converted.schema_path
        if converted.keyword == "false" and tokens and tokens[-1] == "not":
            tokens = tokens[:-1]  # the marker {"not": {}} stands for the `false` itself
        unit: dict[str, Any] = {
            "keywordLocation": jp.join(tokens),
            "absoluteKeywordLocation": self._absolute_location(location),
            "instanceLocation": converted.pointer,
            "error": converted.message,
        }
        unit["errors"] = [self._output_error(e) for e in sorted(error.context or (), key=relevance, reverse=True)]
        return unit

    def _evaluation_path(self, tokens: list[Any]) -> list[Any]:
        """python-jsonschema's schema path with the ``$ref`` steps it leaves out put back (2020-12 core §12.3.1:
        the keyword location goes through references): where a token is no member of the schema reached so far
        but that schema has a ``$ref``, the path went through it."""
        nodes, edges = self._analysis.nodes, self._analysis.edges
        path: list[Any] = []
        here: str | None = ""
        for token in tokens:
            while here is not None:
                value = nodes[here].value if here in nodes else None
                holder = jp.resolve(self._analysis.schema, here) if value is None else value
                if isinstance(holder, dict) and str(token) in holder or isinstance(holder, list):
                    here = jp.child(here, token)
                    break
                if isinstance(holder, dict) and "$ref" in holder:
                    target = next((t for t, via in edges.get(here, ()) if via == "$ref"), None)
                    path.append("$ref")
                    here = target
                    continue
                here = None  # a dynamic reference: what follows is not known statically
            path.append(token)
        return path

    def _absolute_location(self, pointer: str) -> str:
        """The URI of the schema location ``pointer`` (in this document): its resource's URI, then the pointer
        within that resource as the fragment (2020-12 core §12.3.2)."""
        owner = pointer
        while owner not in self._analysis.nodes and owner:
            owner = owner.rsplit("/", 1)[0]
        base = self._analysis.nodes[owner].base if owner in self._analysis.nodes else ""
        root = self._analysis.resources.get(base, "")
        return f"{base}#{quote(pointer[len(root) :], safe=_FRAGMENT_SAFE)}"

    def _rust_annotations(self, instance: Any) -> list[dict[str, Any]]:
        """The annotations the Rust engine collects for a valid ``instance``, as 2020-12 output units."""
        units = []
        for node in self._rust.evaluate(instance).list().get("details", ()):
            for keyword, value in (node.get("annotations") or {}).items():
                location = node["schemaLocation"]
                units.append(
                    {
                        "keywordLocation": jp.child(node["evaluationPath"], keyword),
                        "absoluteKeywordLocation": location + jp.join([keyword]),
                        "instanceLocation": node["instanceLocation"],
                        "annotation": value,
                    }
                )
        return units

    def _rust_errors(self, instance: Any) -> list[SchemaError]:
        """Errors as the Rust engine reports them, one per offending member like ours."""
        found: list[SchemaError] = []
        for error in self._rust.iter_errors(instance):
            where = jp.join(error.instance_path)
            schema_path = jp.join(error.schema_path)
            kind = error.kind
            if error.message.startswith("Error executing regex"):  # lookaround/backreferences: it backtracks too
                raise PatternTimeout(
                    "this pattern backtracks catastrophically on the value at "
                    f"{where or '(root)'} in both engines, so no answer can be given; rewrite "
                    "it without nested or overlapping repetition",
                    schema_path,
                    "pattern",
                )
            keyword = {"falseSchema": "false"}.get(kind.name, kind.name)
            if keyword in ("additionalProperties", "unevaluatedProperties") and getattr(kind, "unexpected", None):
                for key in kind.unexpected:
                    found.append(
                        SchemaError(
                            jp.child(where, key),
                            keyword,
                            schema_path,
                            f"unexpected property {show(key)}: {keyword} is false",
                        )
                    )
            elif keyword == "required" and isinstance(getattr(kind, "property", None), str):
                found.append(
                    SchemaError(
                        jp.child(where, kind.property),
                        keyword,
                        schema_path,
                        f"missing required property {show(kind.property)}",
                    )
                )
            else:
                found.append(SchemaError(where, keyword, schema_path, error.message))
        return found

    def _convert(self, error: ValidationError) -> SchemaError:
        keyword = keyword_of(error)
        false_at = self._false_markers.get(id(error.schema)) if keyword == "not" else None
        if false_at is not None:
            keyword = "false"
            schema_path = false_at
            message = f"not allowed here: the schema is false (value {show(error.instance)})"
        else:
            owner = self._analysis.node_by_id.get(id(error.schema)) if isinstance(error.schema, dict) else None
            if owner is not None and keyword != "false":
                schema_path = jp.child(owner, keyword)
            else:
                schema_path = jp.join(error.absolute_schema_path)
            message = plain_message(error, keyword)
        return SchemaError(jp.join(error.absolute_path), keyword, schema_path, message)


def instance_depth(instance: Any) -> int:
    """Nesting of arrays/objects in ``instance`` (a scalar is 0, ``[]`` is 1), counted without recursion.

    :raises InstanceTooDeep: beyond :data:`MAX_INSTANCE_DEPTH`."""
    if not isinstance(instance, (dict, list)):
        return 0
    for child in instance.values() if isinstance(instance, dict) else instance:
        if isinstance(child, (dict, list)):
            break
    else:
        return 1  # the common case (flat arguments), without the walk below
    deepest = 1
    stack: list[tuple[Any, int]] = [(instance, 1)]
    while stack:
        value, depth = stack.pop()
        if depth > MAX_INSTANCE_DEPTH:
            raise InstanceTooDeep(f"the value is nested deeper than {MAX_INSTANCE_DEPTH} levels")
        deepest = max(deepest, depth)
        children = value.values() if isinstance(value, dict) else value
        stack.extend((child, depth + 1) for child in children if isinstance(child, (dict, list)))
    return deepest


_T = TypeVar("_T")
# Values nested deeper than this are validated by the reference engine in a helper thread right away.
_INLINE_DEPTH = 24
# The helper thread: a stack far bigger than it needs (virtual memory, committed as used; a frame of this
# engine takes a few hundred bytes of it), and the recursion limit raised while it runs. The limit is process-
# wide in Python 3.11: kept moderate, so that other threads (8 MB stacks) still stop at RecursionError.
_DEEP_STACK_BYTES = 128 * 1024 * 1024
_DEEP_RECURSION_LIMIT = 20_000
_deep_lock = threading.Lock()


def deep_call(work: Callable[[float], _T], deadline: float) -> _T:
    """``work(deadline)`` in a helper thread with a big stack and a raised recursion limit (one at a time).

    :raises: whatever ``work`` raises (``RecursionError`` when even this is not enough).
    """
    outcome: list[Any] = []

    def run() -> None:
        try:
            outcome.append((True, work(deadline)))
        except BaseException as exc:  # noqa: BLE001 - handed to the waiting thread
            outcome.append((False, exc))

    helper = threading.Thread(target=run, name="schema-deep-value", daemon=True)
    with _deep_lock:
        previous_limit = sys.getrecursionlimit()
        sys.setrecursionlimit(max(previous_limit, _DEEP_RECURSION_LIMIT))
        try:
            previous_stack = threading.stack_size(_DEEP_STACK_BYTES)  # read when the thread starts
            try:
                helper.start()
            finally:
                threading.stack_size(previous_stack)
            helper.join()
        finally:
            sys.setrecursionlimit(previous_limit)
    ok, value = outcome[0]
    if not ok:
        raise value
    return value


# --------------------------------------------------------------------------------------------------------------
# Compile once

# Estimated memory of a compiled schema beyond its patterns, for the caches' byte bounds: measured with both
# engines (a fixed part, then about 70 bytes per character of canonical JSON: the copies, the analysis, the
# python-jsonschema and Rust validators).
_SCHEMA_BYTES_FIXED = 48 * 1024
_SCHEMA_BYTES_PER_CHAR = 80


def _estimated_bytes(canonical: str, result: CompiledSchema | SchemaInvalid) -> int:
    """What caching ``result`` (compiled from ``canonical``) costs: the key, and the compiled schema with the Rust
    engine's own copies of its patterns."""
    size = 2 * len(canonical)
    if isinstance(result, CompiledSchema):
        size += (
            _SCHEMA_BYTES_FIXED
            + _SCHEMA_BYTES_PER_CHAR * len(canonical)
            + patterns.PATTERN_BYTES_PER_ATOM * result.pattern_cost
        )
    else:
        size += 1024
    return size


def _canonical(schema: Any) -> str:
    """Canonical JSON text of a schema (the cache key). :raises SchemaInvalid: when it is not JSON."""
    try:
        return json.dumps(schema, sort_keys=True, separators=(",", ":"), ensure_ascii=False, allow_nan=False)
    except RecursionError:
        raise SchemaInvalid(f"the schema is nested deeper than {MAX_SCHEMA_DEPTH} levels") from None
    except (TypeError, ValueError) as exc:
        raise SchemaInvalid(f"the schema is not JSON: {exc}") from None


def compile_schema(schema: dict | bool, *, format_assertion: bool = False) -> CompiledSchema:
    """Check and compile ``schema`` once; later calls with an equal schema return the same object.

    Equal means the same canonical JSON (keys sorted), so two tools sharing a schema share one compilation; the
    same dict object is recognised by identity first (schemas are treated as immutable once compiled). Both
    caches are bounded by count and by estimated bytes (:mod:`webapp.core.schema.cache`).

    :param schema: a JSON Schema document: an object, or ``true``/``false``.
    :param format_assertion: assert ``format`` (the formats in
        :data:`webapp.core.schema.formats.DIALECT_FORMATS` of the schema's dialect); off by default, as 2020-12
        makes ``format`` an annotation (validation §7.2).
    :raises SchemaInvalid: when the schema is unusable (the exception is cached too), including a ``pattern``
        too costly to compile (:data:`webapp.core.schema.patterns.MAX_PATTERN_COST`).
    """
    identity = (id(schema), format_assertion)
    hit = IDENTITIES.get(identity)
    if hit is not None and hit[0] is schema:
        result = hit[1]
    else:
        result, size = _compile_uncached_identity(schema, format_assertion)
        IDENTITIES.put(identity, (schema, result), size)
    if isinstance(result, SchemaInvalid):
        raise result
    return result


def _compile_uncached_identity(schema: Any, format_assertion: bool) -> tuple[CompiledSchema | SchemaInvalid, int]:
    """The compiled schema (or its problem) by canonical JSON, and its estimated size (bytes)."""
    if not isinstance(schema, (dict, bool)):
        return SchemaInvalid(f"a schema must be a JSON object or a boolean, not {json_type(schema)}"), 1024
    try:
        key = (_canonical(schema), format_assertion)
    except SchemaInvalid as exc:
        return exc, 1024
    found = SCHEMAS.get(key)
    if found is not None:
        SCHEMAS.touch(key)
        return found
    try:
        # a private copy: the caller may go on mutating its dict
        result: CompiledSchema | SchemaInvalid = CompiledSchema(
            json.loads(json.dumps(schema)), format_assertion=format_assertion
        )
    except SchemaInvalid as exc:
        result = exc
    except RecursionError:
        result = SchemaInvalid(f"the schema is nested deeper than {MAX_SCHEMA_DEPTH} levels")
    except Exception as exc:  # noqa: BLE001 - the documented safety net, see errors.engine_failure
        result = schema_errors.engine_failure(exc, "")
    size = _estimated_bytes(key[0], result)
    SCHEMAS.put(key, (result, size), size)
    return result, size

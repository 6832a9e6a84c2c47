"""JSON Schema page (step 2): validate a tool call's parsed ``arguments`` against the tool's JSON Schema.

``GET /schema`` shows the form (``?example=<name>`` fills it with one of the article's examples);
``POST /schema`` (fields ``instance``, ``schema``, ``format_assertion``) shows the result: the htmx
request gets the ``schema/_result.html`` partial, a plain POST the full page with both texts kept.

The view only glues: parsing is :mod:`webapp.core.json.text`, validation :mod:`webapp.core.schema`, the item's
verdict :mod:`webapp.core.gate`. What is left here is page glue: unwrapping what was pasted (a whole
``function_call`` item, a tool definition) and mapping error pointers back to line:column in the
pasted text, including into the ``arguments`` string of a pasted item.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

from flask import Blueprint, render_template, request

from webapp.core.json import pointer
from webapp.core.gate import Verdict, check_item
from webapp.web.htmx import is_partial
from webapp.web.limits import parse_limits
from webapp.core.json.text import NOT_IJSON, Document, JSONTextError, json_type, loads_ijson, parse, try_loads_ijson
from webapp.core.json.text import quote as _quote
from webapp.core.schema import CompiledSchema, SchemaError, SchemaInvalid, compile_schema

bp = Blueprint("schema", __name__)

#: At most this many errors are listed (all are counted); a huge failing array must not make a huge page.
MAX_ERRORS_SHOWN = 200
#: Instance values and expected values are shown as JSON text cut to this many characters.
MAX_VALUE_CHARS = 160

_ENCODER = json.JSONEncoder(ensure_ascii=False)

Position = tuple[int, int]  # (line, column), both 1-based, column in characters

# -- the article's examples (seeds/replay-gate-article.ru.txt) -------------------------------------------

_REGION_SCHEMA = {
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "type": "object",
    "additionalProperties": False,
    "required": ["region"],
    "properties": {"region": {"type": "string", "enum": ["apac", "emea", "amer"]}},
}


def _call(item_id: str, call_id: str, region: str) -> dict[str, Any]:
    return {"type": "function_call", "id": item_id, "name": "get_latest_sales_report", "call_id": call_id,
            "status": "completed", "arguments": json.dumps({"region": region}, separators=(",", ":"))}


#: name -> (button label, instance, schema): plain links fill the form, no JavaScript needed.
EXAMPLES: dict[str, tuple[str, Any, Any]] = {
    "fc_001": ("fc_001 · apac (ok)", _call("fc_001", "call_123", "apac"), _REGION_SCHEMA),
    "fc_009": ("fc_009 · global (not in enum)", _call("fc_009", "call_129", "global"), _REGION_SCHEMA),
    "tool": ("fc_009 · against the tool definition", _call("fc_009", "call_129", "global"),
             {"type": "function", "name": "get_latest_sales_report",
              "description": "Latest sales report for a region", "parameters": _REGION_SCHEMA, "strict": True}),
}


# -- what the template receives ---------------------------------------------------------------------------

@dataclass(frozen=True)
class ParseProblem:
    """A pasted text (or a pasted item's ``arguments`` string) that is not JSON."""

    source: str                   # "instance", "schema" or "arguments" (the string inside the pasted item)
    error: JSONTextError
    position: Position | None     # in the pasted text (differs from the error's own for "arguments")


@dataclass(frozen=True)
class Taken:
    """Which part of a pasted text was used, so the page can say so.

    ``kind``: "call" (an Open Responses ``function_call`` item), "chat_call" (a Chat Completions
    tool call) or "tool" (a tool definition); ``name``: the function's name; ``ident``: the item's
    ``id``; ``shape``: for a tool "flat" or "nested", for a call the JSON type of its ``arguments``
    ("string" is the right one); ``pointer``: where the used part is in the pasted text; ``of``:
    for a tool picked from a list, how many tools the list had.
    """

    kind: str
    pointer: str
    name: str | None = None
    ident: str | None = None
    shape: str | None = None
    of: int | None = None


@dataclass(frozen=True)
class SchemaProblem:
    """The schema (after unwrapping) cannot be used: shown in its own pane, apart from instance errors."""

    message: str
    pointer: str | None = None    # into the pasted schema text
    keyword: str | None = None
    position: Position | None = None


@dataclass(frozen=True)
class TextWarning:
    """A parse warning (duplicate key, big integer, ...) and the pasted text it belongs to."""

    source: str
    code: str
    message: str
    pointer: str
    position: Position | None


@dataclass(frozen=True)
class ErrorRow:
    """One validation error as shown: the error, whether it is the best match, and what the schema expects."""

    error: SchemaError
    best: bool
    schema_position: Position | None   # where the failing keyword is in the pasted schema text
    expected_label: str | None         # "allowed values", "expected type", "allowed members", ...
    expected: list[str]                # JSON texts


@dataclass
class ErrorGroup:
    """All errors at one instance location, in best-match order."""

    pointer: str
    position: Position | None
    value: str | None                  # the instance value there as JSON text; None when the member is missing
    rows: list[ErrorRow] = field(default_factory=list)


@dataclass
class Check:
    """Everything the result pane shows for one POST."""

    instance_text: str = ""
    schema_text: str = ""
    format_assertion: bool = False
    parse_problems: list[ParseProblem] = field(default_factory=list)
    warnings: list[TextWarning] = field(default_factory=list)
    instance_taken: Taken | None = None    # None: the whole pasted instance text
    schema_taken: Taken | None = None      # None: the whole pasted schema text
    item: dict[str, Any] | None = None     # the pasted Open Responses item (function_call or another), if any
    ijson_error: JSONTextError | None = None  # bare arguments that are not I-JSON: the gate stops at arguments_parse
    call_name: str | None = None           # the function name of a pasted call
    instance: Any = None
    has_instance: bool = False
    schema_problem: SchemaProblem | None = None
    compiled: CompiledSchema | None = None
    checkable_formats: tuple[str, ...] = ()  # formats checked when format assertion is on
    unchecked_formats: list[str] = field(default_factory=list)  # used by the schema, never checked
    verdict: Verdict | None = None
    groups: list[ErrorGroup] = field(default_factory=list)
    error_count: int = 0

    @property
    def submitted(self) -> bool:
        return bool(self.instance_text.strip() or self.schema_text.strip())

    @property
    def valid(self) -> bool | None:
        """True/False once both inputs are usable and validated; None while something is missing or the
        schema turned out unusable (also while validating: a catastrophic ``pattern``)."""
        if self.compiled is None or not self.has_instance or self.schema_problem is not None:
            return None
        return self.error_count == 0

    @property
    def needs(self) -> list[str]:
        """Which inputs are still empty ("instance", "schema")."""
        return [name for name, text in (("instance", self.instance_text), ("schema", self.schema_text))
                if not text.strip()]

    @property
    def shown_count(self) -> int:
        return sum(len(group.rows) for group in self.groups)

    @property
    def name_mismatch(self) -> bool:
        """The pasted call names another function than the pasted tool definition."""
        return (self.call_name is not None and self.schema_taken is not None
                and self.schema_taken.name is not None and self.schema_taken.name != self.call_name)


# -- routes ------------------------------------------------------------------------------------------------

@bp.get("/schema")
def page() -> str:
    """The empty form, or ``?example=fc_001|fc_009|tool`` filled in and checked (unknown names: empty form)."""
    example = EXAMPLES.get(request.args.get("example", ""))
    if example is None:
        return _render(Check(), full=True)
    _, instance, schema = example
    return _render(run_check(json.dumps(instance, indent=2), json.dumps(schema, indent=2)), full=True)


@bp.post("/schema")
def check() -> str:
    """Validate ``instance`` against ``schema``; the htmx request gets the result partial.

    A POST without a ``schema`` field is a carry from step 1 (Format): the full page opens with the
    instance filled in and asks for the schema, whatever the request's headers.
    """
    form = request.form
    result = run_check(form.get("instance", ""), form.get("schema", ""),
                       format_assertion=form.get("format_assertion") == "on")
    return _render(result, full="schema" not in form or not is_partial())


def _render(check: Check, *, full: bool) -> str:
    return render_template("schema/page.html" if full else "schema/_result.html", check=check, examples=EXAMPLES)


# -- the check ---------------------------------------------------------------------------------------------

def run_check(instance_text: str, schema_text: str, *, format_assertion: bool = False) -> Check:
    """Parse both texts, unwrap them, validate, and collect what the result pane shows.

    Never raises for bad input: every problem lands in the returned :class:`Check`. Needs an app
    context (the parse limits are ``JSON_MAX_DEPTH`` and ``MAX_CONTENT_LENGTH`` from the config).
    """
    check = Check(instance_text=instance_text, schema_text=schema_text, format_assertion=format_assertion)
    instance_doc = _parse_input(check, "instance", instance_text)
    schema_doc = _parse_input(check, "schema", schema_text)
    locate_instance = None if instance_doc is None else _take_instance(check, instance_doc)
    if schema_doc is None:
        return check
    schema, locate_schema = _take_schema(check, schema_doc)
    if locate_schema is None:
        return check
    try:
        check.compiled = compile_schema(schema, format_assertion=format_assertion)
    except SchemaInvalid as problem:
        check.schema_problem = SchemaProblem(problem.message, problem.pointer, problem.keyword,
                                             locate_schema(problem.pointer or ""))
        return check
    # Listed even while assertion is off, so the user knows what the toggle would change.
    check.checkable_formats = (check.compiled.checked_formats if format_assertion
                               else compile_schema(schema, format_assertion=True).checked_formats)
    check.unchecked_formats = _unchecked_formats(schema, check.checkable_formats)
    if check.item is not None:
        # A tool definition for another function is no schema for this call: the gate never runs it.
        check.verdict = check_item(check.item, None if check.name_mismatch else schema,
                                   format_assertion=format_assertion, tool_name=check.call_name)
    if locate_instance is None:
        return check
    try:
        errors = check.compiled.errors(check.instance)
    except SchemaInvalid as problem:  # a catastrophic `pattern` found only while validating (PatternTimeout)
        check.schema_problem = SchemaProblem(problem.message, problem.pointer, problem.keyword,
                                             locate_schema(problem.pointer or ""))
        return check
    check.error_count = len(errors)
    shown = errors[:MAX_ERRORS_SHOWN]
    # One scan per pasted text for all shown places (the parse layer skips what holds none), not one per error.
    instance_at = locate_instance.many(error.pointer for error in shown)
    schema_at = locate_schema.many(error.schema_path for error in shown)
    check.groups = _group(shown, check.instance, schema, instance_at, schema_at)
    return check


def _parse(text: str, *, ijson: bool = False) -> Document:
    return parse(text, **parse_limits().parse_options, ijson=ijson)


def _parse_input(check: Check, source: str, text: str) -> Document | None:
    """Parse one pasted text; record its parse error or warnings. Empty text is "not yet pasted", not an error."""
    if not text.strip():
        return None
    try:
        document = _parse(text)
    except JSONTextError as error:
        check.parse_problems.append(ParseProblem(source, error, (error.line, error.column)))
        return None
    check.warnings.extend(_warnings(source, document, lambda line, column: (line, column)))
    return document


def _warnings(source: str, document: Document,
              move: Callable[[int, int], Position | None]) -> list[TextWarning]:
    """The document's warnings, their line:column moved into the pasted text by ``move``."""
    return [TextWarning(source, w.code, w.message, w.pointer, move(w.line, w.column)) for w in document.warnings]


def _take_instance(check: Check, document: Document) -> _Locator | None:
    """Decide what the instance is: a pasted call's ``arguments`` (parsed from its string) or the whole text.

    Open Responses ``function_call`` items and Chat Completions tool calls are unwrapped (Open Responses
    spec, Items: ``arguments`` is a JSON string). Returns how to locate an instance pointer in the pasted
    text, or None when there is no usable instance (the ``arguments`` string does not parse).
    """
    value = document.value
    envelope = _call_envelope(value)
    if envelope is None:
        check.instance, check.has_instance = value, True
        if _is_item(value):  # a message, an output, a namespaced extension...: the gate's verdict says why not
            check.item = value
        elif try_loads_ijson(document.text) is NOT_IJSON:
            # Bare arguments: the gate parses them as I-JSON (RFC 7493) before any schema, so a duplicate name
            # or a lone surrogate that the lenient parse only warned about stops it at arguments_parse.
            try:
                loads_ijson(document.text)
            except JSONTextError as error:
                check.ijson_error = error
        return _Locator(document)
    at, kind = envelope
    arguments = pointer.resolve(value, at)
    check.call_name = _str_or_none(pointer.resolve(value, at.rsplit("/", 1)[0]).get("name"))
    check.item = value if kind == "call" else None
    check.instance_taken = Taken(kind, at, check.call_name, _str_or_none(value.get("id")), json_type(arguments))
    if not isinstance(arguments, str):
        # Stored as an object: the wrong form (the gate says arguments_type), but its content can still be checked.
        check.instance, check.has_instance = arguments, True
        return _Locator(document, at)
    locate_string = _string_locator(document, at, arguments)
    try:
        # I-JSON, as the gate reads arguments: a duplicate member name there is arguments_parse, not a warning.
        inner = _parse(arguments, ijson=True)
    except JSONTextError as error:
        check.parse_problems.append(ParseProblem("arguments", error, locate_string(error.line, error.column)))
        return None
    check.instance, check.has_instance = inner.value, True
    check.warnings.extend(_warnings("arguments", inner, locate_string))
    return _Locator(inner, move=locate_string)


#: Open Responses item types other than function_call (Open Responses spec, Items), besides namespaced ones.
_OTHER_ITEM_TYPES = frozenset({"message", "function_call_output", "reasoning", "item_reference", "compaction"})


def _is_item(value: Any) -> bool:
    """An Open Responses item that is not a call to unwrap: a core type, or a provider extension (``slug:name``)."""
    kind = value.get("type") if isinstance(value, dict) else None
    return isinstance(kind, str) and (kind in _OTHER_ITEM_TYPES or ":" in kind)


def _call_envelope(value: Any) -> tuple[str, str] | None:
    """``("/arguments", "call")`` for an Open Responses ``function_call`` item, ``("/function/arguments",
    "chat_call")`` for a Chat Completions tool call ``{type: "function", function: {name, arguments}}``."""
    if not isinstance(value, dict):
        return None
    if value.get("type") == "function_call" and "arguments" in value:
        return "/arguments", "call"
    function = value.get("function")
    if value.get("type") == "function" and isinstance(function, dict) and "arguments" in function:
        return "/function/arguments", "chat_call"
    return None


def _take_schema(check: Check, document: Document) -> tuple[Any, _Locator | None]:
    """Decide what the schema is: a bare JSON Schema, or the ``parameters`` of a tool definition.

    Tool definitions: Open Responses ``{type: "function", name, parameters}`` (flat; Open Responses
    spec, FunctionTool) and Chat Completions ``{type: "function", function: {name, parameters}}``
    (nested); in a list of them the pasted call's ``name`` picks one. Returns ``(schema, locate)``;
    ``locate`` is None when no usable schema was found (the reason is in ``check.schema_problem``).
    """
    value, prefix, of = document.value, "", None
    if isinstance(value, list) and value and all(_tool_parts(t) for t in value):
        names = [_tool_parts(t)[1] for t in value]  # type: ignore[index]
        listed = ", ".join(_quote(n) if n else "(unnamed)" for n in names[:10]) + (", …" if len(names) > 10 else "")
        if check.call_name is None:
            check.schema_problem = SchemaProblem(
                f"A list of {len(value)} tool definitions ({listed}): paste the whole function_call item so its "
                "name picks one, or paste one tool definition.", pointer="", position=document.position(""))
            return None, None
        if check.call_name not in names:
            check.schema_problem = SchemaProblem(
                f"A list of {len(value)} tool definitions ({listed}) without the called function "
                f"{_quote(check.call_name)}.", pointer="", position=document.position(""))
            return None, None
        index = names.index(check.call_name)
        value, prefix, of = value[index], f"/{index}", len(value)
    parts = _tool_parts(value)
    if parts is None:
        schema = value
    else:
        at, name, shape = parts
        check.schema_taken = Taken("tool", prefix + at, name, shape=shape, of=of)
        label = f"The {'Chat Completions' if shape == 'nested' else 'Open Responses'} tool definition"
        label += f" {_quote(name)}" if name else ""
        if "parameters" not in pointer.resolve(value, at.rsplit("/", 1)[0]):
            check.schema_problem = SchemaProblem(f"{label} has no \"parameters\": nothing to validate against.",
                                                 pointer=prefix, position=document.position(prefix))
            return None, None
        prefix += at
        schema = pointer.resolve(document.value, prefix)
        if schema is None:
            check.schema_problem = SchemaProblem(f"{label} has \"parameters\": null, so it declares no schema "
                                                 "to validate against.", pointer=prefix,
                                                 position=document.position(prefix))
            return None, None
    if not isinstance(schema, (dict, bool)):
        check.schema_problem = SchemaProblem(
            f"A JSON Schema is an object or a boolean (JSON Schema 2020-12 §4.3.1), not a JSON {json_type(schema)}.",
            pointer=prefix, position=document.position(prefix))
        return None, None
    return schema, _Locator(document, prefix)


def _tool_parts(value: Any) -> tuple[str, str | None, str] | None:
    """``(pointer to parameters, tool name, "flat" | "nested")`` when ``value`` is a function tool definition.

    A JSON Schema never has ``"type": "function"`` (not a JSON type), so the test is unambiguous.
    """
    if not isinstance(value, dict) or value.get("type") != "function":
        return None
    function = value.get("function")
    if isinstance(function, dict):
        return "/function/parameters", _str_or_none(function.get("name")), "nested"
    return "/parameters", _str_or_none(value.get("name")), "flat"


def _unchecked_formats(schema: Any, checkable: tuple[str, ...]) -> list[str]:
    """``format`` values the schema uses that are not among the really checked ones (they always pass)."""
    used: set[str] = set()
    stack = [schema]
    while stack:  # iterative: the schema may be as deep as the parse limit allows
        node = stack.pop()
        if isinstance(node, dict):
            for key, sub in node.items():
                if key == "format" and isinstance(sub, str):
                    used.add(sub)
                elif key not in ("enum", "const", "default", "examples"):  # data, not subschemas
                    stack.append(sub)
        elif isinstance(node, list):
            stack.extend(node)
    return sorted(used - set(checkable))


def _group(errors: list[SchemaError], instance: Any, schema: Any, instance_at: dict[str, Position | None],
           schema_at: dict[str, Position | None]) -> list[ErrorGroup]:
    """Group errors by instance pointer; groups ordered by their best error, the best match first.
    ``instance_at``/``schema_at``: where each error's pointer and schema location are in the pasted texts."""
    groups: dict[str, ErrorGroup] = {}
    for index, error in enumerate(errors):
        group = groups.get(error.pointer)
        if group is None:
            group = groups[error.pointer] = ErrorGroup(error.pointer, instance_at[error.pointer],
                                                       _value_at(instance, error.pointer))
        label, expected = _expected(schema, error)
        group.rows.append(ErrorRow(error, index == 0, schema_at[error.schema_path], label, expected))
    return list(groups.values())


def _expected(schema: Any, error: SchemaError) -> tuple[str | None, list[str]]:
    """What the failing keyword allows, read from the schema (shown beside the value, never applied to it)."""
    try:
        value = pointer.resolve(schema, error.schema_path)
    except (KeyError, ValueError):  # a location through $ref is not a place in the pasted text
        return None, []
    if error.keyword == "enum" and isinstance(value, list):
        return "allowed values", [_short_json(v) for v in value]
    if error.keyword == "const":
        return "required value", [_short_json(value)]
    if error.keyword == "type":
        return "expected type", [_short_json(v) for v in (value if isinstance(value, list) else [value])]
    if error.keyword in ("additionalProperties", "unevaluatedProperties"):
        parent = _value_or_none(schema, error.schema_path.rsplit("/", 1)[0])
        names = parent.get("properties") if isinstance(parent, dict) else None
        if isinstance(names, dict):
            return "allowed members", [_short_json(n) for n in names]
    return None, []


def _value_or_none(document: Any, at: str) -> Any:
    try:
        return pointer.resolve(document, at)
    except (KeyError, ValueError):
        return None


def _value_at(instance: Any, at: str) -> str | None:
    """The instance value at ``at`` as short JSON text; None when there is no such member (``required``)."""
    try:
        return _short_json(pointer.resolve(instance, at))
    except (KeyError, ValueError):
        return None


def _short_json(value: Any) -> str:
    """``value`` as JSON text cut to :data:`MAX_VALUE_CHARS`; encoded lazily, so a huge value (an error at
    the root of a 20 MB array) costs no more than its first characters."""
    parts: list[str] = []
    size = 0
    for chunk in _ENCODER.iterencode(value):  # not one-shot: the pure-Python encoder yields as it goes
        parts.append(chunk)
        size += len(chunk)
        if size > MAX_VALUE_CHARS:
            return "".join(parts)[: MAX_VALUE_CHARS - 1] + "…"
    return "".join(parts)


# -- mapping pointers of the used part back to line:column in the pasted text --------------------------------

@dataclass(frozen=True)
class _Locator:
    """Where pointers into the used part (the instance or schema actually checked) start in the pasted text.

    ``document`` holds the used part under ``prefix`` (a pasted item's ``/arguments`` stored as an object, a
    tool definition's ``/parameters``); for ``arguments`` parsed from a JSON string, ``document`` is that
    string's own document and ``move`` maps its (line, column) into the pasted text (:func:`_string_locator`).
    """

    document: Document
    prefix: str = ""
    move: Callable[[int, int], Position | None] | None = None

    def many(self, pointers: Iterable[str]) -> dict[str, Position | None]:
        """Positions of many pointers, found in one scan of the document (the parse layer keeps them, so a
        later single lookup of one of them is free). :raises ValueError: on a malformed pointer."""
        wanted = list(dict.fromkeys(pointers))
        found = self.document.positions([self.prefix + p for p in wanted])
        move = self.move
        placed: dict[str, Position | None] = {}
        for p in wanted:
            inside = found[self.prefix + p]
            placed[p] = inside if inside is None or move is None else move(*inside)
        return placed

    def __call__(self, at: str) -> Position | None:
        return self.many([at])[at]


# -- mapping positions inside an item's ``arguments`` string back to the pasted text ------------------------

def _string_locator(document: Document, at: str, decoded: str) -> Callable[[int, int], Position | None]:
    """Map (line, column) inside the string ``decoded``, found at pointer ``at``, to (line, column) in the
    pasted ``document.text``.

    A JSON string literal sits on one line of the pasted text (RFC 8259 §7: no raw control characters),
    so only the column moves: each decoded character is 1 raw character, 2 for ``\\n``-style escapes,
    6 for ``\\uXXXX`` and 12 for an escaped surrogate pair. The locator returns None when the literal
    cannot be found.
    """
    text = document.text
    key = document.position(at)
    start = None if key is None else _value_start(text, _offset(text, *key))
    if start is None:
        return lambda line, column: None
    raw: list[int] = []  # raw offset of each decoded character
    i = start + 1
    while i < len(text) and text[i] != '"':
        raw.append(i)
        if text[i] != "\\":
            i += 1
        elif text[i + 1: i + 2] != "u":
            i += 2
        elif _is_high(text[i + 2: i + 6]) and text[i + 6: i + 8] == "\\u" and _is_low(text[i + 8: i + 12]):
            i += 12
        else:
            i += 6
    raw.append(i)  # one past the end: "unexpected end" errors of a truncated string land on its closing quote
    if len(raw) != len(decoded) + 1:  # not the literal we decoded (should not happen): no position beats a wrong one
        return lambda line, column: None
    line_start = text.rfind("\n", 0, start) + 1
    outer_line = text.count("\n", 0, start) + 1
    decoded_starts = [0] + [k + 1 for k, ch in enumerate(decoded) if ch == "\n"]

    def locate(line: int, column: int) -> Position | None:
        if not 1 <= line <= len(decoded_starts) or column < 1:
            return None
        index = min(decoded_starts[line - 1] + column - 1, len(raw) - 1)
        return outer_line, raw[index] - line_start + 1

    return locate


def _value_start(text: str, key_offset: int) -> int | None:
    """Offset of the value's first character after the member name starting at ``key_offset``."""
    if text[key_offset: key_offset + 1] != '"':
        return None
    i = key_offset + 1
    while i < len(text) and text[i] != '"':
        i += 2 if text[i] == "\\" else 1
    i += 1
    while i < len(text) and text[i] in " \t\r\n":
        i += 1
    if text[i: i + 1] != ":":
        return None
    i += 1
    while i < len(text) and text[i] in " \t\r\n":
        i += 1
    return i if text[i: i + 1] == '"' else None


def _offset(text: str, line: int, column: int) -> int:
    start = 0
    for _ in range(line - 1):
        start = text.index("\n", start) + 1
    return start + column - 1


def _is_high(hex4: str) -> bool:
    return len(hex4) == 4 and hex4[:2].lower() in ("d8", "d9", "da", "db")


def _is_low(hex4: str) -> bool:
    return len(hex4) == 4 and hex4[:2].lower() in ("dc", "dd", "de", "df")


# -- small helpers -------------------------------------------------------------------------------------------

def _str_or_none(value: Any) -> str | None:
    return value if isinstance(value, str) else None

"""The replay gate's rules: may a stored Open Responses item be executed again, on another provider or another day?

The contract is the replay-gate article's (the Open Responses blog, "После входа Open Responses в AAIF: какие
проверки type, arguments и status нужны перед повтором tool-call item?"): one reason per item, the first that
applies, in this order — written once, as the table :data:`STEPS`:

``namespaced``         ``type`` is not a string, or contains ``:`` (a provider extension, e.g.
                       ``openai:web_search_call``: Open Responses spec, "Extensions"; not portable);
``not_function_call``  any other portable item (message, function_call_output, reasoning, item_reference…):
                       nothing to execute — this is *not* a refusal;
``status``             a function_call whose ``status`` is not ``"completed"`` (``in_progress``/``incomplete``:
                       arguments may be cut off; spec, "Item state machine");
``arguments_type``     ``arguments`` is not a string (the spec stores it as a JSON-encoded string);
``arguments_parse``    ``arguments`` is not I-JSON (RFC 7493: also no NaN/Infinity, duplicate names or unpaired
                       surrogates — ambiguous arguments must never run), or nests deeper than ``max_depth``;
``arguments_schema``   the parsed arguments fail the tool's JSON Schema (full JSON Schema, :mod:`webapp.core.schema`);
``ok``                 the call may be executed and its ``function_call_output`` written.

Only ``ok`` lets a tool run; ``ok`` and ``not_function_call`` let an item pass (:data:`PASSING_REASONS`).
:func:`replay_gate` runs the table for the reason alone (the hot path); :func:`check_item` runs the same table and,
at the step that refuses, asks it why (:class:`Verdict`). A new rule is one :class:`Step` in :data:`STEPS`.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from webapp.core.items import RUNNABLE_STATUS, is_namespaced
from webapp.core.json import (
    DEFAULT_MAX_DEPTH,
    NOT_IJSON,
    JSONTextError,
    loads_ijson,
    try_loads_ijson,
)
from webapp.core.json import kind_of as _kind
from webapp.core.json import quote as _q
from webapp.core.schema import CompiledSchema, SchemaError, ValidationError, compile_schema

__all__ = [
    "DEFAULT_MAX_DEPTH",
    "PASSING_REASONS",
    "REASONS",
    "REFUSING_REASONS",
    "STEPS",
    "Step",
    "Verdict",
    "Why",
    "CALL_STEPS",
    "check_item",
    "judge",
    "judge_call",
    "replay_gate",
    "why_of",
]


_REFUSED = object()  # what a step's test answers when its rule refuses the item


@dataclass(frozen=True)
class Why:
    """How one item is checked besides its own value: what the steps' tests need (the compiled schema, the depth
    limit) and what their explanations add (the schema's problem, the tool's name). Hashable (the schema and its
    problem by identity): with an item's status and arguments, the key of a memoised verdict
    (:class:`webapp.core.gate.memo.VerdictMemo`). Made by :func:`why_of`.
    """

    compiled: CompiledSchema | None
    problem: SchemaError | None
    tool: str  # " of \"name\"" for messages, or ""
    max_depth: int


@dataclass(frozen=True)
class Step:
    """One rule of the gate.

    :ivar reason: the reason given when this rule refuses the item (one of :data:`REASONS`).
    :ivar test: ``test(value, compiled, max_depth)``: the value the next step examines when the rule lets the item
        pass, else the private refusal marker. The first step gets the item; each later one what the previous
        passed on (the item, then its ``arguments`` string, then the parsed arguments). ``compiled`` is the tool's
        compiled schema or ``None``. Builds no message. May raise :class:`SchemaError` (the schema step only:
        a catastrophic ``pattern`` that only the backtracking engine could run).
    :ivar explain: ``explain(value, why)`` -> ``(message, details)`` for :class:`Verdict`; called only with a
        value ``test`` refused.
    """

    reason: str
    test: Callable[[Any, CompiledSchema | None, int], Any]
    explain: Callable[[Any, Why], tuple[str, dict[str, Any]]]


def _portable_type(item: Any, compiled: CompiledSchema | None, max_depth: int) -> Any:
    item_type = item.get("type") if isinstance(item, dict) else None
    return item if isinstance(item_type, str) and not is_namespaced(item_type) else _REFUSED


def _why_namespaced(item: Any, why: Why) -> tuple[str, dict[str, Any]]:
    if not isinstance(item, dict):
        return f"the item is {_kind(item)}, not a JSON object with a type", {}
    item_type = item.get("type")
    if not isinstance(item_type, str):
        missing = "type is missing" if item_type is None else f"type is {_kind(item_type)}, not a string"
        return f"{missing}: not a portable Open Responses item", {}
    return (
        f'type {_q(item_type)} is a provider extension (it contains ":"): not portable to another provider, '
        f"and not a function_call to execute"
    ), {}


def _function_call(item: dict, compiled: CompiledSchema | None, max_depth: int) -> Any:
    return item if item["type"] == "function_call" else _REFUSED


def _why_not_function_call(item: dict, why: Why) -> tuple[str, dict[str, Any]]:
    return f"type {_q(item['type'])} is not function_call: nothing to execute (not a refusal)", {}


def _runnable_status(item: dict, compiled: CompiledSchema | None, max_depth: int) -> Any:
    return item if item.get("status") == RUNNABLE_STATUS else _REFUSED


def _why_status(item: dict, why: Why) -> tuple[str, dict[str, Any]]:
    status = item.get("status")
    shown = "missing" if status is None else _q(status)
    return (
        f"status is {shown}, not {_q(RUNNABLE_STATUS)}: the call may be unfinished and its arguments cut off; "
        f"do not execute it or write a function_call_output"
    ), {}


def _string_arguments(item: dict, compiled: CompiledSchema | None, max_depth: int) -> Any:
    arguments = item.get("arguments")
    return arguments if isinstance(arguments, str) else _REFUSED


def _why_arguments_type(item: dict, why: Why) -> tuple[str, dict[str, Any]]:
    shown = "missing" if "arguments" not in item else _kind(item["arguments"])
    return f"arguments is {shown}, not a string: Open Responses stores it as a JSON-encoded string", {}


def _ijson_arguments(arguments: str, compiled: CompiledSchema | None, max_depth: int) -> Any:
    parsed = try_loads_ijson(arguments, max_depth=max_depth)
    return _REFUSED if parsed is NOT_IJSON else parsed


def _why_arguments_parse(arguments: str, why: Why) -> tuple[str, dict[str, Any]]:
    try:
        _parse_arguments(arguments, max_depth=why.max_depth)
    except JSONTextError as err:
        return f"arguments is not valid I-JSON: {err}", {"parse_error": err}
    # Not reached: try_loads_ijson refuses exactly what loads_ijson raises for (tests/unit/test_gate.py checks it).
    return "arguments is not valid I-JSON", {}


def _valid_arguments(parsed: Any, compiled: CompiledSchema | None, max_depth: int) -> Any:
    """The parsed arguments when ``compiled`` accepts them (a value parsed with the depth limit, so the fast
    engine is safe). :raises SchemaError: a catastrophic ``pattern`` the reference engine alone had to run."""
    if compiled is None:
        return _REFUSED
    return parsed if compiled.is_valid(parsed) else _REFUSED


def _why_arguments_schema(parsed: Any, why: Why) -> tuple[str, dict[str, Any]]:
    if why.problem is not None:
        return (
            f"the schema{why.tool} is unusable, so the arguments cannot be checked: {why.problem}",
            {"arguments": parsed},
        )
    if why.compiled is None:
        return f"no schema{why.tool} to check the arguments against", {"arguments": parsed}
    errors = tuple(why.compiled.errors(parsed))
    count = f"{len(errors)} errors" if len(errors) != 1 else "1 error"
    first = f"; {errors[0].pointer or '(root)'}: {errors[0].message}" if errors else ""
    return (f"arguments do not match the schema{why.tool} ({count}{first})", {"errors": errors, "arguments": parsed})


#: The gate's rules in the article's order: the first that refuses gives the reason; past them all, ``ok``.
STEPS: tuple[Step, ...] = (
    Step("namespaced", _portable_type, _why_namespaced),
    Step("not_function_call", _function_call, _why_not_function_call),
    Step("status", _runnable_status, _why_status),
    Step("arguments_type", _string_arguments, _why_arguments_type),
    Step("arguments_parse", _ijson_arguments, _why_arguments_parse),
    Step("arguments_schema", _valid_arguments, _why_arguments_schema),
)
#: Every reason the gate gives, in the order its rules are tried (the landing page shows them in this order).
REASONS: tuple[str, ...] = tuple(step.reason for step in STEPS) + ("ok",)
#: The gate's reasons that let an item pass: ``ok`` (it may run) and ``not_function_call`` (nothing to run).
PASSING_REASONS: tuple[str, ...] = ("ok", "not_function_call")
#: The reasons that refuse an item: every other one, in the order of :data:`REASONS`.
REFUSING_REASONS: tuple[str, ...] = tuple(reason for reason in REASONS if reason not in PASSING_REASONS)
_TESTS = tuple((step.reason, step.test) for step in STEPS)  # the hot loop unpacks pairs: no attribute look-ups
_SCHEMA_JUDGED = ("arguments_schema", "ok")  # the reasons of items whose arguments came to the schema step


# --------------------------------------------------------------------------------------------------------------
# One item


def replay_gate(item: dict, schema: dict | bool | None, *, max_depth: int = DEFAULT_MAX_DEPTH) -> str:
    """The article's gate: the first reason that applies, from :data:`REASONS` (the steps of :data:`STEPS`).

    The hot path of journals of 100,000+ items: the schema is compiled once (cached), ``arguments`` is parsed at
    about ``json.loads`` speed and checked by the compiled (Rust) validator; no error details are built.

    :param item: an Open Responses item as parsed JSON.
    :param schema: the JSON Schema of the tool the item names (its ``parameters``); ``None`` when there is no
        such tool — a function_call then never gets ``ok`` (``arguments_schema``).
    :param max_depth: nesting limit (JSON levels) for the parsed ``arguments``; deeper is ``arguments_parse``.
    :return: one of :data:`REASONS`.
    :raises SchemaError: when ``schema`` itself is unusable (not the item's fault): checked before the item;
        also when a ``pattern`` backtracks catastrophically and only the backtracking engine can run it.
    """
    compiled = None if schema is None else compile_schema(schema)  # an identity hit after the first item
    value = item
    for reason, test in _TESTS:
        value = test(value, compiled, max_depth)
        if value is _REFUSED:
            return reason
    return "ok"


def _parse_arguments(text: str, max_depth: int = DEFAULT_MAX_DEPTH) -> Any:
    """``arguments`` as I-JSON (RFC 7493), with the place of any mistake.

    :raises JSONTextError: syntax, NaN/Infinity, duplicate names, unpaired surrogates, nesting beyond
        ``max_depth`` levels, or a number out of the range of a 64-bit double (``number_overflow``).
    """
    return loads_ijson(text, max_depth=max_depth)


@dataclass
class Verdict:
    """:func:`check_item`'s answer: read-only once made, and shared (a journal's items of one type, and the calls a
    :class:`webapp.core.gate.memo.VerdictMemo` met again, share one). Not frozen because the gate makes one per
    call: a frozen dataclass sets each of its seven fields through ``object.__setattr__``, three times the cost of
    making a plain one.

    :ivar reason: one of :data:`REASONS` (the same as :func:`replay_gate`'s).
    :ivar ok: ``reason == "ok"``.
    :ivar errors: every schema error (``arguments_schema`` only), the most relevant first.
    :ivar arguments: the parsed arguments, when they parsed (else ``None``).
    :ivar parse_error: why ``arguments`` is not I-JSON (``arguments_parse`` only), with line and column.
    :ivar schema_problem: the schema is unusable — the caller's error, reported apart from the item's own
        problems (the item then cannot be ``ok``: its reason is ``arguments_schema`` if it gets that far).
    :ivar message: one sentence for people.
    """

    reason: str
    ok: bool
    errors: tuple[ValidationError, ...] = ()
    arguments: Any = None
    parse_error: JSONTextError | None = None
    schema_problem: SchemaError | None = None
    message: str = ""

    def as_dict(self) -> dict[str, Any]:
        """JSON-ready: ``{"reason", "ok", "message", "errors": [...], "parse_error", "schema_error"}``."""
        parse_error = None
        if self.parse_error is not None:
            err = self.parse_error
            parse_error = {"message": err.message, "code": err.code, "line": err.line, "column": err.column}
        return {
            "reason": self.reason,
            "ok": self.ok,
            "message": self.message,
            "errors": [e.as_dict() for e in self.errors],
            "parse_error": parse_error,
            "schema_error": self.schema_problem.as_dict() if self.schema_problem is not None else None,
        }

    @property
    def reached_schema(self) -> bool:
        """The arguments parsed and came to the schema step (``ok`` or ``arguments_schema``): :attr:`arguments` is
        what the schema judged, or would judge once there is one."""
        return self.reason in _SCHEMA_JUDGED


def check_item(
    item: Any,
    schema: dict | bool | None,
    *,
    format_assertion: bool = False,
    tool_name: str | None = None,
    max_depth: int = DEFAULT_MAX_DEPTH,
) -> Verdict:
    """The gate with details: the steps of :data:`STEPS` as :func:`replay_gate` runs them (so the same reason),
    plus, from the step that refuses, its message and every error as data.

    :param item: an Open Responses item as parsed JSON (anything else is ``namespaced``: it has no type).
    :param schema: the tool's parameters schema; ``None`` when no tool is known (never ``ok``).
    :param format_assertion: assert ``format`` in the schema (off by default, as in 2020-12).
    :param tool_name: for messages only.
    :param max_depth: nesting limit (JSON levels) for the parsed ``arguments``; deeper is ``arguments_parse``.
    :return: a :class:`Verdict`; never raises for a bad schema (see ``Verdict.schema_problem``).
    """
    return judge(item, why_of(schema, format_assertion, tool_name, max_depth))


def why_of(schema: dict | bool | None, format_assertion: bool, tool_name: str | None, max_depth: int) -> Why:
    """How items are checked against ``schema``: compiled here once, for any number of :func:`judge` calls; an
    unusable schema is kept as its problem (never raised). ``tool_name`` is for messages only; ``max_depth`` as
    :func:`check_item`'s."""
    compiled: CompiledSchema | None = None
    problem: SchemaError | None = None
    if schema is not None:
        try:
            compiled = compile_schema(schema, format_assertion=format_assertion)
        except SchemaError as exc:
            problem = exc
    return Why(compiled, problem, f" of {_q(tool_name)}" if tool_name else "", max_depth)


def judge(item: Any, why: Why) -> Verdict:
    """:func:`check_item`'s run of :data:`STEPS`, the schema compiled beforehand (``why``, from :func:`why_of`):
    what a journal's check runs for each call. Never raises for a bad schema (see ``Verdict.schema_problem``)."""
    return _run(STEPS, item, why)


#: The steps a call runs once it is known to be one: from ``status`` on (what :func:`judge_call` runs).
CALL_STEPS: tuple[Step, ...] = STEPS[[step.reason for step in STEPS].index("status") :]


def judge_call(item: dict, why: Why) -> Verdict:
    """The steps of a function_call (:data:`CALL_STEPS`: ``status``, ``arguments_type``, ``arguments_parse``,
    ``arguments_schema``) run on another kind of call that carries JSON ``arguments`` (OpenAI's ``mcp_call``:
    docs/targets.md O13), as :func:`judge` runs them on a function_call. Never raises for a bad schema."""
    return _run(CALL_STEPS, item, why)


def _run(steps: tuple[Step, ...], item: Any, why: Why) -> Verdict:
    value = item
    compiled, max_depth = why.compiled, why.max_depth
    for step in steps:
        try:
            passed = step.test(value, compiled, max_depth)
            if passed is not _REFUSED:
                value = passed
                continue
            message, details = step.explain(value, why)
        except SchemaError as exc:  # a catastrophic pattern the reference engine alone had to run
            return Verdict(
                step.reason,
                False,
                arguments=value,
                schema_problem=exc,
                message=f"the schema{why.tool} cannot be evaluated on these arguments: {exc}",
            )
        return Verdict(step.reason, False, schema_problem=why.problem, message=message, **details)
    return Verdict("ok", True, arguments=value, message="may be executed, and its function_call_output written")

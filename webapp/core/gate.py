"""The replay gate: may a stored Open Responses item be executed again, on another provider or another day?

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

Only ``ok`` lets a tool run. :func:`replay_gate` runs the table for the reason alone (the hot path);
:func:`check_item` runs the same table and, at the step that refuses, asks it why. :func:`check_journal` gates a
whole conversation against its tools and checks the call/output pairing rules, ``tool_choice``, and that its text
names no member twice (``duplicate_member``: the item a reader sees would depend on its parser); its findings are
data (:class:`Finding`: code, item index, pointer, line:column, and the items its message names).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any

from webapp.core.items import RUNNABLE_STATUS, is_namespaced, tool_shape
from webapp.core.journal import Duplicate, Journal, JournalError, load_journal
from webapp.core.json.pointer import split as split_pointer
from webapp.core.json.text import (
    DEFAULT_MAX_DEPTH,
    NOT_IJSON,
    JSONTextError,
    loads_ijson,
    try_loads_ijson,
)
from webapp.core.json.text import kind_of as _kind
from webapp.core.json.text import quote as _q
from webapp.core.schema import CompiledSchema, SchemaError, SchemaInvalid, compile_schema

__all__ = [
    "REASONS",
    "STEPS",
    "Step",
    "replay_gate",
    "check_item",
    "check_one",
    "Verdict",
    "check_journal",
    "tool_schema",
    "parameters_of",
    "the_item",
    "PAIRING_FINDINGS",
    "PASSING_REASONS",
    "refusal_message",
    "JournalReport",
    "ItemVerdict",
    "ItemVerdicts",
    "Finding",
    "ItemRef",
    "DEFAULT_MAX_DEPTH",
    "VerdictMemo",
    "REMEMBERED",
    "FINDINGS",
    "load_journal",
    "Journal",
    "JournalError",
    "SchemaInvalid",
    "SchemaError",
]

# Finding codes of check_journal -> severity. "error" findings make a journal not replayable.
FINDINGS = {
    "unknown_tool": "error",  # a function_call names no tool in `tools`
    "orphan_output": "error",  # function_call_output whose call_id matches no earlier function_call
    "output_for_unfinished_call": "error",  # ... whose function_call is not completed
    "duplicate_call_id": "error",  # two function_calls share a call_id
    "duplicate_output": "error",  # two function_call_outputs answer one call
    "missing_call_id": "error",  # a function_call or function_call_output without a call_id string
    "missing_name": "error",  # a function_call without a name string: which tool would run?
    "missing_output": "warning",  # a completed call with no output before the next user message
    "chat_completions_envelope": "error",  # Chat Completions `tool_calls` / role "tool" mixed into the journal
    "chat_completions_tool": "warning",  # a tool in the nested Chat Completions shape (recognised, still used)
    "tool_not_allowed": "error",  # a call outside tool_choice (allowed_tools, a forced function, none)
    "invalid_tool_choice": "error",  # a tool_choice the gate cannot read: no call may pass unchecked
    "duplicate_member": "error",  # a member name given twice in the journal's text: ambiguous
    "invalid_tool": "error",  # a tool definition without a usable name, or a duplicate name
    "tool_schema_invalid": "error",  # a tool's parameters schema is itself unusable
}

# When a function tool has no `parameters`, its arguments must still be a JSON object.
NO_PARAMETERS_SCHEMA: dict[str, Any] = {"type": "object"}

#: How many item types, and how many tool names, a :class:`JournalChecker` remembers a verdict or a compiled schema
#: for: a journal uses a handful; a stream that invents a new one on every line must not grow the memory.
REMEMBERED = 256

_NO_MEMBERS: Mapping[str, Any] = MappingProxyType({})  # what a journal entry that is not an object has


# --------------------------------------------------------------------------------------------------------------
# The rules, once


_REFUSED = object()  # what a step's test answers when its rule refuses the item


@dataclass(frozen=True)
class _Why:
    """How one item is checked besides its own value: what the steps' tests need (the compiled schema, the depth
    limit) and what their explanations add (the schema's problem, the tool's name). Hashable (the schema and its
    problem by identity): with an item's status and arguments, the key of a memoised verdict (:class:`VerdictMemo`).
    """

    compiled: CompiledSchema | None
    problem: SchemaInvalid | None
    tool: str  # " of \"name\"" for messages, or ""
    max_depth: int


@dataclass(frozen=True)
class Step:
    """One rule of the gate.

    :ivar reason: the reason given when this rule refuses the item (one of :data:`REASONS`).
    :ivar test: ``test(value, compiled, max_depth)``: the value the next step examines when the rule lets the item
        pass, else the private refusal marker. The first step gets the item; each later one what the previous
        passed on (the item, then its ``arguments`` string, then the parsed arguments). ``compiled`` is the tool's
        compiled schema or ``None``. Builds no message. May raise :class:`SchemaInvalid` (the schema step only:
        a catastrophic ``pattern`` that only the backtracking engine could run).
    :ivar explain: ``explain(value, why)`` -> ``(message, details)`` for :class:`Verdict`; called only with a
        value ``test`` refused.
    """

    reason: str
    test: Callable[[Any, CompiledSchema | None, int], Any]
    explain: Callable[[Any, _Why], tuple[str, dict[str, Any]]]


def _portable_type(item: Any, compiled: CompiledSchema | None, max_depth: int) -> Any:
    item_type = item.get("type") if isinstance(item, dict) else None
    return item if isinstance(item_type, str) and not is_namespaced(item_type) else _REFUSED


def _why_namespaced(item: Any, why: _Why) -> tuple[str, dict[str, Any]]:
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


def _why_not_function_call(item: dict, why: _Why) -> tuple[str, dict[str, Any]]:
    return f"type {_q(item['type'])} is not function_call: nothing to execute (not a refusal)", {}


def _runnable_status(item: dict, compiled: CompiledSchema | None, max_depth: int) -> Any:
    return item if item.get("status") == RUNNABLE_STATUS else _REFUSED


def _why_status(item: dict, why: _Why) -> tuple[str, dict[str, Any]]:
    status = item.get("status")
    shown = "missing" if status is None else _q(status)
    return (
        f"status is {shown}, not {_q(RUNNABLE_STATUS)}: the call may be unfinished and its arguments cut off; "
        f"do not execute it or write a function_call_output"
    ), {}


def _string_arguments(item: dict, compiled: CompiledSchema | None, max_depth: int) -> Any:
    arguments = item.get("arguments")
    return arguments if isinstance(arguments, str) else _REFUSED


def _why_arguments_type(item: dict, why: _Why) -> tuple[str, dict[str, Any]]:
    shown = "missing" if "arguments" not in item else _kind(item["arguments"])
    return f"arguments is {shown}, not a string: Open Responses stores it as a JSON-encoded string", {}


def _ijson_arguments(arguments: str, compiled: CompiledSchema | None, max_depth: int) -> Any:
    parsed = try_loads_ijson(arguments, max_depth=max_depth)
    return _REFUSED if parsed is NOT_IJSON else parsed


def _why_arguments_parse(arguments: str, why: _Why) -> tuple[str, dict[str, Any]]:
    try:
        _parse_arguments(arguments, max_depth=why.max_depth)
    except JSONTextError as err:
        return f"arguments is not valid I-JSON: {err}", {"parse_error": err}
    # Not reached: try_loads_ijson refuses exactly what loads_ijson raises for (tests/test_gate.py checks it).
    return "arguments is not valid I-JSON", {}


def _valid_arguments(parsed: Any, compiled: CompiledSchema | None, max_depth: int) -> Any:
    """The parsed arguments when ``compiled`` accepts them (a value parsed with the depth limit, so the fast
    engine is safe). :raises SchemaInvalid: a catastrophic ``pattern`` the reference engine alone had to run."""
    if compiled is None:
        return _REFUSED
    return parsed if compiled.is_valid(parsed) else _REFUSED


def _why_arguments_schema(parsed: Any, why: _Why) -> tuple[str, dict[str, Any]]:
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
#: Every reason the gate gives, in the order its rules are tried.
REASONS: tuple[str, ...] = tuple(step.reason for step in STEPS) + ("ok",)
_TESTS = tuple((step.reason, step.test) for step in STEPS)  # the hot loop unpacks pairs: no attribute look-ups


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
    :raises SchemaInvalid: when ``schema`` itself is unusable (not the item's fault): checked before the item;
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
    :class:`VerdictMemo` met again, share one). Not frozen because the gate makes one per call: a frozen dataclass
    sets each of its seven fields through ``object.__setattr__``, three times the cost of making a plain one.

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
    errors: tuple[SchemaError, ...] = ()
    arguments: Any = None
    parse_error: JSONTextError | None = None
    schema_problem: SchemaInvalid | None = None
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
    return _gate(item, _why_of(schema, format_assertion, tool_name, max_depth))


def _why_of(schema: dict | bool | None, format_assertion: bool, tool_name: str | None, max_depth: int) -> _Why:
    """How items are checked against ``schema`` (compiled here: an unusable one is kept as its problem)."""
    compiled: CompiledSchema | None = None
    problem: SchemaInvalid | None = None
    if schema is not None:
        try:
            compiled = compile_schema(schema, format_assertion=format_assertion)
        except SchemaInvalid as exc:
            problem = exc
    return _Why(compiled, problem, f" of {_q(tool_name)}" if tool_name else "", max_depth)


def _gate(item: Any, why: _Why) -> Verdict:
    """:func:`check_item`'s run of :data:`STEPS`, the schema compiled beforehand (``why``)."""
    value = item
    compiled, max_depth = why.compiled, why.max_depth
    for step in STEPS:
        try:
            passed = step.test(value, compiled, max_depth)
            if passed is not _REFUSED:
                value = passed
                continue
            message, details = step.explain(value, why)
        except SchemaInvalid as exc:  # a catastrophic pattern the reference engine alone had to run
            return Verdict(
                step.reason,
                False,
                arguments=value,
                schema_problem=exc,
                message=f"the schema{why.tool} cannot be evaluated on these arguments: {exc}",
            )
        return Verdict(step.reason, False, schema_problem=why.problem, message=message, **details)
    return Verdict("ok", True, arguments=value, message="may be executed, and its function_call_output written")


# --------------------------------------------------------------------------------------------------------------
# A whole journal


@dataclass(frozen=True)
class ItemRef:
    """An item a finding's message names, as data: ``index`` is its position in the journal; ``noun`` is how the
    default message calls it (``item``, ``function_call``, ``function_call_output``), shown as ``"function_call 2"``.
    """

    index: int
    noun: str = "item"

    def __str__(self) -> str:
        return f"{self.noun} {self.index}"


@dataclass(frozen=True)
class Finding:
    """A journal-level problem, as data.

    :ivar code: one of :data:`FINDINGS` (its value is :attr:`severity`).
    :ivar index: the position of the item it is about, or ``None`` for a tool definition, ``tool_choice`` or the
        journal's envelope.
    :ivar call_id: the ``call_id`` involved, when there is one.
    :ivar message: one sentence for people, naming items by their journal positions (``function_call 2``).
    :ivar severity: ``"error"`` (the journal is not replayable) or ``"warning"``.
    :ivar pointer: RFC 6901 pointer of the problem in the journal's text, when it is a problem of the text itself
        (``duplicate_member``), else ``None``; ``line`` and ``column`` (1-based) place it there.
    :ivar parts: :attr:`message` as text pieces and :class:`ItemRef` s, so that a reader showing another numbering
        (the responses API counts a request's input apart from earlier responses) renders it with
        :meth:`describe` instead of rewriting the words.
    """

    code: str
    index: int | None
    call_id: str | None
    message: str
    severity: str  # "error" | "warning"
    pointer: str | None = None
    line: int | None = None
    column: int | None = None
    parts: tuple[str | ItemRef, ...] = field(default=(), compare=False, repr=False)

    @property
    def mentions(self) -> tuple[int, ...]:
        """The indexes of the items :attr:`message` names, in the order it names them."""
        return tuple(part.index for part in self.parts if isinstance(part, ItemRef))

    def describe(self, name: Callable[[ItemRef], str] = str) -> str:
        """:attr:`message` with each item it names rendered by ``name`` (default: ``"function_call 2"``).

        :param name: ``ItemRef -> str``, e.g. ``lambda ref: f"input[{ref.index - 3}]"``.
        """
        if not self.parts:
            return self.message
        return "".join(name(part) if isinstance(part, ItemRef) else part for part in self.parts)

    def as_dict(self) -> dict[str, Any]:
        """JSON-ready: ``{"code", "index", "call_id", "message", "severity", "pointer", "line", "column"}``."""
        return {
            "code": self.code,
            "index": self.index,
            "call_id": self.call_id,
            "message": self.message,
            "severity": self.severity,
            "pointer": self.pointer,
            "line": self.line,
            "column": self.column,
        }


@dataclass
class ItemVerdict:
    """One item's line in a :class:`JournalReport`: read-only once made (``refused_by`` is set with
    :func:`dataclasses.replace`). Not frozen because a journal makes one per item: a frozen dataclass sets each of
    its ten fields through ``object.__setattr__``, a third of a 24,000-item journal's check. The :class:`Verdict`
    it holds, which items share, is frozen.
    """

    index: int
    id: str | None
    type: str | None
    reason: str
    errors: tuple[SchemaError, ...] = ()
    message: str = ""
    name: str | None = None
    call_id: str | None = None
    verdict: Verdict | None = field(default=None, compare=False, repr=False)
    refused_by: tuple[str, ...] = ()  # codes of the error findings that name this item

    @property
    def ok(self) -> bool:
        """May this item run: the gate says ``ok`` and no error finding names it (e.g. ``duplicate_member``)."""
        return self.reason == "ok" and not self.refused_by

    @property
    def label(self) -> str:
        """The reason, or ``refused`` for an item the gate lets pass (``ok``, ``not_function_call``: nothing to run)
        but an error finding stops (an orphan output, a reused call_id…), for counts and lines."""
        return "refused" if self.refused_by and self.reason in PASSING_REASONS else self.reason

    @property
    def blocks_replay(self) -> bool:
        """The gate's own answer stops the journal: a ``namespaced`` item, or a function_call that is not ``ok``
        (findings aside; see :attr:`refused_by`). Other items (messages, outputs…) have nothing to run."""
        return self.reason == "namespaced" or (self.type == "function_call" and self.reason != "ok")

    def as_dict(self) -> dict[str, Any]:
        """JSON-ready: ``{"index", "id", "type", "reason", "ok", "refused_by", "message", "errors"}``, plus
        ``name`` and ``call_id`` when known and ``parse_error`` for ``arguments_parse``."""
        data: dict[str, Any] = {
            "index": self.index,
            "id": self.id,
            "type": self.type,
            "reason": self.reason,
            "ok": self.ok,
            "refused_by": list(self.refused_by),
            "message": self.message,
            "errors": [e.as_dict() for e in self.errors],
        }
        if self.name is not None:
            data["name"] = self.name
        if self.call_id is not None:
            data["call_id"] = self.call_id
        if self.verdict is not None and self.verdict.parse_error is not None:
            data["parse_error"] = self.verdict.as_dict()["parse_error"]
        return data


@dataclass(frozen=True)
class JournalReport:
    """:func:`check_journal`'s answer: ``replayable`` plus one verdict per item and the findings.

    :ivar items: one :class:`ItemVerdict` per item, in order; made when first read (:class:`ItemVerdicts`).
    :ivar verdicts: each item's gate :class:`Verdict`, in order: what :attr:`items` are made of, without an object
        per item (items that are alike share one), for a reader that needs only counts and the refused items.
    :ivar refused: the index of each item that error findings name -> their codes (:attr:`ItemVerdict.refused_by`).
    """

    replayable: bool
    items: Sequence[ItemVerdict]
    findings: list[Finding]
    shape: str | None = None
    verdicts: Sequence[Verdict] = ()
    refused: Mapping[int, tuple[str, ...]] = field(default_factory=dict)

    @property
    def counts(self) -> dict[str, int]:
        """How many items have each :attr:`ItemVerdict.label`, in order of first appearance."""
        counts: dict[str, int] = {}
        refused = self.refused
        for index, verdict in enumerate(self.verdicts):
            label = "refused" if verdict.reason in PASSING_REASONS and index in refused else verdict.reason
            counts[label] = counts.get(label, 0) + 1
        return counts

    def as_dict(self) -> dict[str, Any]:
        """JSON-ready: ``{"replayable", "shape", "counts", "items": [...], "findings": [...]}``."""
        return {
            "replayable": self.replayable,
            "shape": self.shape,
            "counts": self.counts,
            "items": [item.as_dict() for item in self.items],
            "findings": [finding.as_dict() for finding in self.findings],
        }


class ItemVerdicts(Sequence[ItemVerdict]):
    """A :class:`JournalReport`'s :attr:`~JournalReport.items`, all made on first reading (then kept): a page that
    shows only a journal's counts and its refused items (the Diff page's sides) never makes 24,000 of them.

    :param items: the journal's items; ``verdicts``: each one's gate verdict; ``refused``: as
        :attr:`JournalReport.refused`.
    """

    __slots__ = ("_items", "_verdicts", "_refused", "_made")

    def __init__(
        self, items: Sequence[Any], verdicts: Sequence[Verdict], refused: Mapping[int, tuple[str, ...]]
    ) -> None:
        self._items, self._verdicts, self._refused = items, verdicts, refused
        self._made: list[ItemVerdict] | None = None

    def _lines(self) -> list[ItemVerdict]:
        if self._made is None:
            refused = self._refused
            self._made = [
                _item_line(index, item, verdict, refused.get(index, ()))
                for index, (item, verdict) in enumerate(zip(self._items, self._verdicts, strict=True))
            ]
            self._items = ()  # the journal's items are no longer needed here
        return self._made

    def __len__(self) -> int:
        return len(self._verdicts)

    def __getitem__(self, index: Any) -> Any:
        return self._lines()[index]

    def __iter__(self) -> Iterator[ItemVerdict]:
        return iter(self._lines())

    def __eq__(self, other: object) -> bool:
        return list(self) == list(other) if isinstance(other, Sequence) else NotImplemented

    def __repr__(self) -> str:
        return f"ItemVerdicts({self._lines()!r})"


#: The gate's reasons that let an item pass: ``ok`` (it may run) and ``not_function_call`` (nothing to run).
PASSING_REASONS = ("ok", "not_function_call")


def refusal_message(verdict: Verdict, refused_by: tuple[str, ...]) -> str:
    """What an item's line says: the gate's message, or, for an item the gate lets pass (:data:`PASSING_REASONS`)
    but error findings stop (``refused_by``: their codes), that they stop it."""
    if not refused_by or verdict.reason not in PASSING_REASONS:
        return verdict.message
    codes = ", ".join(refused_by)
    if verdict.reason == "ok":
        return f"the gate passes its value, but {codes} stops this item (see the findings): it may not be executed"
    return f"nothing to execute, but {codes} stops this item (see the findings): it may not be replayed"


def _item_line(index: int, item: Any, verdict: Verdict, refused_by: tuple[str, ...] = ()) -> ItemVerdict:
    """The :class:`ItemVerdict` of ``item`` at ``index`` gated as ``verdict``; ``refused_by``: the codes of the
    error findings that name it (an item the gate passes is then refused, and says why)."""
    get = item.get if isinstance(item, dict) else _NO_MEMBERS.get
    item_type, item_id, name, call_id = get("type"), get("id"), get("name"), get("call_id")
    message = refusal_message(verdict, refused_by)
    return ItemVerdict(
        index,
        item_id if isinstance(item_id, str) else None,
        item_type if isinstance(item_type, str) else None,
        verdict.reason,
        verdict.errors,
        message,
        name if item_type == "function_call" and isinstance(name, str) else None,
        call_id if isinstance(call_id, str) else None,
        verdict,
        refused_by,
    )


def _finding(
    code: str, index: int | None, says: str | tuple[str | ItemRef, ...], call_id: Any = None, **place: Any
) -> Finding:
    """A :class:`Finding`; ``says`` is its message, as text or as pieces naming items (:class:`ItemRef`)."""
    parts = (says,) if isinstance(says, str) else says
    return Finding(
        code,
        index,
        call_id if isinstance(call_id, str) else None,
        "".join(map(str, parts)),
        FINDINGS[code],
        parts=parts,
        **place,
    )


def _item(index: int) -> ItemRef:
    return ItemRef(index)


def _call(index: int) -> ItemRef:
    return ItemRef(index, "function_call")


def _output(index: int) -> ItemRef:
    return ItemRef(index, "function_call_output")


def _duplicate_finding(duplicate: Duplicate, call_id: Any = None) -> Finding:
    """``duplicate_member``: a member name given twice in the journal's text (RFC 8259 §4: names SHOULD be
    unique, and parsers differ on which value they keep). Issue 2's rule for arguments — ambiguous input must
    never run — applies to the envelope too: a parser keeping the first ``type`` or ``status`` may see a
    namespaced or unfinished item where this one (keeping the last) sees a completed call."""
    if not duplicate.pointer:  # counted in a very big text, not located
        return _finding(
            "duplicate_member", duplicate.index, duplicate.message, line=duplicate.line, column=duplicate.column
        )
    name = _q(split_pointer(duplicate.pointer)[-1])
    owner: str | ItemRef = _item(duplicate.index) if duplicate.index is not None else "the journal"
    scope = "item" if duplicate.index is not None else "journal"
    says = (
        owner,
        f" gives the member name {name} twice, at {duplicate.pointer} (the second at line "
        f"{duplicate.line}, column {duplicate.column}): this gate keeps the last value, a parser keeping "
        f"the first reads another {scope}; an ambiguous {scope} must never be replayed",
    )
    return _finding(
        "duplicate_member",
        duplicate.index,
        says,
        call_id,
        pointer=duplicate.pointer,
        line=duplicate.line,
        column=duplicate.column,
    )


@dataclass
class _Tool:
    name: str
    schema: Any
    where: str
    problem: SchemaInvalid | None = None


def _tool_table(tools: Iterable[Any] | None, findings: list[Finding]) -> dict[str, _Tool]:
    """Function tools by name, from ``CreateResponseBody.tools`` (flat ``{type:"function", name, parameters}``);
    the nested Chat Completions shape ``{type:"function", function:{name, parameters}}`` is recognised and
    reported (:func:`webapp.core.items.tool_shape` tells them apart). Other tool types (hosted tools) are not
    function tools and are skipped."""
    table: dict[str, _Tool] = {}
    for position, tool in enumerate(tools or ()):
        where = f"tools[{position}]"
        if not isinstance(tool, dict):
            findings.append(_finding("invalid_tool", None, f"{where} is {_kind(tool)}, not a tool definition"))
            continue
        shape = tool_shape(tool)
        if shape is None:
            continue
        if shape.shape == "nested":
            findings.append(
                _finding(
                    "chat_completions_tool",
                    None,
                    f"{where} uses the Chat Completions shape "
                    "{type, function: {name, parameters}}; Open Responses tools are flat "
                    '{type: "function", name, parameters} (its schema is still used)',
                )
            )
        name = shape.name
        if not name:
            findings.append(_finding("invalid_tool", None, f"{where} has no name"))
            continue
        if name in table:
            findings.append(
                _finding(
                    "invalid_tool",
                    None,
                    f"{where}: a second tool named {_q(name)} (the first is {table[name].where}); calls use the first",
                )
            )
            continue
        schema = shape.definition.get("parameters")
        entry = _Tool(name, NO_PARAMETERS_SCHEMA if schema is None else schema, where)
        try:
            compile_schema(entry.schema)
        except SchemaInvalid as exc:
            entry.problem = exc
            place = where + "".join(f".{token}" for token in split_pointer(shape.parameters_pointer))
            findings.append(_finding("tool_schema_invalid", None, f"{place}{exc.pointer}: {exc.message}"))
        table[name] = entry
    return table


def tool_schema(tools: Iterable[Any] | None, name: Any) -> dict | bool | None:
    """The parameters schema of the function tool called ``name`` in ``tools`` (flat or Chat Completions shape;
    ``{"type": "object"}`` when it has none), or ``None`` when there is no such tool."""
    entry = _tool_table(tools, []).get(name) if isinstance(name, str) else None
    return entry.schema if entry is not None else None


def parameters_of(value: Any) -> Any:
    """``value`` as the schema of a call: a function tool definition (flat or Chat Completions shape) is its
    ``parameters`` (``{"type": "object"}`` without them), as the Schema page reads one; anything else is itself."""
    shape = tool_shape(value)
    if shape is None:
        return value
    parameters = shape.definition.get("parameters")
    return NO_PARAMETERS_SCHEMA if parameters is None else parameters


TOOL_CHOICE_MODES = ("none", "auto", "required")


def _allowed_names(tool_choice: Any) -> tuple[set[str] | None, str, str | None]:
    """What ``tool_choice`` lets run (Open Responses spec, "tool_choice"; ``ToolChoiceParam`` and
    ``AllowedToolChoice`` in ``tests/data/openresponses-openapi.json``).

    ``None``, ``"auto"`` and ``"required"`` allow every tool; ``"none"`` none; ``{type: "function", name}``
    that one; ``{type: "allowed_tools", tools, mode}`` the listed names in ``auto`` and ``required`` mode (the
    default is ``auto``), none in ``none`` mode ("no tool may be called"). ``required`` asks the producing turn
    for at least one call; replaying a call does not depend on it.

    :return: ``(names, words, problem)``: the names allowed (``None`` = any), words for messages, and why the
        gate cannot read ``tool_choice`` (then no name is allowed, so no call passes silently), else ``None``.
    """
    if tool_choice is None or tool_choice in ("auto", "required"):
        return None, "", None
    if tool_choice == "none":
        return set(), 'tool_choice is "none"', None
    if not isinstance(tool_choice, dict):
        return (
            set(),
            "",
            (
                f"tool_choice {_q(tool_choice)} is not one of {', '.join(map(_q, TOOL_CHOICE_MODES))}, "
                '{type: "function", name} or {type: "allowed_tools", tools, mode}'
            ),
        )
    kind = tool_choice.get("type")
    if kind == "function":
        name = tool_choice.get("name")
        if not isinstance(name, str) or not name:
            return set(), "", 'tool_choice {type: "function"} has no name'
        return {name}, f"tool_choice forces {_q(name)}", None
    if kind != "allowed_tools":
        return (
            set(),
            "",
            (
                f'tool_choice type {_q(kind)} is not one the gate knows ("function", '
                '"allowed_tools"): which calls it allows cannot be checked'
            ),
        )
    listed = tool_choice.get("tools")
    if not isinstance(listed, list) or not listed:
        return set(), "", "tool_choice allowed_tools has no tools list (it must list 1 to 128 tools)"
    names: set[str] = set()
    for position, entry in enumerate(listed):
        name = entry.get("name") if isinstance(entry, dict) else None
        if not isinstance(name, str) or not name:
            return set(), "", f'tool_choice.tools[{position}] is not a {{type: "function", name}} entry'
        names.add(name)
    mode = tool_choice.get("mode", "auto")
    mode = "auto" if mode is None else mode
    if mode not in TOOL_CHOICE_MODES:
        return (
            set(),
            "",
            (f"tool_choice allowed_tools mode {_q(mode)} is not one of {', '.join(map(_q, TOOL_CHOICE_MODES))}"),
        )
    shown = ", ".join(sorted(map(_q, names)))
    if mode == "none":
        return set(), f'tool_choice allowed_tools has mode "none" (no tool may be called; it lists {shown})', None
    return names, f"tool_choice allowed_tools lists {shown}", None


def the_item(ref: ItemRef) -> str:
    """How a finding about a lone item names it (for :meth:`Finding.describe` of :func:`check_one`'s findings)."""
    return "the item"


#: Findings whose rule needs another item of the journal (pairing, order): never made about one item alone.
PAIRING_FINDINGS = frozenset(
    {"orphan_output", "output_for_unfinished_call", "duplicate_call_id", "duplicate_output", "missing_output"}
)


def check_one(
    item: Any | Journal,
    schema: dict | bool | None = None,
    *,
    format_assertion: bool = False,
    tool_name: str | None = None,
    max_depth: int = DEFAULT_MAX_DEPTH,
) -> tuple[ItemVerdict, list[Finding]]:
    """One item, as every page and ``/api/gate`` judge it: :func:`check_item`'s reason, and what stops the item
    whatever its value's verdict, as a journal's check of it would find (Open Responses spec: a FunctionCall
    requires ``call_id`` and ``name``): a member name its text gives twice (``duplicate_member``), a function_call
    without a call_id or a name (``missing_call_id``, ``missing_name``), a Chat Completions envelope. Not the
    findings about other items (pairing: ``orphan_output``…), which one item alone cannot have.

    :param item: the item, or the :class:`Journal` of one item read from its text (its duplicate names kept).
    :param schema, format_assertion, tool_name, max_depth: as :func:`check_item`'s.
    :return: ``(line, findings)``: its :class:`ItemVerdict` (index 0; ``refused_by`` names the error findings, so
        ``ok`` only without them) and those findings, whose messages call it item 0 (render them with
        :meth:`Finding.describe`, e.g. ``lambda ref: "the item"``).
    """
    duplicates: tuple[Duplicate, ...] | list[Duplicate] = ()
    if isinstance(item, Journal):
        duplicates, item = item.duplicates, item.items[0]
    verdict = check_item(item, schema, format_assertion=format_assertion, tool_name=tool_name, max_depth=max_depth)
    # Its rules without its value's verdict (made above): any schema passes, no tool is looked up.
    checker = JournalChecker(schema=True, max_depth=max_depth, duplicates=[d for d in duplicates if d.index is None])
    checker.check(item, [d for d in duplicates if d.index is not None])
    findings = [f for f in checker.take_findings() if f.code not in PAIRING_FINDINGS]
    return _item_line(0, item, verdict, _refused(findings).get(0, ())), findings


class VerdictMemo:
    """The verdicts of the function_calls already gated, for checks that meet the same calls again: the two sides
    of a Diff page are mostly one journal. Give one to each :func:`check_journal` of one request.

    A call's verdict depends only on how it is checked (its tool's compiled schema, its name for messages, the depth
    limit) and on its ``status`` and ``arguments`` string: that is the key, and a hit skips the parse and the schema
    check. The findings (pairing, ``tool_choice``, ``duplicate_member``) stay each journal's own, never memoised. A
    call whose ``arguments`` is not a string, or whose ``status`` is neither a string nor missing, is gated each time
    (cheap, and ``1 == True`` would mix keys whose messages differ).

    It holds one entry per distinct call it has seen: make one per request, never keep it across requests.
    """

    def __init__(self) -> None:
        self._verdicts: dict[tuple[Any, ...], Verdict] = {}

    def __len__(self) -> int:
        """The number of distinct calls it holds."""
        return len(self._verdicts)

    def _verdict(self, item: dict, why: _Why) -> Verdict:
        status, arguments = item.get("status"), item.get("arguments")
        if not isinstance(arguments, str) or not (status is None or isinstance(status, str)):
            return _gate(item, why)
        # why's fields spelled out: a flat tuple hashes and compares in C (a dataclass's hash is Python code)
        key = (why.compiled, why.problem, why.tool, why.max_depth, status, arguments)
        verdict = self._verdicts.get(key)
        if verdict is None:
            verdict = self._verdicts[key] = _gate(item, why)
        return verdict


def check_journal(
    items: Iterable[Any] | Journal,
    tools: Iterable[Any] | None = None,
    *,
    tool_choice: Any = None,
    schema: dict | bool | None = None,
    format_assertion: bool = False,
    max_depth: int = DEFAULT_MAX_DEPTH,
    tools_later: bool = False,
    memo: VerdictMemo | None = None,
) -> JournalReport:
    """Gate every item of a conversation and check the pairing rules (Open Responses spec, function_call /
    function_call_output; "tool_choice"; the article's "do not mix Chat Completions envelopes").

    :param items: the items in order, or a :class:`Journal` (its tools and tool_choice are used unless given;
        each member name its text gives twice is a ``duplicate_member`` error, with pointer and line:column). A
        journal read from one item (shape ``item``) has none of the findings about other items (pairing).
    :param tools: tool definitions as in ``CreateResponseBody.tools``; each ``function_call`` is checked against
        the schema of the tool it names.
    :param tool_choice: ``{"type": "allowed_tools", "tools": [...], "mode": ...}`` (or ``"none"``, or a forced
        function) limits which names may run; mode ``"none"`` allows none, ``"auto"``/``"required"`` the listed
        ones. It never replaces the schema check. One the gate cannot read is an ``invalid_tool_choice`` finding.
    :param schema: one schema for every function_call, whatever its name (then ``tools`` is not consulted).
    :param format_assertion: assert ``format`` in the schemas.
    :param max_depth: nesting limit (JSON levels) for each call's parsed ``arguments`` (see :func:`check_item`).
    :param tools_later: the tools are given in a later step (the Diff and Format pages' ``schema next``): when
        neither ``tools`` (nor the journal's own) nor ``schema`` is given, a call naming no tool is no
        ``unknown_tool`` finding. Its verdict is the same (``arguments_schema`` at best: there is no schema to check
        it against). Without it a journal with no tools has an ``unknown_tool`` error for every call, as the CLI and
        ``/api/gate`` report it.
    :param memo: verdicts of calls other checks of this request made (:class:`VerdictMemo`); the report is the
        same with or without it.
    :return: a :class:`JournalReport`. ``replayable`` is false when any item blocks the replay
        (:attr:`ItemVerdict.blocks_replay`: a ``namespaced`` item, a function_call that is not ``ok``) or any finding
        is an error. Findings name items by their position in ``items``, as data (:attr:`Finding.parts`).
    """
    shape = None
    duplicates: dict[int | None, list[Duplicate]] = {}
    if isinstance(items, Journal):
        shape = items.shape
        for duplicate in items.duplicates:
            duplicates.setdefault(duplicate.index, []).append(duplicate)
        tools = items.tools if tools is None else tools
        tool_choice = items.tool_choice if tool_choice is None else tool_choice
        items = items.items
    if not isinstance(items, (list, tuple)):
        items = list(items)  # its ItemVerdicts are made from the items when first read
    checker = JournalChecker(
        tools,
        tool_choice=tool_choice,
        schema=schema,
        format_assertion=format_assertion,
        max_depth=max_depth,
        duplicates=duplicates.get(None, ()),
        tools_later=tools_later,
        memo=memo,
    )
    check = checker.check
    if duplicates:
        verdicts = [check(item, duplicates.get(index, ())) for index, item in enumerate(items)]
    else:
        verdicts = [check(item) for item in items]
    findings = checker.take_findings()
    if shape == "item":  # a document of one item: nothing else to pair it with (as check_one judges it)
        findings = [f for f in findings if f.code not in PAIRING_FINDINGS]
    refused = _refused(findings)
    replayable = not checker.blocked and not any(f.severity == "error" for f in findings)
    return JournalReport(replayable, ItemVerdicts(items, verdicts, refused), findings, shape, verdicts, refused)


class JournalChecker:
    """The journal check one item at a time: what :func:`check_journal` runs over a list, and what a stream of
    any length (``python -m webapp gate --stream``) runs line by line.

    It keeps only what pairing needs — each call's ``call_id`` with its index and status, each answered
    ``call_id``, the completed calls still waiting for an output — never the items or their verdicts, except the
    one verdict of each item type that is not a call and each tool name's compiled schema (the first
    :data:`REMEMBERED` of each), and what a ``memo`` given keeps. Findings accumulate until :meth:`take_findings`.
    Arguments are as :func:`check_journal`'s.
    """

    def __init__(
        self,
        tools: Iterable[Any] | None = None,
        *,
        tool_choice: Any = None,
        schema: dict | bool | None = None,
        format_assertion: bool = False,
        max_depth: int = DEFAULT_MAX_DEPTH,
        duplicates: Iterable[Duplicate] = (),
        tools_later: bool = False,
        memo: VerdictMemo | None = None,
    ) -> None:
        self._findings: list[Finding] = []
        self._format_assertion, self._max_depth, self._memo = format_assertion, max_depth, memo
        self._unknown_tools = not (tools_later and tools is None and schema is None)  # report unknown_tool
        self._table = _tool_table(tools, self._findings) if schema is None else {}
        self._known = ", ".join(_q(n) for n in self._table) or "none"  # for unknown_tool messages
        # How calls are checked: against the one schema, else against their tool's, by name (compiled once).
        self._one_schema = None if schema is None else _why_of(schema, format_assertion, None, max_depth)
        if self._one_schema is not None and self._one_schema.problem is not None:
            self._findings.append(_finding("tool_schema_invalid", None, f"schema: {self._one_schema.problem}"))
        self._by_name: dict[str | None, _Why] = {}
        self._by_type: dict[str, Verdict] = {}  # the verdict of each item type that is not function_call
        self._findings += [_duplicate_finding(d) for d in duplicates]
        self._allowed, self._allowed_words, choice_problem = _allowed_names(tool_choice)
        if choice_problem is not None:
            self._findings.append(_finding("invalid_tool_choice", None, f"{choice_problem}; no call is allowed"))
            self._allowed_words = "tool_choice cannot be read"
        self._calls: dict[str, tuple[int, Any]] = {}  # call_id -> (index, status) of the first function_call
        self._answered: dict[str, int] = {}  # call_id -> index of its first output
        self._pending: list[tuple[int, str]] = []  # completed calls waiting for an output (index, call_id)
        self._count = 0
        self._blocked = False
        self._errors = 0

    @property
    def blocked(self) -> bool:
        """An item so far blocks the replay by the gate's own answer (:attr:`ItemVerdict.blocks_replay`)."""
        return self._blocked

    @property
    def replayable(self) -> bool:
        """No item so far blocks the replay and no error finding was made (taken findings included)."""
        return not self._blocked and self._errors == 0 and not any(f.severity == "error" for f in self._findings)

    def take_findings(self) -> list[Finding]:
        """The findings made since the last call (all of them, the first time), in order."""
        taken, self._findings = self._findings, []
        self._errors += sum(f.severity == "error" for f in taken)
        return taken

    def add(self, item: Any, duplicates: Iterable[Duplicate] = ()) -> ItemVerdict:
        """Gate the next item (its index is the number of items added before it) and check its pairing.

        :param duplicates: member names its text gave twice (``duplicate_member`` findings).
        :return: its :class:`ItemVerdict` (``refused_by`` is left to the caller: findings about an item may come
            later, e.g. ``missing_output``).
        """
        index = self._count
        return _item_line(index, item, self.check(item, duplicates))

    def check(self, item: Any, duplicates: Iterable[Duplicate] = ()) -> Verdict:
        """:meth:`add` without the :class:`ItemVerdict`: the item's gate :class:`Verdict` (items that are alike
        share one), for a caller that keeps the items and makes their lines only if asked (:class:`ItemVerdicts`).
        """
        index = self._count
        self._count = index + 1
        findings = self._findings
        get = item.get if isinstance(item, dict) else _NO_MEMBERS.get
        item_type, role = get("type"), get("role")
        if duplicates:
            findings += [_duplicate_finding(d, get("call_id")) for d in duplicates]
        tool_calls = get("tool_calls")
        if role == "tool" or isinstance(tool_calls, list):
            what = "a tool_calls array" if isinstance(tool_calls, list) else 'a role "tool" message'
            findings.append(
                _finding(
                    "chat_completions_envelope",
                    index,
                    (
                        _item(index),
                        f" is {what} from Chat Completions: replaying it sends the wrong envelope to an Open "
                        "Responses provider (use function_call / function_call_output items)",
                    ),
                    get("call_id") or get("tool_call_id"),
                )
            )

        if item_type == "function_call":
            verdict = self._call(index, item, get("name"), get("call_id"))
            if verdict.reason != "ok":  # a call that may not run stops the journal
                self._blocked = True
            return verdict
        verdict = self._by_type.get(item_type) if isinstance(item_type, str) else None
        if verdict is None:
            verdict = self._not_a_call(item, item_type)
        if item_type == "function_call_output":
            _pair_output(index, get("call_id"), self._calls, self._answered, findings)
        elif item_type == "message" and role == "user" and self._pending:
            for call_index, waiting in self._pending:
                if waiting not in self._answered:
                    findings.append(
                        _finding(
                            "missing_output",
                            call_index,
                            (
                                _call(call_index),
                                f" ({_q(waiting)}) has no function_call_output before the user message at ",
                                _item(index),
                            ),
                            waiting,
                        )
                    )
            self._pending = []
        if verdict.reason == "namespaced":  # the other items have nothing to run
            self._blocked = True
        return verdict

    def _not_a_call(self, item: Any, item_type: Any) -> Verdict:
        """The verdict of an item that is not a function_call, made: it depends on its type alone, so it is kept
        for :meth:`check` to find (for the first :data:`REMEMBERED` types; an item that is not an object or has no
        string type is namespaced, in its own words, each time)."""
        verdict = check_item(item, None, max_depth=self._max_depth)
        if isinstance(item_type, str) and len(self._by_type) < REMEMBERED:
            self._by_type[item_type] = verdict
        return verdict

    def _checked_as(self, name: Any) -> _Why:
        """How a call naming ``name`` is checked: its tool's schema, compiled once (for the first
        :data:`REMEMBERED` names), or none when no tool has that name."""
        name = name if isinstance(name, str) else None
        why = self._by_name.get(name)
        if why is None:
            tool = self._table.get(name) if name is not None else None
            why = _why_of(tool.schema if tool else None, self._format_assertion, name, self._max_depth)
            if len(self._by_name) < REMEMBERED:
                self._by_name[name] = why
        return why

    def _call(self, index: int, item: dict, name: Any, call_id: Any) -> Verdict:
        findings = self._findings
        named = isinstance(name, str) and name != ""
        if not named:  # the FunctionCall schema requires a name: which tool would run?
            shown = "no name" if name is None else f"the name {_q(name)}, not a tool's name"
            findings.append(
                _finding(
                    "missing_name", index, (_call(index), f" has {shown}: which tool it would run is unknown"), call_id
                )
            )
        if self._one_schema is not None:
            why = self._one_schema
        else:
            if self._unknown_tools and named and name not in self._table:
                findings.append(
                    _finding(
                        "unknown_tool",
                        index,
                        (_item(index), f" calls {_q(name)}, which is not among the tools (known: {self._known})"),
                        call_id,
                    )
                )
            why = self._checked_as(name)
        verdict = _gate(item, why) if self._memo is None else self._memo._verdict(item, why)
        if self._allowed is not None and named and name not in self._allowed:
            findings.append(
                _finding(
                    "tool_not_allowed", index, (_item(index), f" calls {_q(name)}, but {self._allowed_words}"), call_id
                )
            )
        if not isinstance(call_id, str) or not call_id:
            findings.append(
                _finding("missing_call_id", index, (_call(index), " has no call_id: its output cannot be paired"))
            )
        elif call_id in self._calls:
            findings.append(
                _finding(
                    "duplicate_call_id",
                    index,
                    (_item(index), f" reuses call_id {_q(call_id)} of ", _item(self._calls[call_id][0])),
                    call_id,
                )
            )
        else:
            status = item.get("status")
            self._calls[call_id] = (index, status)
            if status == RUNNABLE_STATUS:
                self._pending.append((index, call_id))
        return verdict


def _refused(findings: list[Finding]) -> dict[int, tuple[str, ...]]:
    """Each item that error findings name -> their codes, in order, once each: it is not ``ok`` whatever the gate
    said of its value."""
    codes: dict[int, list[str]] = {}
    for finding in findings:
        if finding.severity == "error" and finding.index is not None:
            named = codes.setdefault(finding.index, [])
            if finding.code not in named:
                named.append(finding.code)
    return {index: tuple(named) for index, named in codes.items()}


def _pair_output(
    index: int, call_id: Any, calls: dict[str, tuple[int, Any]], answered: dict[str, int], findings: list[Finding]
) -> None:
    if not isinstance(call_id, str) or not call_id:
        findings.append(_finding("missing_call_id", index, ("function_call_output ", _item(index), " has no call_id")))
        return
    call = calls.get(call_id)
    if call is None:
        findings.append(
            _finding(
                "orphan_output",
                index,
                (_output(index), f" answers call_id {_q(call_id)}, which matches no earlier function_call"),
                call_id,
            )
        )
    elif call[1] != RUNNABLE_STATUS:
        shown = "missing" if call[1] is None else _q(call[1])
        findings.append(
            _finding(
                "output_for_unfinished_call",
                index,
                (_output(index), " answers ", _call(call[0]), f", whose status is {shown}, not {_q(RUNNABLE_STATUS)}"),
                call_id,
            )
        )
    if call_id in answered:
        findings.append(
            _finding(
                "duplicate_output",
                index,
                (_output(index), f" answers {_q(call_id)} again (first at ", _item(answered[call_id]), ")"),
                call_id,
            )
        )
    else:
        answered[call_id] = index

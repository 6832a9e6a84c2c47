"""The JSON Schema page's model (step 2), pure: validate a tool call's parsed ``arguments`` against the tool's schema.

:func:`build` takes the two pasted texts and answers a :class:`SchemaPage`, everything the result pane shows. What
was pasted is unwrapped first: a whole ``function_call`` item (its ``arguments`` string is parsed, as the gate reads
it) or a Chat Completions tool call on the instance side; a tool definition, or a list of them picked by the call's
name, on the schema side (read as every page reads it: :func:`webapp.core.gate.read_schema_field`). Errors are
laid out by the schema layer (:func:`webapp.core.schema.lay_out`: grouped by instance location, placed at
line:column in the pasted texts, into the ``arguments`` string too). An instance in JSON Lines (a journal: one item
per line, as the Format page reads it) is checked record by record, each as a one-value instance would be
(:class:`Record`), with its positions in the whole pasted text. Parsing is :mod:`webapp.core.json`, validation
:mod:`webapp.core.schema`, the item's verdict :mod:`webapp.core.gate`.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any

from webapp.core.gate import (
    DEFAULT_TARGET,
    NOT_REPLAYABLE,
    PAIRING_FINDINGS,
    PASSING_REASONS,
    REFUSED,
    REFUSING_REASONS,
    ItemVerdict,
    badge,
    check_journal,
    check_one,
    is_refusal,
    item_label,
    read_schema_field,
    refusal_message,
    the_item,
)
from webapp.core.gate.grammar import describe
from webapp.core.gate.target_checks import custom_tools
from webapp.core.items import CUSTOM_TOOL_CALL, ToolShape, call_shape, looks_like_item, tool_shape
from webapp.core.journal import Journal, one_item
from webapp.core.json import (
    DEFAULT_MAX_DEPTH,
    NOT_IJSON,
    Document,
    JSONTextError,
    Locator,
    Move,
    Position,
    json_type,
    line_records,
    loads_ijson,
    looks_like_lines,
    parse,
    pointer,
    quote,
    shown_text,
    string_locator,
    try_loads_ijson,
)
from webapp.core.schema import CompiledSchema, ErrorGroup, SchemaError, bundle, compile_schema, known_documents, lay_out

__all__ = [
    "MAX_ERRORS_SHOWN",
    "MAX_RECORD_ERRORS_SHOWN",
    "MAX_RECORDS_SHOWN",
    "PASSING",
    "REFUSALS",
    "ParseProblem",
    "Record",
    "SchemaPage",
    "SchemaProblem",
    "Taken",
    "TextWarning",
    "build",
]

#: At most this many errors are listed (all are counted); a huge failing array must not make a huge page.
MAX_ERRORS_SHOWN = 200
#: A JSON Lines instance: every record is checked and counted, the first this many are shown with their details.
MAX_RECORDS_SHOWN = 100
#: ... each with at most this many of its errors listed (all counted).
MAX_RECORD_ERRORS_SHOWN = 20
#: A record's outcomes that let it pass: the schema accepts it, or the gate lets the item pass
#: (:data:`webapp.core.gate.PASSING_REASONS`: ``ok``, or ``not_function_call``: nothing to execute, not a refusal).
PASSING = ("valid", *PASSING_REASONS)
#: The gate's reasons that refuse an item, and ``refused``: an item a finding stops whatever its value's verdict
#: (:func:`webapp.core.gate.check_one`: a member name given twice…).
REFUSALS = (*REFUSING_REASONS, REFUSED)
#: The badges of the outcomes that are this page's words, not the gate's: the schema's answer, and no schema yet.
OUTCOME_BADGES = {"valid": "ok", "not checked": "info"}


def outcome_badge(outcome: str) -> str:
    """The badge class (``"ok"``, ``"info"``, ``"bad"``) a record's outcome is shown with: the gate's label's badge
    (:func:`webapp.core.gate.badge`: ``not_function_call`` is information, not a pass) for the gate's answers, and
    :data:`OUTCOME_BADGES` for this page's own words; every other outcome (``not JSON``, ``invalid``…) is ``bad``."""
    return OUTCOME_BADGES.get(outcome) or badge(outcome)


# -- what the result pane shows -----------------------------------------------------------------------------


@dataclass(frozen=True)
class ParseProblem:
    """A pasted text (or a pasted item's ``arguments`` string) that is not JSON.

    :ivar source: ``"instance"``, ``"schema"`` or ``"arguments"`` (the string inside the pasted item).
    :ivar position: (line, column) in the pasted text; differs from the error's own for ``"arguments"``.
    """

    source: str
    error: JSONTextError
    position: Position | None


@dataclass(frozen=True)
class Taken:
    """Which part of a pasted text was used, so the page can say so.

    :ivar kind: ``"call"`` (an Open Responses ``function_call`` item), ``"chat_call"`` (a Chat Completions tool
        call) or ``"tool"`` (a tool definition).
    :ivar pointer: RFC 6901 pointer of the used part in the pasted text.
    :ivar name: the function's name; ``ident``: the item's ``id``.
    :ivar shape: for a tool ``"flat"`` or ``"nested"``; for a call the JSON type of its ``arguments`` ("string" is
        the right one).
    :ivar of: for a tool picked from a list, how many tools the list had.
    """

    kind: str
    pointer: str
    name: str | None = None
    ident: str | None = None
    shape: str | None = None
    of: int | None = None


@dataclass(frozen=True)
class SchemaProblem:
    """The schema (after unwrapping) cannot be used: shown in its own pane, apart from instance errors.

    :ivar pointer: into the pasted schema text; ``position``: its (line, column) there.
    """

    message: str
    pointer: str | None = None
    keyword: str | None = None
    position: Position | None = None


@dataclass(frozen=True)
class TextWarning:
    """A parse warning (duplicate key, big integer, ...) and the pasted text it belongs to (see
    :class:`ParseProblem` for ``source``); ``position`` is in the pasted text."""

    source: str
    code: str
    message: str
    pointer: str
    position: Position | None


@dataclass
class SchemaPage:
    """Everything the result pane shows for one submission.

    :ivar instance_taken: the part of the instance text used; ``None``: all of it. ``schema_taken`` likewise.
    :ivar item: the pasted Open Responses item (``function_call`` or another), if any: the gate judges it
        (:func:`webapp.core.gate.check_one`); ``item_read``: it as read from its text, the member names it gives
        twice kept. ``verdict``: the gate's line for it (``refused_by`` names what stops it whatever its value's
        verdict); ``findings``: those stops, in words naming "the item".
    :ivar target: where the item is to be replayed (a key of :data:`webapp.core.gate.TARGETS`): the gate judges
        it for that target, and a carry to step 3 keeps it.
    :ivar ijson_error: bare arguments that are not I-JSON: the gate stops at ``arguments_parse``.
    :ivar call_name: the function name of a pasted call.
    :ivar instance: the value validated; ``has_instance``: there is one.
    :ivar checkable_formats: formats checked when format assertion is on; ``unchecked_formats``: used by the
        schema, never checked.
    :ivar grammar: for a pasted ``custom_tool_call`` (OpenAI's, docs/targets.md O12): what its custom tool's
        ``format`` checks, in words (:func:`webapp.core.gate.grammar.describe`); its ``input`` is free text, so no
        JSON Schema applies and the gate's verdict is the whole answer.
    :ivar groups: the first :data:`MAX_ERRORS_SHOWN` errors, grouped; ``error_count``: all of them.
    :ivar records: for an instance in JSON Lines, the first :data:`MAX_RECORDS_SHOWN` records, each checked on its
        own (``None``: the instance is one value); ``record_count``: all of them; ``outcomes``: how many records
        had each :attr:`Record.outcome`, in the order first met. ``schema_tools``: the schema is a list of that
        many tool definitions, and each record's call picks its own by name.
    """

    instance_text: str = ""
    schema_text: str = ""
    documents_text: str = ""
    format_assertion: bool = False
    target: str = DEFAULT_TARGET
    parse_problems: list[ParseProblem] = field(default_factory=list)
    warnings: list[TextWarning] = field(default_factory=list)
    instance_taken: Taken | None = None
    schema_taken: Taken | None = None
    item: dict[str, Any] | None = None
    item_read: Journal | None = None
    ijson_error: JSONTextError | None = None
    call_name: str | None = None
    instance: Any = None
    has_instance: bool = False
    schema_problem: SchemaProblem | None = None
    compiled: CompiledSchema | None = None
    checkable_formats: tuple[str, ...] = ()
    unchecked_formats: list[str] = field(default_factory=list)
    verdict: ItemVerdict | None = None
    findings: list[str] = field(default_factory=list)
    groups: list[ErrorGroup] = field(default_factory=list)
    error_count: int = 0
    records: list[Record] | None = None
    record_count: int = 0
    outcomes: dict[str, int] = field(default_factory=dict)
    schema_tools: int | None = None
    grammar: str | None = None  # a custom_tool_call: what its tool's format checks (no JSON arguments, no schema)

    @property
    def submitted(self) -> bool:
        """Something was pasted."""
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
        """Which inputs are still empty (``"instance"``, ``"schema"``)."""
        return [
            name for name, text in (("instance", self.instance_text), ("schema", self.schema_text)) if not text.strip()
        ]

    @property
    def statusless(self) -> bool:
        """The gate refuses the pasted call at ``status`` because it has none: Open Responses allows a
        ``function_call`` without ``status`` on input items (Open Responses OpenAPI,
        ``tests/data/openresponses-openapi.json``: ``FunctionCallItemParam`` does not require it), and the Journal
        page offers to export such a call as ``completed`` when its output follows it
        (:mod:`webapp.core.journal.replay`)."""
        return (
            self.item is not None
            and self.call_name is not None
            and "status" not in self.item
            and self.verdict is not None
            and self.verdict.reason == "status"
        )

    @property
    def shown_count(self) -> int:
        """Errors listed (at most :data:`MAX_ERRORS_SHOWN`)."""
        return sum(len(group.rows) for group in self.groups)

    @property
    def refused(self) -> str | None:
        """What stops the pasted item before (or whatever) the schema says: the error findings' codes (``refused_by``)
        or the gate's reason before the schema step; ``None`` when nothing does."""
        if self.verdict is None:
            return None
        if self.verdict.refused_by:
            return ", ".join(self.verdict.refused_by)
        # Passing is no refusal (not_function_call: nothing to execute; a provider's own item replayed to that
        # provider: it goes back as it came); the schema step is this page's to show.
        verdict = self.verdict.verdict
        if self.verdict.reason in PASSING_REASONS or (verdict is not None and verdict.reached_schema):
            return None
        if not is_refusal(self.verdict.label):
            return None
        return self.verdict.reason

    @property
    def schema_reason(self) -> str | None:
        """The gate's reason at its schema step for the validated instance (``ok`` or ``arguments_schema``), once it
        is validated (:attr:`valid`), else ``None``."""
        if self.valid is None:
            return None
        return "ok" if self.valid else "arguments_schema"

    @property
    def records_passed(self) -> int:
        """Records whose outcome is one of :data:`PASSING`."""
        return sum(count for outcome, count in self.outcomes.items() if outcome in PASSING)

    @property
    def outcome_counts(self) -> list[tuple[str, int, str]]:
        """``(outcome, records, its badge class)`` for each outcome met, in the order first met
        (:func:`outcome_badge`)."""
        return [(outcome, count, outcome_badge(outcome)) for outcome, count in self.outcomes.items()]

    @property
    def records_badge(self) -> str:
        """The headline of a JSON Lines instance, following the gate: ``"valid"`` when every record passes,
        ``"not replayable"`` when the gate refuses an item of it, else ``"invalid"``."""
        if self.records_passed == self.record_count:
            return "valid"
        return NOT_REPLAYABLE if any(outcome in REFUSALS for outcome in self.outcomes) else "invalid"

    @property
    def records_cut(self) -> bool:
        """Not every record is shown (all are counted)."""
        return self.records is not None and len(self.records) < self.record_count

    @property
    def name_mismatch(self) -> bool:
        """The pasted call names another function than the pasted tool definition."""
        return (
            self.call_name is not None
            and self.schema_taken is not None
            and self.schema_taken.name is not None
            and self.schema_taken.name != self.call_name
        )


@dataclass(frozen=True)
class Record:
    """One record (line) of a JSON Lines instance, checked as a one-value instance would be.

    :ivar line: its 1-based line in the pasted text; ``position``: (line, column) where its value starts there.
    :ivar check: the record's own :class:`SchemaPage` (``instance_text`` is its line); every position in it, in its
        ``arguments`` string too, is in the whole pasted text. Its errors are cut to
        :data:`MAX_RECORD_ERRORS_SHOWN`.
    :ivar outcome: ``"not JSON"``; the gate's reason for an item (``"ok"``, ``"not_function_call"``,
        ``"arguments_schema"``, …; the headline follows the gate); ``"arguments_parse"`` for bare arguments that
        are not I-JSON; ``"schema problem"`` (no usable schema for this record, e.g. no tool of its name);
        ``"valid"``/``"invalid"``; ``"not checked"`` while the schema is missing.
    """

    line: int
    position: Position
    check: SchemaPage
    outcome: str

    @property
    def passed(self) -> bool:
        """The outcome is one of :data:`PASSING`."""
        return self.outcome in PASSING

    @property
    def badge(self) -> str:
        """The badge class its outcome is shown with (:func:`outcome_badge`)."""
        return outcome_badge(self.outcome)


# -- the check ---------------------------------------------------------------------------------------------


def build(
    instance_text: str | bytes,
    schema_text: str | bytes,
    *,
    format_assertion: bool = False,
    max_depth: int = DEFAULT_MAX_DEPTH,
    max_bytes: int | None = None,
    documents_text: str | bytes = "",
    target: str = DEFAULT_TARGET,
) -> SchemaPage:
    """Parse both texts, unwrap them, validate, and collect what the result pane shows.

    :param instance_text: the pasted instance: bare arguments, a ``function_call`` item or a Chat Completions
        tool call; or JSON Lines of them (a journal), each record checked on its own into ``SchemaPage.records``.
    :param schema_text: a JSON Schema, a tool definition or a list of them (each call picks its tool by name).
    :param format_assertion: ``format`` is asserted (JSON Schema 2020-12 Validation §7.2.2), not only annotated.
    :param max_depth: nesting allowed in each text (and in an ``arguments`` string); ``max_bytes``: UTF-8 size
        allowed of each (``None``: any). The limits of :func:`webapp.core.json.parse`.
    :param documents_text: the referenced schemas: a JSON array of schemas, each known by its ``$id``, or an
        object ``{"<absolute URI>": schema}``; what the schema ``$ref``s by URI, resolved locally
        (:func:`webapp.core.schema.bundle`). Empty: none.
        Each text may be bytes (a form field that is not UTF-8): read as UTF-8, its first such byte a parse problem
        at its line:column; the page keeps the text with U+FFFD there (:func:`webapp.core.json.shown_text`).
    :param target: where the item is to be replayed (a key of :data:`webapp.core.gate.TARGETS`); the gate's
        verdict on a pasted item, and on each record's, is for it.
    :return: the :class:`SchemaPage`. Never raises for bad input: every problem lands in it.
    """
    check = SchemaPage(
        instance_text=shown_text(instance_text),
        schema_text=shown_text(schema_text),
        format_assertion=format_assertion,
        documents_text=shown_text(documents_text),
        target=target,
    )
    limits = {"max_depth": max_depth, "max_bytes": max_bytes}
    instance_doc, as_lines = _parse_instance(check, instance_text, limits)
    schema_doc = _parse_input(check, "schema", schema_text, limits)
    documents_doc = _parse_input(check, "documents", documents_text, limits)
    usable = schema_doc is not None and not (documents_text.strip() and documents_doc is None)
    side = _SchemaSide(schema_doc if usable else None, documents_doc, format_assertion)
    if as_lines:
        _check_records(check, side, limits)
        return check
    locate_instance = None if instance_doc is None else _take_instance(check, instance_doc, limits)
    if check.item is not None and check.item.get("type") == CUSTOM_TOOL_CALL:
        _judge_custom_call(check, schema_doc.value if schema_doc is not None else None)
        return check
    if side.document is None:
        if check.item is not None and not schema_text.strip():
            _judge_before_schema(check)
        return check
    prepared = side.prepare(check.call_name)
    prepared.apply(check)
    if prepared.compiled is not None:
        _validate(check, prepared, locate_instance, MAX_ERRORS_SHOWN)
    return check


@dataclass
class _Prepared:
    """The schema side made ready for calls to one function name (or for a bare instance): what was taken, the
    problem that stops the check, or the compiled schema and its formats."""

    taken: Taken | None = None
    problem: SchemaProblem | None = None
    schema: Any = None
    locate: Locator | None = None
    compiled: CompiledSchema | None = None
    checkable: tuple[str, ...] = ()
    unchecked: list[str] = field(default_factory=list)

    def apply(self, check: SchemaPage) -> None:
        """Show this schema side in ``check``."""
        check.schema_taken, check.schema_problem, check.compiled = self.taken, self.problem, self.compiled
        check.checkable_formats, check.unchecked_formats = self.checkable, self.unchecked


@dataclass
class _SchemaSide:
    """The pasted schema (``None``: missing, not JSON, or its referenced schemas are not JSON) and the referenced
    schemas, prepared once per called name: a journal's records share it."""

    document: Document | None
    documents: Document | None
    format_assertion: bool
    _prepared: dict[str | None, _Prepared] = field(default_factory=dict)

    @property
    def tools(self) -> int | None:
        """How many tool definitions the schema lists, when it is a list of them (each call picks its own)."""
        value = None if self.document is None else self.document.value
        tools = read_schema_field(value).tools
        return len(tools) if tools is not None and isinstance(value, list) else None

    def prepare(self, call_name: str | None) -> _Prepared:
        """The schema for a call to ``call_name`` (``None``: no call), unwrapped, bundled with the referenced
        schemas and compiled; cached by name. Requires :attr:`document`."""
        if call_name not in self._prepared:
            self._prepared[call_name] = self._prepare(call_name)
        return self._prepared[call_name]

    def _prepare(self, call_name: str | None) -> _Prepared:
        assert self.document is not None
        prepared = _take_schema(self.document, call_name)
        if prepared.locate is None:
            return prepared
        schema = prepared.schema
        if self.documents is not None:
            try:
                if not isinstance(self.documents.value, (list, dict)):
                    raise SchemaError(
                        "the referenced schemas must be a JSON array of schemas (each with its $id) "
                        "or an object of URI -> schema"
                    )
                schema = bundle(schema, known_documents(self.documents.value, where="referenced schemas"))
            except SchemaError as problem:
                prepared.problem = SchemaProblem(problem.message, problem.pointer, problem.keyword, None)
                return prepared
        try:
            prepared.compiled = compile_schema(schema, format_assertion=self.format_assertion)
        except SchemaError as problem:
            prepared.problem = SchemaProblem(
                problem.message, problem.pointer, problem.keyword, prepared.locate(problem.pointer or "")
            )
            return prepared
        prepared.schema = schema
        # Listed even while assertion is off, so the user knows what the toggle would change.
        prepared.checkable = prepared.compiled.assertable_formats
        prepared.unchecked = prepared.compiled.unchecked_formats
        return prepared


def _validate(check: SchemaPage, prepared: _Prepared, locate_instance: Locator | None, shown_at_most: int) -> None:
    """The gate's verdict on a pasted item and the instance's errors (the first ``shown_at_most`` grouped and
    placed) against the prepared, compiled schema."""
    assert prepared.compiled is not None and prepared.locate is not None
    if check.item is not None:
        # A tool definition for another function is no schema for this call: the gate never runs it.
        _judge_item(check, None if check.name_mismatch else prepared.schema, given=True)
    if locate_instance is None:
        return
    try:
        errors = [] if prepared.compiled.is_valid(check.instance) else prepared.compiled.errors(check.instance)
    except SchemaError as problem:  # a catastrophic `pattern` found only while validating (PatternTimeout)
        check.schema_problem = SchemaProblem(
            problem.message, problem.pointer, problem.keyword, prepared.locate(problem.pointer or "")
        )
        return
    check.error_count = len(errors)
    shown = errors[:shown_at_most]
    check.groups = lay_out(shown, check.instance, prepared.schema, locate_instance, prepared.locate)


def _parse_instance(check: SchemaPage, text: str | bytes, limits: dict[str, Any]) -> tuple[Document | None, bool]:
    """Parse the instance as one JSON value, or, when it is not one but reads as JSON Lines (as the Format page
    decides: :func:`webapp.core.json.looks_like_lines`), say so: ``(None, True)``; its records are parsed
    one by one later, so a bad record is that record's error, not the whole text's."""
    if not text.strip():
        return None, False
    try:
        document = parse(text, **limits)
    except JSONTextError as error:
        if error.code == "extra_data" and looks_like_lines(check.instance_text, max_depth=limits["max_depth"]):
            return None, True
        check.parse_problems.append(ParseProblem("instance", error, (error.line, error.column)))
        return None, False
    check.warnings.extend(_warnings("instance", document, None))
    return document, False


def _check_records(check: SchemaPage, side: _SchemaSide, limits: dict[str, Any]) -> None:
    """Check each record of a JSON Lines instance on its own (every record counted, the first
    :data:`MAX_RECORDS_SHOWN` kept with their details), then the records that are items as the journal they make
    (:func:`_pair_records`), and show the schema side as the records share it."""
    check.records, check.schema_tools = [], side.tools
    if side.document is not None and check.schema_tools is None:
        side.prepare(None).apply(check)  # one schema for every record: its problem is the whole page's
    outcomes: list[str] = []
    items: list[tuple[int, int, Any]] = []  # (record number, line, item) of the records that are items
    for line, offset, raw in line_records(check.instance_text):
        record = _check_record(check, side, limits, line, offset, raw, detailed=len(check.records) < MAX_RECORDS_SHOWN)
        if record.check.item is not None:
            items.append((check.record_count, line, record.check.item))
        check.record_count += 1
        outcomes.append(record.outcome)
        if len(check.records) < MAX_RECORDS_SHOWN:
            check.records.append(record)
            check.warnings.extend(record.check.warnings)
        if check.schema_tools is not None and check.compiled is None and record.check.compiled is not None:
            check.compiled = record.check.compiled  # the dialect and formats shown: the first compiled tool's
            check.checkable_formats = record.check.checkable_formats
            check.unchecked_formats = record.check.unchecked_formats
    _pair_records(check, items, outcomes)
    for outcome in outcomes:
        check.outcomes[outcome] = check.outcomes.get(outcome, 0) + 1


def _pair_records(check: SchemaPage, items: list[tuple[int, int, Any]], outcomes: list[str]) -> None:
    """The pairing rules over the records that are items, as the journal they make (every other page and the CLI
    read JSON Lines so): an error finding about a record's item (``duplicate_call_id``, ``orphan_output``…) makes
    a record that passes on its own ``refused``, and is said on its line. ``outcomes``: every record's, changed in
    place."""
    if not items:
        return
    assert check.records is not None  # _check_records, the one caller, set it first
    lines = [line for _, line, _ in items]
    report = check_journal([item for _, _, item in items], target=check.target)
    for finding in report.findings:
        if finding.code not in PAIRING_FINDINGS or finding.severity != "error" or finding.index is None:
            continue  # the records' own findings were said on their lines
        number = items[finding.index][0]
        if outcomes[number] in PASSING:
            outcomes[number] = REFUSED
        if number < len(check.records):
            record = check.records[number]
            record.check.findings.append(finding.describe(lambda ref: f"the {ref.noun} on line {lines[ref.index]}"))
            line_verdict = record.check.verdict
            if line_verdict is not None and finding.code not in line_verdict.refused_by:
                assert line_verdict.verdict is not None  # gate.item_line, the one maker of these lines, sets it
                codes = (*line_verdict.refused_by, finding.code)
                record.check.verdict = replace(
                    line_verdict, refused_by=codes, message=refusal_message(line_verdict.verdict, codes)
                )
            check.records[number] = replace(record, outcome=outcomes[number])


def _check_record(
    whole: SchemaPage, side: _SchemaSide, limits: dict[str, Any], line: int, offset: int, raw: str, *, detailed: bool
) -> Record:
    """One record (the text ``raw`` of line ``line``, starting at character ``offset`` of the whole text) checked
    as a one-value instance; positions moved into the whole text. Not ``detailed``: its outcome only (no places
    looked up)."""
    check = SchemaPage(
        instance_text=raw, schema_text=whole.schema_text, format_assertion=whole.format_assertion, target=whole.target
    )

    def shift(inner_line: int, column: int) -> Position:  # a record is one line: only the line number moves
        return inner_line + line - 1, column

    try:
        document = parse(raw, first_line=line, **limits)  # its warnings name places in the whole text
    except JSONTextError as error:
        error = error.shifted(line - 1, offset)  # its line and offset in the whole text; the excerpt is the record's
        check.parse_problems.append(ParseProblem("instance", error, (error.line, error.column)))
        return Record(line, (line, 1), check, "not JSON")
    start = document.position("")
    position = shift(*start) if start is not None else (line, 1)
    if detailed:
        check.warnings.extend(_warnings("instance", document, None))
    locate_instance = _take_instance(check, document, limits, shift)
    if check.ijson_error is not None:  # the gate's I-JSON error names the place in the whole text, as others do
        check.ijson_error = check.ijson_error.shifted(line - 1, offset)
    if not detailed:
        check.warnings.clear()
    if check.item is not None and check.call_name is None:
        # Not a call (a message, an output, an extension): the gate decides before any schema step.
        _judge_item(check, None)
    elif side.document is not None:
        prepared = side.prepare(check.call_name)
        prepared.apply(check)
        if prepared.compiled is not None:
            _validate(check, prepared, locate_instance, MAX_RECORD_ERRORS_SHOWN if detailed else 0)
    return Record(line, position, check, _outcome(check, side.document is not None))


def _judge_before_schema(check: SchemaPage) -> None:
    """The gate's line for a pasted item while no schema is pasted, kept only when the gate refuses the item before
    any schema could (an incomplete call, a namespaced type): the page then says so rather than asking for a
    schema that cannot change the answer."""
    _judge_item(check, None)
    if check.refused is None:
        check.verdict, check.findings = None, []


def _judge_custom_call(check: SchemaPage, tools_value: Any) -> None:
    """A ``custom_tool_call``: its ``input`` against the format of the custom tool of its name among the pasted
    tools (a tool or a list of them), as the gate checks it for OpenAI, the one target that takes such a call
    (docs/targets.md O9, O12). No schema is compiled: a custom tool has none."""
    assert check.item is not None
    listed = tools_value if isinstance(tools_value, list) else [tools_value] if isinstance(tools_value, dict) else []
    name = check.item.get("name")
    formats = custom_tools(listed)
    check.grammar = (
        describe(formats.get(name)) if isinstance(name, str) and name in formats else "no custom tool pasted"
    )
    check.verdict, findings = check_one(check.item_read or check.item, None, target="openai", tools=listed)
    check.findings = [finding.describe(the_item) for finding in findings]


def _judge_item(check: SchemaPage, schema: Any, *, given: bool = False) -> None:
    """The gate's line for the pasted item against ``schema`` (``None``: none), as every page judges one item;
    ``given``: a schema was pasted (one for another function is no schema for this call: ``arguments_schema``,
    not ``not checked``)."""
    assert check.item is not None
    check.verdict, findings = check_one(
        check.item_read or check.item,
        schema,
        format_assertion=check.format_assertion,
        tool_name=check.call_name,
        tools=() if given else None,
        target=check.target,
    )
    check.findings = [finding.describe(the_item) for finding in findings]


def _outcome(check: SchemaPage, has_schema: bool) -> str:
    """A record's :attr:`Record.outcome`: the gate's word when it judged an item (``refused`` when a finding stops
    an item the gate passes), else the schema's."""
    if any(problem.source == "instance" for problem in check.parse_problems):
        return "not JSON"
    if check.verdict is not None:
        return item_label(check.verdict.reason, bool(check.verdict.refused_by))
    if not has_schema:
        return "not checked"
    if check.schema_problem is not None:
        return "schema problem"
    if check.ijson_error is not None:
        return "arguments_parse"
    return "valid" if check.valid else "invalid"


def _parse_input(check: SchemaPage, source: str, text: str | bytes, limits: dict[str, Any]) -> Document | None:
    """Parse one pasted text; record its parse error or warnings. Empty text is "not yet pasted", not an error."""
    if not text.strip():
        return None
    try:
        document = parse(text, **limits)
    except JSONTextError as error:
        check.parse_problems.append(ParseProblem(source, error, (error.line, error.column)))
        return None
    check.warnings.extend(_warnings(source, document, None))
    return document


def _warnings(source: str, document: Document, move: Move | None) -> list[TextWarning]:
    """The document's warnings, their line:column moved into the pasted text by ``move`` (``None``: kept)."""
    return [
        TextWarning(
            source, w.code, w.message, w.pointer, (w.line, w.column) if move is None else move(w.line, w.column)
        )
        for w in document.warnings
    ]


def _take_instance(
    check: SchemaPage, document: Document, limits: dict[str, Any], move: Move | None = None
) -> Locator | None:
    """Decide what the instance is: a pasted call's ``arguments`` (parsed from its string) or the whole text.

    Open Responses ``function_call`` items and Chat Completions tool calls are unwrapped (Open Responses
    spec, Items: ``arguments`` is a JSON string). Returns how to locate an instance pointer in the pasted
    text, or None when there is no usable instance (the ``arguments`` string does not parse). ``move`` maps
    positions in ``document`` into the pasted text (a record of JSON Lines); ``None``: it is the pasted text.
    """
    value = document.value
    envelope = call_shape(value)
    if envelope is None:
        if _is_item(value):
            # A message, an output, a namespaced extension...: no arguments to validate (its members against the
            # tool's schema would be noise); the gate's verdict says why it is not replayed.
            check.item, check.item_read = value, one_item(document.value, document.warnings)
            return None
        check.instance, check.has_instance = value, True
        if try_loads_ijson(document.text) is NOT_IJSON:
            # Bare arguments: the gate parses them as I-JSON (RFC 7493) before any schema, so a duplicate name
            # or a lone surrogate that the lenient parse only warned about stops it at arguments_parse.
            try:
                loads_ijson(document.text)
            except JSONTextError as error:
                check.ijson_error = error
        # An error is placed at the value that failed (the "global" an enum refuses), not at its member's name.
        return Locator(document, move=move, values=True)
    at, kind = envelope.arguments_pointer, envelope.kind
    arguments = pointer.resolve(value, at)
    check.call_name = envelope.name
    check.item = value if kind == "call" else None
    check.item_read = one_item(document.value, document.warnings) if kind == "call" else None
    check.instance_taken = Taken(kind, at, check.call_name, _str_or_none(value.get("id")), json_type(arguments))
    if not isinstance(arguments, str):
        # Stored as an object: the wrong form (the gate says arguments_type), but its content can still be checked.
        check.instance, check.has_instance = arguments, True
        return Locator(document, at, move=move, values=True)
    locate_string = _then(string_locator(document, at, arguments), move)
    try:
        # I-JSON, as the gate reads arguments: a duplicate member name there is arguments_parse, not a warning.
        inner = parse(arguments, ijson=True, **limits)
    except JSONTextError as error:
        check.parse_problems.append(ParseProblem("arguments", error, locate_string(error.line, error.column)))
        return None
    check.instance, check.has_instance = inner.value, True
    check.warnings.extend(_warnings("arguments", inner, locate_string))
    return Locator(inner, move=locate_string, values=True)


def _then(first: Move, then: Move | None) -> Move:
    """``first``, then ``then`` (when given) on what it answers."""
    if then is None:
        return first

    def both(line: int, column: int) -> Position | None:
        inside = first(line, column)
        return None if inside is None else then(*inside)

    return both


def _is_item(value: Any) -> bool:
    """An Open Responses item that is not a call to unwrap: a spec type or a provider extension.

    A ``function_call`` with ``arguments`` was unwrapped before; one without them is validated as it stands.
    """
    return looks_like_item(value) and value.get("type") != "function_call"


def _take_schema(document: Document, call_name: str | None) -> _Prepared:
    """Decide what the schema is: a bare JSON Schema, or the ``parameters`` of a tool definition.

    Tool definitions: Open Responses ``{type: "function", name, parameters}`` (flat; Open Responses
    spec, FunctionTool) and Chat Completions ``{type: "function", function: {name, parameters}}``
    (nested); in a list of them the call's name ``call_name`` picks one. Returns what was taken, with ``schema``
    and ``locate`` (``locate`` is None when no usable schema was found: the reason is its ``problem``).
    """
    value, prefix, of = document.value, "", None
    tools = read_schema_field(value).tools
    if tools is not None and isinstance(value, list):  # a list of tools: the call's name picks one
        names = [tool_shape(tool).name for tool in tools]  # type: ignore[union-attr]  # every one is a tool
        listed = ", ".join(quote(n) if n else "(unnamed)" for n in names[:10]) + (", …" if len(names) > 10 else "")
        if call_name is None:
            return _Prepared(
                problem=SchemaProblem(
                    f"A list of {len(value)} tool definitions ({listed}): paste the whole function_call item so its "
                    "name picks one, or paste one tool definition.",
                    pointer="",
                    position=document.position(""),
                )
            )
        if call_name not in names:
            return _Prepared(
                problem=SchemaProblem(
                    f"A list of {len(value)} tool definitions ({listed}) without the called function "
                    f"{quote(call_name)}.",
                    pointer="",
                    position=document.position(""),
                )
            )
        index = names.index(call_name)
        value, prefix, of = value[index], f"/{index}", len(value)
    tool: ToolShape | None = tool_shape(value)
    taken = None
    if tool is None:
        schema = value
    else:
        taken = Taken("tool", prefix + tool.parameters_pointer, tool.name, shape=tool.shape, of=of)
        label = f"The {'Chat Completions' if tool.shape == 'nested' else 'Open Responses'} tool definition"
        label += f" {quote(tool.name)}" if tool.name else ""
        if "parameters" not in tool.definition:
            return _Prepared(
                taken,
                SchemaProblem(
                    f'{label} has no "parameters": nothing to validate against.',
                    pointer=prefix,
                    position=document.position(prefix),
                ),
            )
        prefix += tool.parameters_pointer
        schema = tool.definition["parameters"]
        if schema is None:
            return _Prepared(
                taken,
                SchemaProblem(
                    f'{label} has "parameters": null, so it declares no schema to validate against.',
                    pointer=prefix,
                    position=document.position(prefix),
                ),
            )
    if not isinstance(schema, (dict, bool)):
        return _Prepared(
            taken,
            SchemaProblem(
                "A JSON Schema is an object or a boolean (JSON Schema 2020-12 §4.3.1), "
                f"not a JSON {json_type(schema)}.",
                pointer=prefix,
                position=document.position(prefix),
            ),
        )
    return _Prepared(taken, schema=schema, locate=Locator(document, prefix))


def _str_or_none(value: Any) -> str | None:
    return value if isinstance(value, str) else None

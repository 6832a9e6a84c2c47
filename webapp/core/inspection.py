"""The Format page's item reports (step 1), pure: what each Open Responses item of a document says about replay.

For every item of a lone item, an array, JSON Lines, a ``ResponseResource`` (its ``output``) or a
``CreateResponseBody`` (its ``input``): the type badge (portable core, other spec item, provider extension; the
vocabulary is :mod:`webapp.core.items`), what a ``function_call``'s ``arguments`` holds (read as the gate reads it,
with more detail) and the gate's verdict before any schema is known.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from webapp.core import gate
from webapp.core.format import pretty
from webapp.core.items import provider_of, type_kind
from webapp.core.journal import Duplicate, Journal, JournalError, from_value
from webapp.core.json import (
    Document,
    JSONLine,
    JSONTextError,
    JSONWarning,
    Position,
    displayable,
    in_string,
    kind_of,
    parse,
)
from webapp.core.json import pointer as jpointer
from webapp.core.tree import value_kind

__all__ = [
    "MAX_FINDINGS",
    "MAX_ITEMS",
    "NOT_CHECKED",
    "ArgumentsCheck",
    "Inspection",
    "ItemReport",
    "TypeBadge",
    "arguments_check",
    "gate_label",
    "gate_verdict",
    "inspect",
    "locate_items",
    "type_badge",
]


@dataclass(frozen=True)
class TypeBadge:
    """What an item's ``type`` says about portability.

    :ivar kind: ``core`` (portable core item), ``spec`` (other spec item), ``extension`` (provider-namespaced:
        ``slug:name``), ``provider`` (OpenAI's native type, unprefixed), ``unknown`` (not a spec type, not a
        provider's, not namespaced), ``missing`` (no ``type``) or
        ``invalid`` (``type`` is not a string).
    :ivar label: text of the badge; ``tone``: ``ok``, ``info``, ``warn`` or ``bad`` (CSS class).
    :ivar note: one sentence for people.
    """

    kind: str
    label: str
    tone: str
    note: str


def type_badge(item: Any, target: str = gate.DEFAULT_TARGET) -> TypeBadge:
    """Classify an item by its ``type`` (Open Responses spec, Items and "Extensions"), as
    :func:`webapp.core.items.type_kind` reads it, with a badge and a sentence for people. A provider's own type
    (``openai:web_search_call``, OpenAI's native ``web_search_call``) replayed to that provider (``target``) is
    information, not a refusal: it goes back as it came."""
    if not isinstance(item, dict):
        return TypeBadge("invalid", f"not an item ({value_kind(item)})", "bad", "An item is a JSON object with a type.")
    item_type = item.get("type")
    kind = type_kind(item_type)
    if kind == "missing":
        if "tool_calls" in item:
            return TypeBadge(
                "missing",
                "Chat Completions message",
                "bad",
                "A Chat Completions message with tool_calls: not an Open Responses item (those use "
                "function_call items with call_id and an arguments string).",
            )
        if "role" in item and "content" in item:
            return TypeBadge(
                "missing",
                "no type (a message?)",
                "warn",
                "role and content but no type: Open Responses message items carry "
                '"type": "message"; the gate reads a missing type as not portable.',
            )
        return TypeBadge("missing", "no type", "bad", "No type member: not an Open Responses item.")
    if kind == "invalid":
        return TypeBadge("invalid", f"type is {value_kind(item_type)}", "bad", "type must be a string.")
    assert isinstance(item_type, str)  # type_kind: only missing and invalid types are no strings
    shown = displayable(item_type)
    owner = provider_of(item_type) if kind in ("extension", "provider") else None
    if owner is not None and owner == target:
        return TypeBadge(
            kind,
            shown,
            "info",
            f"{displayable(owner)}'s own item, replayed to {displayable(owner)}: it goes back as it came (any other "
            "target leaves it out; docs/targets.md P1, O9).",
        )
    if kind == "extension":
        slug = displayable(item_type.split(":", 1)[0])
        return TypeBadge(
            "extension",
            shown,
            "bad",
            f'Provider extension (namespaced by "{slug}"): specific to that provider, not portable '
            "to another Open Responses server; the gate answers namespaced.",
        )
    if kind == "core":
        return TypeBadge("core", shown, "ok", "Portable core item (Open Responses spec, Items).")
    if kind == "spec":
        extra = (
            " Its encrypted_content is provider-sealed: drop it when the provider changes."
            if item_type in ("reasoning", "compaction")
            else ""
        )
        return TypeBadge("spec", shown, "info", f"Core spec item, nothing to execute.{extra}")
    if kind == "provider":
        return TypeBadge(
            "provider",
            shown,
            "bad",
            "OpenAI's native item type, sent without its prefix (openai:): OpenAI's Responses API takes it back; "
            "any other target leaves it out, and the gate says so (docs/targets.md P1, O9).",
        )
    return TypeBadge(
        "unknown",
        shown,
        "warn",
        "Not an Open Responses item type, not a provider's native type, and not namespaced: provider types "
        "must be prefixed with the provider's slug (acme:search_result); the gate refuses it (unknown_type).",
    )


@dataclass(frozen=True)
class ArgumentsCheck:
    """What a ``function_call``'s ``arguments`` holds (Open Responses: a JSON *string* with the tool's arguments).

    :ivar state: ``json_object`` (good), ``json_other`` (a JSON string holding an array/number/…),
        ``double_encoded`` (a JSON string whose content is again a JSON string), ``empty``, ``truncated``,
        ``invalid`` (not I-JSON), ``object`` (an object, not a string), ``not_string`` (number, array, …) or
        ``missing``.
    :ivar reason: the gate reason this state alone implies (``arguments_type``, ``arguments_parse``) or ``None``.
    :ivar tone: CSS tone of the badge; ``label``: its text; ``message``: one sentence for people.
    :ivar text: the arguments as the gate parses them (decoded once), as pretty JSON (numbers as written), when they
        parse, for display and for carrying to the Schema page; ``None`` otherwise. For ``double_encoded`` that is
        the string the gate reads, not the object beneath it (see ``decoded``).
    :ivar error: why the string is not I-JSON (line:column inside the string), for ``invalid``/``truncated``/
        ``empty``.
    :ivar layers: how many times the string had to be decoded (2 for double-encoded).
    :ivar decoded: for ``double_encoded``, the value after all ``layers`` decodings as pretty JSON (what the
        arguments were meant to be); ``None`` otherwise.
    """

    state: str
    reason: str | None
    tone: str
    label: str
    message: str
    text: str | None = None
    error: JSONTextError | None = None
    warnings: tuple[JSONWarning, ...] = ()
    layers: int = 1
    decoded: str | None = None


def arguments_check(item: dict, raw: str | None = None, indent: str = "  ") -> ArgumentsCheck:
    """Inspect ``item["arguments"]`` the way the gate reads it (I-JSON, RFC 7493), with more detail.

    :param raw: the arguments' text as written in the document, used when ``arguments`` is not a string.
    """
    if "arguments" not in item:
        return ArgumentsCheck(
            "missing",
            "arguments_type",
            "bad",
            "arguments missing",
            "This function_call has no arguments: Open Responses requires the JSON string.",
        )
    arguments = item["arguments"]
    if isinstance(arguments, dict):
        shown = pretty(raw, indent) if raw else json.dumps(arguments, indent=indent, ensure_ascii=False)
        return ArgumentsCheck(
            "object",
            "arguments_type",
            "bad",
            "object, not a string",
            "arguments is an object: Open Responses stores it as a JSON-encoded string, so another "
            "provider will refuse this item (gate: arguments_type). Encode it with "
            "json.dumps before storing.",
            displayable(shown),
        )
    if not isinstance(arguments, str):
        return ArgumentsCheck(
            "not_string",
            "arguments_type",
            "bad",
            f"{value_kind(arguments)}, not a string",
            f"arguments is {kind_of(arguments)}: it must be a JSON string holding an object (gate: arguments_type).",
        )
    if not arguments.strip():
        error = None
        try:
            parse(arguments)
        except JSONTextError as err:
            error = err
        return ArgumentsCheck(
            "empty",
            "arguments_parse",
            "bad",
            "empty string",
            'arguments is an empty string: not valid JSON. A call without arguments is "{}" (gate: arguments_parse).',
            error=error,
        )
    try:
        document = parse(arguments, ijson=True)
    except JSONTextError as err:
        if err.code == "truncated":
            return ArgumentsCheck(
                "truncated",
                "arguments_parse",
                "bad",
                "truncated JSON",
                f"arguments is cut off (line {err.line}, column {err.column} of the string): "
                "never execute it; an incomplete call's arguments may be partial "
                "(gate: arguments_parse).",
                error=err,
            )
        return ArgumentsCheck(
            "invalid",
            "arguments_parse",
            "bad",
            "not valid JSON",
            f"arguments is a string but not valid I-JSON: {err.message} (line {err.line}, "
            f"column {err.column} of the string; gate: arguments_parse).",
            error=err,
        )
    value, layers, text = document.value, 1, arguments
    while isinstance(value, str) and layers < 5:
        try:
            inner = parse(value, ijson=True)
        except JSONTextError:
            break
        value, layers, text = inner.value, layers + 1, value
    warnings = tuple(document.warnings)
    shown = displayable(pretty(text, indent))
    if layers > 1:
        return ArgumentsCheck(
            "double_encoded",
            None,
            "bad",
            "double-encoded",
            f"arguments is a JSON string whose content is itself a JSON string (encoded {layers} "
            "times): decoded once, it is not an object, so a tool schema with type object refuses "
            "it (gate: arguments_schema). Encode the arguments once.",
            displayable(pretty(arguments, indent)),
            warnings=warnings,
            layers=layers,
            decoded=shown,
        )
    if isinstance(value, dict):
        return ArgumentsCheck(
            "json_object",
            None,
            "ok",
            "JSON string → object",
            "arguments is a JSON string holding an object, as Open Responses stores it. Next: "
            "check it against the tool's schema (step 2).",
            shown,
            warnings=warnings,
        )
    return ArgumentsCheck(
        "json_other",
        None,
        "warn",
        f"JSON string → {value_kind(value)}",
        f"arguments parses, but to {kind_of(value)}, not an object: tool parameters are "
        "objects, so the schema check will refuse it (gate: arguments_schema).",
        shown,
        warnings=warnings,
    )


@dataclass(frozen=True)
class ItemReport:
    """One item of the document as the page shows it.

    :ivar index: position in the journal (``None`` for a lone item); ``pointer``: RFC 6901 pointer of the item
        in the document (``""`` for a lone item, ``/output/2`` in a response); ``line``: its line for JSON Lines.
    :ivar badge: the :class:`TypeBadge`; ``fields``: ``id``, ``call_id``, ``name``, ``status`` when present
        (display strings).
    :ivar arguments: the :class:`ArgumentsCheck` of a ``function_call`` (``None`` for other items).
    :ivar verdict: the gate's :class:`webapp.core.gate.Verdict` with no schema (``check_item(item, None)``).
    :ivar text: the item's JSON as written, pretty-printed, for carrying to the Diff page.
    :ivar arguments_at: where the ``arguments`` string's parse error (:attr:`ArgumentsCheck.error`, placed in the
        string's own text) is in the pasted text, when found.
    """

    index: int | None
    pointer: str
    badge: TypeBadge
    fields: dict[str, str]
    arguments: ArgumentsCheck | None
    verdict: gate.Verdict
    text: str
    line: int | None = None
    arguments_at: Position | None = None
    refused_by: tuple[str, ...] = ()
    disposition: str | None = None  # the target's plan for it (keep, leave_out, refused)

    @property
    def gate_label(self) -> str:
        """The badge: the gate's reason, :data:`NOT_CHECKED` when only the tool's schema is left to check,
        ``provider item`` for a namespaced item the target keeps, or ``refused`` when an error finding stops an
        item that would pass (:attr:`refused_by`)."""
        return gate.item_label(gate.base_label(gate_label(self.verdict), True, self.disposition), bool(self.refused_by))

    @property
    def gate_summary(self) -> tuple[str, str]:
        """(tone, sentence) for the gate's verdict without a schema; the tone is the label's badge
        (:func:`webapp.core.gate.badge`)."""
        label = self.gate_label
        tone = gate.badge(label)
        if label == gate.REFUSED:
            if self.verdict.reason in gate.PASSING_REASONS:
                return tone, displayable(gate.refusal_message(self.verdict, self.refused_by))
            return tone, (
                f"{', '.join(self.refused_by)} stops this item (see the findings), whatever its tool's "
                "schema says: it may not be executed"
            )
        if label == NOT_CHECKED:
            return tone, "passes every check that needs no schema; the tool's schema decides (step 2)."
        if label == gate.PROVIDER_ITEM:
            return tone, "the target's own item (its provider made it): it goes back as it came; nothing to execute."
        return tone, displayable(self.verdict.message)


#: Badge of a function_call that passes every gate check before the schema one (the gate's word:
#: :data:`webapp.core.gate.NOT_CHECKED`).
NOT_CHECKED = gate.NOT_CHECKED
#: The gate's label of an item judged with no schema (:func:`webapp.core.gate.label_without_schema`).
gate_label = gate.label_without_schema


def gate_verdict(item: Any) -> gate.Verdict:
    """The gate's verdict for ``item`` before any schema is known (the one place the page calls the gate)."""
    return gate.check_item(item, None)


@dataclass
class Inspection:
    """The Open Responses view of a document.

    :ivar shape: ``item``, ``array``, ``jsonl``, ``response`` (a ``ResponseResource``: its ``output``) or
        ``request`` (a ``CreateResponseBody``: its ``input``).
    :ivar items: reports of the first :data:`MAX_ITEMS` items; ``total``: the number of items.
    :ivar kinds / reasons / states: counts over *all* items of badge kinds, gate reasons and arguments states.
    :ivar findings: for a journal, the pairing findings of :func:`webapp.core.gate.check_journal`
        (``orphan_output``, ``output_for_unfinished_call``, ``duplicate_call_id``, …; ``unknown_tool`` only when
        the document carries its ``tools``), each naming an item by its position: the first
        :data:`MAX_FINDINGS` of them; ``finding_counts``: the number of findings of each code, over all of them.
    """

    shape: str
    items: list[ItemReport]
    total: int
    findings: list[gate.Finding] = field(default_factory=list)
    kinds: dict[str, int] = field(default_factory=dict)
    reasons: dict[str, int] = field(default_factory=dict)
    states: dict[str, int] = field(default_factory=dict)
    finding_counts: dict[str, int] = field(default_factory=dict)

    @property
    def findings_total(self) -> int:
        """The number of pairing findings, shown or not."""
        return sum(self.finding_counts.values())


#: Item reports rendered per document (the counts cover every item).
MAX_ITEMS = 50
#: Pairing findings listed per document: a journal of 70,000 orphan outputs has 70,000 of them, megabytes of page
#: (the counts cover every finding; the Journal step pages through all of them).
MAX_FINDINGS = 100


def inspect(
    source: Document | Sequence[JSONLine],
    *,
    indent: str = "  ",
    limit: int = MAX_ITEMS,
    target: str = gate.DEFAULT_TARGET,
) -> Inspection | None:
    """Find Open Responses items in a document (or JSON Lines) and inspect them; the gate's findings on them are
    about ``target`` (one of the gate's ``TARGETS``).

    :returns: ``None`` when the document is not item-like (e.g. a tool schema or any other JSON).
    """
    if isinstance(source, Document):
        located = locate_items(source.value)
        if located is None:
            return None
        shape, base, items = located
        sources: list[tuple[Document, str, int | None]] = [
            (source, jpointer.child(base, i) if shape != "item" else "", None) for i in range(len(items))
        ]
    else:
        items = [record.document.value for record in source]
        if not items or not all(isinstance(item, dict) for item in items) or not any(_item_like(i) for i in items):
            return None
        shape = "jsonl"
        sources = [(record.document, "", record.line) for record in source]
    inspection = Inspection(shape, [], len(items))
    refused, dispositions = _findings(inspection, source, items, target)
    for index, (item, (document, pointer, line)) in enumerate(zip(items, sources, strict=True)):
        badge = type_badge(item, target)
        verdict = gate_verdict(item)
        refused_by = refused.get(index, ())
        disposition = dispositions[index] if index < len(dispositions) else None
        check = None
        if isinstance(item, dict) and item.get("type") == "function_call":
            need_raw = index < limit and isinstance(item.get("arguments"), dict)
            raw = document.raw(jpointer.child(pointer, "arguments")) if need_raw else None
            check = arguments_check(item, raw, indent)
            inspection.states[check.state] = inspection.states.get(check.state, 0) + 1
        inspection.kinds[badge.kind] = inspection.kinds.get(badge.kind, 0) + 1
        label = gate.item_label(gate.base_label(gate_label(verdict), True, disposition), bool(refused_by))
        inspection.reasons[label] = inspection.reasons.get(label, 0) + 1
        if index < limit:
            raw_item = document.raw(pointer) or json.dumps(item, ensure_ascii=False)
            fields = {
                name: displayable(str(item[name]))
                for name in ("id", "call_id", "name", "status")
                if isinstance(item, dict) and name in item
            }
            error = check.error if check is not None else None
            at = (
                None
                if error is None or not error.line
                else in_string(
                    document,
                    jpointer.child(pointer, "arguments"),
                    item["arguments"],
                    error.line,
                    error.column,
                    first_line=line or 1,
                )
            )
            inspection.items.append(
                ItemReport(
                    None if shape == "item" else index,
                    pointer if shape != "jsonl" else "",
                    badge,
                    fields,
                    check,
                    verdict,
                    displayable(pretty(raw_item, indent)),
                    line,
                    at,
                    refused_by,
                    disposition,
                )
            )
    return inspection


def _findings(
    inspection: Inspection, source: Document | Sequence[JSONLine], items: list[Any], target: str
) -> tuple[dict[int, tuple], list[str | None]]:
    """The gate's findings on what the document holds, into ``inspection`` (the first :data:`MAX_FINDINGS`, all
    counted): a journal's (pairing, ``tool_choice``, member names given twice), or what stops a lone item whatever
    its value's verdict (:func:`webapp.core.gate.check_one`: no call_id, no name, a name given twice), worded for
    "the item". The tools are the document's own, when it names them: without them every call would be
    ``unknown_tool``; without any they are ``not checked``. Returns each refused item's index -> the codes that
    stop it, and each item's disposition for ``target`` (keep, leave_out, refused)."""
    journal = _as_read(source, items)
    if inspection.shape == "item":
        line, findings = gate.check_one(journal, target=target)
        findings = [replace(f, index=None, message=f.describe(gate.the_item)) for f in findings]
        refused = {0: line.refused_by} if line.refused_by else {}
        dispositions: list[str | None] = [line.disposition]
    else:
        report = gate.check_journal(journal, target=target)
        findings, refused = report.findings, dict(report.refused)
        dispositions = list(report.plan.dispositions) if report.plan is not None else []
    inspection.findings = findings[:MAX_FINDINGS]
    for finding in findings:
        inspection.finding_counts[finding.code] = inspection.finding_counts.get(finding.code, 0) + 1
    return refused, dispositions


def _as_read(source: Document | Sequence[JSONLine], items: list[Any]) -> Journal:
    """The items as the gate reads them from their text: with the tools and ``tool_choice`` the document carries
    and the member names each item gives twice (JSON Lines: each record's, by its index)."""
    if isinstance(source, Document):
        try:
            journal = from_value(source.value, source.warnings)
        except JournalError:
            return Journal(items)
        # the items this page found (locate_items), or another reading of the shape: those items, as they are
        return (
            journal
            if journal.items is items or (journal.shape == "item" and items == journal.items)
            else Journal(items)
        )
    twice = [
        Duplicate(index, w.pointer, w.line, w.column, w.message)
        for index, record in enumerate(source)
        for w in record.document.warnings
        if w.code == "duplicate_key"
    ]
    return Journal(items, duplicates=twice)


def _item_like(value: Any) -> bool:
    return isinstance(value, dict) and ("type" in value or ("role" in value and "content" in value))


def locate_items(value: Any) -> tuple[str, str, list[Any]] | None:
    """Where a parsed document holds Open Responses items: ``(shape, pointer of the item list, items)``, shape one
    of ``item`` (the document is one item; pointer ``""``), ``array``, ``response`` (``/output``) or ``request``
    (``/input``); ``None`` when it holds none (a tool schema, ``{"a": 1}``, an array of numbers)."""
    if isinstance(value, list):
        if value and all(isinstance(v, dict) for v in value) and any(_item_like(v) for v in value):
            return "array", "", value
        return None
    if not isinstance(value, dict):
        return None
    if isinstance(value.get("output"), list) and (value.get("object") == "response" or "input" not in value):
        return "response", "/output", value["output"]
    if isinstance(value.get("input"), list) and value["input"] and all(isinstance(v, dict) for v in value["input"]):
        return "request", "/input", value["input"]
    if _item_like(value):
        return "item", "", [value]
    return None

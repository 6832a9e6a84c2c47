"""Open Responses items as the request body each target's API takes: one writer per target.

    >>> answer = export(items, target="anthropic", tools=tools)     # the gate's target plan, then the writer
    >>> answer.body, answer.left_out, answer.notes   # the body; what the target may not receive; what was not written
    >>> written = write(items, target="anthropic", tools=tools)      # the writer alone: every item as handed

Targets (the gate's ``TARGETS``, docs/targets.md): ``portable`` and ``openai`` →
``{"input": [...], "tools"?}`` (:mod:`.openai`), ``anthropic`` → ``{"system"?, "messages", "tools"?}``
(:mod:`.anthropic`), ``gemini`` → ``{"systemInstruction"?, "contents", "tools"?}`` (:mod:`.gemini`),
``chat_completions`` → ``{"messages", "tools"?}`` (:mod:`.chat_completions`). Each writer is the inverse of its
provider's converter (:mod:`webapp.core.convert`) and restores that provider's ``"<provider>:<member>"``
members; it decides no replay policy (the gate's target plan does), and notes what it cannot write.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from webapp.core.convert import Conversion, convert, tools_from
from webapp.core.export import anthropic, chat_completions, gemini, openai
from webapp.core.export.base import EXPORT_NOTE_CODES, ExportNote, Written
from webapp.core.export.settings import carry_settings
from webapp.core.gate import JournalReport, check_journal
from webapp.core.gate.targets import LeftOut
from webapp.core.items import native_openai
from webapp.core.journal import Journal
from webapp.core.journal.settings import RequestSettings
from webapp.core.json import DEFAULT_MAX_DEPTH, displayable

__all__ = [
    "EXPORT_NOTE_CODES",
    "READ_AS",
    "WRITERS",
    "Export",
    "ExportNote",
    "Written",
    "export",
    "hosted_tools_left_out",
    "read_back",
    "write",
]

#: Each target and its writer module (every module has ``write(items, *, target, tools)``).
WRITERS = {
    "portable": openai,
    "openai": openai,
    "anthropic": anthropic,
    "gemini": gemini,
    "chat_completions": chat_completions,
}


def write(items: list[Any], *, target: str, tools: list[Any] | None = None) -> Written:
    """The body ``target``'s API takes for ``items``, and the notes on what could not be written.

    :param items: Open Responses items (what the gate's target plan kept; the writer serialises them as handed).
    :param target: one of :data:`WRITERS`.
    :param tools: flat Open Responses function tools (what :func:`webapp.core.convert.tools_from` gives), or
        ``None`` when unknown: the body then has no ``tools``.
    :raises ValueError: ``target`` is not one of :data:`WRITERS`.
    """
    writer = WRITERS.get(target)
    if writer is None:
        raise ValueError(f"unknown target {target!r}: one of {', '.join(WRITERS)}")
    return writer.write(items, target=target, tools=tools)


@dataclass
class Export:
    """A conversation as one target receives it: the gate's plan for that target, written by its writer.

    :ivar target: one of the gate's ``TARGETS``.
    :ivar body: the request body the target's API takes (see :func:`write`), of the items the plan keeps as it
        repaired them; ``None`` when the gate offers none (:attr:`reason` says why).
    :ivar left_out: each item and member the target may not receive (the plan's
        :class:`~webapp.core.gate.targets.LeftOut`: index and JSON Pointer into the journal, code, words).
    :ivar notes: what the writer could not write, with ``index`` mapped back to the journal's item.
    :ivar report: the gate's :class:`~webapp.core.gate.JournalReport` for this target (``replayable`` says whether
        the journal may be sent as it is; its ``plan`` holds the repairs and their JSON Patch).
    :ivar reason: why no body is offered (``None`` when one is): a finding about the journal as a whole, or the
        findings the body itself would meet, read back and checked for the target.
    """

    target: str
    body: dict[str, Any] | None
    left_out: list[LeftOut] = field(default_factory=list)
    notes: list[ExportNote] = field(default_factory=list)
    report: JournalReport | None = None
    reason: str | None = None

    @property
    def patch(self) -> list[dict[str, Any]]:
        """The plan's RFC 6902 JSON Patch from the journal's items to the items sent (empty without a report)."""
        plan = self.report.plan if self.report is not None else None
        return plan.patch if plan is not None else []

    def text(self) -> str:
        """The body as indented JSON text, a file to send (``null`` when none is offered). A lone surrogate (legal
        in a JSON string, not encodable as UTF-8) is written as its ``\\uXXXX`` escape: the same string, in a
        text that can be sent."""
        return displayable(json.dumps(self.body, ensure_ascii=False, indent=2)) + "\n"

    def as_dict(self) -> dict[str, Any]:
        """JSON-ready: ``{"target", "replayable", "answer", "says", "unchecked", "body", "reason", "left_out":
        [{index, pointer, code, words}], "repairs": [{index, pointer, code, words, op, value}], "patch": [RFC 6902
        operations], "notes": [{index, pointer, code, message}], "left_out_notes": {code: words}}``
        (``replayable``, ``answer``, ``says``, ``unchecked``: the gate's, :class:`~webapp.core.gate.JournalReport`;
        ``left_out_notes`` holds the repairs' codes too)."""
        report = self.report
        plan = report.plan if report is not None else None
        return {
            "target": self.target,
            "replayable": report.replayable if report is not None else None,
            "answer": report.answer if report is not None else None,
            "says": report.says if report is not None else None,
            "unchecked": dict(report.unchecked) if report is not None else {},
            "body": self.body,
            "reason": self.reason,
            "left_out": [entry.as_dict() for entry in self.left_out],
            "repairs": [repair.as_dict() for repair in plan.repairs] if plan is not None else [],
            "patch": self.patch,
            "left_out_notes": dict(plan.notes) if plan is not None else {},
            "notes": [note.as_dict() for note in self.notes],
        }


#: The source each target's body is read back as (:func:`read_back`): the converter of that target's shape.
READ_AS = {
    "portable": "auto",
    "openai": "auto",
    "anthropic": "anthropic",
    "gemini": "gemini",
    "chat_completions": "chat_completions",
}


def read_back(body: dict[str, Any], target: str) -> Conversion:
    """A body written for ``target`` read back as items, by the converter of that target's shape (the writers are
    the converters' inverse): what the target would see. :raises webapp.core.convert.ConvertError: it cannot be
    read (a writer's bug)."""
    return convert(body, READ_AS[target])


def export(
    items: Iterable[Any] | Journal,
    *,
    target: str,
    tools: list[Any] | None = None,
    source: str | None = None,
    tool_choice: Any = None,
    max_depth: int = DEFAULT_MAX_DEPTH,
    settings: RequestSettings | None = None,
    complete_statusless: bool = False,
) -> Export:
    """The body ``target`` accepts for a conversation: the gate judges it for that target
    (:func:`webapp.core.gate.check_journal`), its plan keeps and repairs what the target may receive, the writer
    writes that — and the body offered is the body judged: read back (:func:`read_back`) and checked for the target,
    it has no error finding, or no body is offered.

    :param items: the conversation's items, or a :class:`~webapp.core.journal.Journal`.
    :param target: one of the gate's ``TARGETS``. :raises ValueError: for another value.
    :param tools: tool definitions in any provider's shape, or ``None``: a :class:`~webapp.core.journal.Journal`'s
        own tools then, if it has any. The gate checks calls against them as given (custom tools' grammars too);
        the writer writes their function tools (:func:`webapp.core.convert.tools_from`), and each other tool is a
        ``tool_left_out`` note naming it.
    :raises webapp.core.convert.ConvertError: ``tools`` holds no tool list (naming the pointer).
    :param source: where the items came from (a ``SOURCES`` value of :mod:`webapp.core.convert`), ``None`` to
        read it from the items.
    :param settings: the request's own settings and the options asked beside it
        (:class:`~webapp.core.journal.settings.RequestSettings`), ``None``: a
        :class:`~webapp.core.journal.Journal`'s own. The gate counts them (thinking, store), and the body carries
        those the target takes (:func:`webapp.core.export.settings.carry_settings`: the same API's as they came,
        the model to its own provider only), each one not carried in a ``setting_left_out`` note.
    :param complete_statusless: send the status-less calls their outputs vouch for as ``completed`` (the user's
        explicit choice; :func:`webapp.core.gate.check_journal`).
    :return: an :class:`Export`. ``body`` is ``None`` with a ``reason`` when an error finding is about the journal as
        a whole (a tool definition, ``tool_choice``, its text), which no leaving out repairs, when nothing is left to
        send (:data:`NOTHING_TO_SEND`), or when the body read back would still be refused. ``report.replayable`` is
        ``False`` when a finding stops the journal as it is (the body then holds only what the plan kept and
        repaired, never a refused item).
    """
    if tools is None and isinstance(items, Journal):
        tools = items.tools  # the journal's own (a CreateResponseBody's)
    if settings is None:
        settings = items.settings if isinstance(items, Journal) else RequestSettings()
    if not isinstance(items, (Journal, list, tuple)):
        items = list(items)
    if source is None:
        source = "openai" if native_openai(items.items if isinstance(items, Journal) else items) else settings.source
    function_tools = tools_from(tools) if tools is not None else None
    thinking, store = settings.for_target(target)
    report = check_journal(
        items,
        tools,
        tool_choice=tool_choice,
        max_depth=max_depth,
        target=target,
        source=source,
        thinking=thinking,
        store=store,
        complete_statusless=complete_statusless,
    )
    plan = report.plan
    assert plan is not None  # check_journal always makes one (the field is Optional for hand-made reports)
    written = write(plan.kept, target=target, tools=function_tools)
    carry_settings(written, settings, source=source, target=target)
    notes = [
        ExportNote(
            note.code, note.message, plan.kept_indexes[note.index] if note.index is not None else None, note.pointer
        )
        for note in written.notes
    ]
    if tools is not None:
        notes = [note for note in notes if note.code != "tool_left_out"] + hosted_tools_left_out(tools)
    answer = Export(target, written.body, list(plan.left_out), notes, report)
    whole = [f for f in report.findings if f.severity == "error" and f.index is None]
    if whole:
        answer.body, answer.reason = (
            None,
            "the journal as a whole is refused, which leaving items out cannot repair: "
            + ("; ".join(f"{f.code}: {f.message}" for f in whole)),
        )
        return answer
    back = read_back(written.body, target) if plan.kept else None
    if back is None or not back.items:
        answer.body, answer.reason = None, NOTHING_TO_SEND
        return answer
    # The calls' arguments were judged against the tools given, above; read back, the body is judged for what the
    # target's own rules refuse (order, pairing, ids, signatures), its calls not checked again.
    judged = check_journal(back.items, None, max_depth=max_depth, target=target, source=back.source)
    refusals = [f for f in judged.findings if f.severity == "error"]
    if refusals:
        answer.body, answer.reason = (
            None,
            f"the body, read back, would still be refused by {target}: "
            + ("; ".join(f"{f.code}: {f.message}" for f in refusals)),
        )
    return answer


#: Why no body is offered when the plan keeps nothing a target's body can hold.
NOTHING_TO_SEND = "nothing is left to send: every item is left out, refused or not writable for this target (see why)"


def hosted_tools_left_out(tools: Any) -> list[ExportNote]:
    """A ``tool_left_out`` note for each tool definition of ``tools`` that is no function tool (a hosted
    ``web_search``, Gemini's ``googleSearch``…), naming it: the body carries function tools only
    (:func:`webapp.core.convert.tools_from`). ``tools``: as :func:`export` takes them."""
    where = ""
    if isinstance(tools, dict) and isinstance(tools.get("tools"), list):
        tools, where = tools["tools"], "/tools"
    notes = []
    for i, tool in enumerate(tools if isinstance(tools, list) else ()):
        if not isinstance(tool, dict):
            continue
        if "functionDeclarations" in tool or "function_declarations" in tool:
            others = [json.dumps(k) for k in tool if k not in ("functionDeclarations", "function_declarations")]
        else:
            others = [] if tools_from([tool]) else [_tool_name(tool)]
        for name in others:
            notes.append(
                ExportNote(
                    "tool_left_out",
                    f"tool {i} ({name}) is not a function tool: the body carries function tools only, left out",
                    None,
                    f"{where}/{i}",
                )
            )
    return notes


def _tool_name(tool: dict) -> str:
    """How a tool that is no function tool is named in a note: its type and its name, as far as it has them."""
    kind, name = tool.get("type"), tool.get("name")
    said = [json.dumps(value, ensure_ascii=False) for value in (kind, name) if isinstance(value, str)]
    return " ".join(said) if said else ", ".join(json.dumps(k, ensure_ascii=False) for k in list(tool)[:3])

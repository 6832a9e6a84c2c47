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

from webapp.core.convert import tools_from
from webapp.core.export import anthropic, chat_completions, gemini, openai
from webapp.core.export.base import EXPORT_NOTE_CODES, ExportNote, Written
from webapp.core.export.settings import carry_settings
from webapp.core.gate import JournalReport, check_journal
from webapp.core.gate.targets import LeftOut
from webapp.core.items import native_openai
from webapp.core.journal import Journal
from webapp.core.journal.settings import RequestSettings
from webapp.core.json import DEFAULT_MAX_DEPTH, displayable

__all__ = ["WRITERS", "EXPORT_NOTE_CODES", "Export", "ExportNote", "Written", "export", "write"]

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
    :ivar body: the request body the target's API takes (see :func:`write`), of the items the plan keeps.
    :ivar left_out: each item and member the target may not receive (the plan's
        :class:`~webapp.core.gate.targets.LeftOut`: index and JSON Pointer into the journal, code, words).
    :ivar notes: what the writer could not write, with ``index`` mapped back to the journal's item.
    :ivar report: the gate's :class:`~webapp.core.gate.JournalReport` for this target (``replayable`` says whether
        the body may be sent as it is).
    """

    target: str
    body: dict[str, Any]
    left_out: list[LeftOut] = field(default_factory=list)
    notes: list[ExportNote] = field(default_factory=list)
    report: JournalReport | None = None

    def text(self) -> str:
        """The body as indented JSON text, a file to send. A lone surrogate (legal in a JSON string, not
        encodable as UTF-8) is written as its ``\\uXXXX`` escape: the same string, in a text that can be sent."""
        return displayable(json.dumps(self.body, ensure_ascii=False, indent=2)) + "\n"

    def as_dict(self) -> dict[str, Any]:
        """JSON-ready: ``{"target", "replayable", "answer", "says", "unchecked", "body", "left_out": [{index, pointer,
        code, words}], "notes": [{index, pointer, code, message}], "left_out_notes": {code: words}}``
        (``replayable``, ``answer``, ``says``, ``unchecked``: the gate's, :class:`~webapp.core.gate.JournalReport`)."""
        report = self.report
        plan = report.plan if report is not None else None
        return {
            "target": self.target,
            "replayable": report.replayable if report is not None else None,
            "answer": report.answer if report is not None else None,
            "says": report.says if report is not None else None,
            "unchecked": dict(report.unchecked) if report is not None else {},
            "body": self.body,
            "left_out": [entry.as_dict() for entry in self.left_out],
            "left_out_notes": dict(plan.notes) if plan is not None else {},
            "notes": [note.as_dict() for note in self.notes],
        }


def export(
    items: Iterable[Any] | Journal,
    *,
    target: str,
    tools: list[Any] | None = None,
    source: str | None = None,
    tool_choice: Any = None,
    max_depth: int = DEFAULT_MAX_DEPTH,
    settings: RequestSettings | None = None,
) -> Export:
    """The body ``target`` accepts for a conversation: the gate judges it for that target
    (:func:`webapp.core.gate.check_journal`), its plan keeps what the target may receive, the writer writes that.

    :param items: the conversation's items, or a :class:`~webapp.core.journal.Journal`.
    :param target: one of the gate's ``TARGETS``. :raises ValueError: for another value.
    :param tools: tool definitions in any provider's shape, or ``None``: a :class:`~webapp.core.journal.Journal`'s
        own tools then, if it has any. The gate checks calls against them as given (custom tools' grammars too);
        the writer writes their function tools (:func:`webapp.core.convert.tools_from`).
    :raises webapp.core.convert.ConvertError: ``tools`` holds no tool list (naming the pointer).
    :param source: where the items came from (a ``SOURCES`` value of :mod:`webapp.core.convert`), ``None`` to
        read it from the items.
    :param settings: the request's own settings and the options asked beside it
        (:class:`~webapp.core.journal.settings.RequestSettings`), ``None``: a
        :class:`~webapp.core.journal.Journal`'s own. The gate counts them (thinking, store), and the body carries
        those the target takes (:func:`webapp.core.export.settings.carry_settings`: the same API's as they came,
        the model to its own provider only), each one not carried in a ``setting_left_out`` note.
    :return: an :class:`Export`; ``report.replayable`` is ``False`` when a finding stops the replay (the body then
        holds only what the plan kept, never a refused item).
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
    return Export(target, written.body, list(plan.left_out), notes, report)

"""What of a conversation of any provider may be replayed: the gate over a conversion, and the replayable subset.

:func:`gate_conversion` judges a :class:`webapp.core.convert.Conversion` as the gate judges any journal
(:func:`webapp.core.gate.check_journal`: every item, the pairing rules, the duplicate member names its Open
Responses text had). :func:`replayable_subset` is what may go to the next provider, with what was left out and why.

Clients that omit ``status`` on calls they replay (the Vercel AI SDK, LangChain after ``stream``) write journals
whose calls the gate refuses (``status``: the replay-gate article's rule, kept). ``complete_statusless=True`` is the
user's explicit choice to export such a call as ``completed`` when its ``function_call_output`` follows it in the
journal (the client vouched that it ran it: the gate's one rule, :func:`webapp.core.gate.vouched_calls`, the one
``/v1/responses`` applies on input).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from webapp.core.convert import Conversion, as_journal
from webapp.core.gate import DEFAULT_TARGET, JournalReport, check_journal, vouch, vouched_calls
from webapp.core.items import is_namespaced, provider_of
from webapp.core.json import displayable

__all__ = ["LeftOut", "Subset", "gate_conversion", "replayable_subset"]


def gate_conversion(conversion: Conversion, tools: list[dict] | None, *, target: str = DEFAULT_TARGET) -> JournalReport:
    """The gate over a conversion for ``target`` (one of the gate's ``TARGETS``; its source is the conversion's):
    its items against ``tools`` (flat Open Responses function tools; ``None``: no tools known), with its
    ``tool_choice`` and the duplicate member names its Open Responses text had.

    :raises ValueError: ``target`` is not one of the gate's ``TARGETS``."""
    return check_journal(as_journal(conversion), tools, target=target, source=conversion.source)


@dataclass(frozen=True)
class LeftOut:
    """An item the replayable subset leaves out. :ivar why: one sentence; :ivar code: a stable word for it."""

    index: int
    where: str
    code: str
    why: str


@dataclass
class Subset:
    """The replayable subset: the items to export, in order, and what was left out."""

    items: list[dict] = field(default_factory=list)
    left_out: list[LeftOut] = field(default_factory=list)
    completed: list[int] = field(default_factory=list)  # status-less calls exported as completed (by choice)

    def jsonl(self) -> str:
        """The items as Open Responses JSON Lines (one item per line; ``arguments`` strings as they were). A lone
        surrogate (legal in a JSON string, not encodable as UTF-8) is written as its ``\\uXXXX`` escape: the same
        string, in a text that can be sent."""
        return "".join(displayable(json.dumps(item, ensure_ascii=False)) + "\n" for item in self.items)


def replayable_subset(
    conversion: Conversion, report: JournalReport, tools: list[dict] | None = None, *, complete_statusless: bool = False
) -> Subset:
    """What of the conversation may go to the next provider, and what is left out, with why.

    Kept: messages, the calls the gate passes (``ok``) and their outputs, reasoning without provider-sealed
    content. Left out: namespaced items (provider extensions), calls the gate refuses and their outputs, outputs
    that answer no kept call, items an error finding names (``duplicate_member``…), provider-sealed reasoning
    (``encrypted_content``), ``item_reference`` and ``compaction`` items (they point into one provider's storage).

    :param report: the gate's answer on ``conversion`` (:func:`gate_conversion` with ``tools``).
    :param complete_statusless: first mark each status-less call whose output follows it ``completed``
        (:func:`webapp.core.gate.vouched_calls`; the explicit choice the page offers), then gate again: such a call
        is kept only if the gate then passes it (its arguments and schema still decide).
    """
    subset = Subset()
    items = conversion.items
    if complete_statusless:
        subset.completed = vouched_calls(items)
        if subset.completed:
            items = vouch(items, subset.completed)
            report = gate_conversion(
                Conversion(
                    conversion.source,
                    conversion.shape,
                    items,
                    conversion.origins,
                    conversion.tools,
                    conversion.tool_choice,
                    duplicates=conversion.duplicates,
                    settings=conversion.settings,
                ),
                tools,
            )
    kept_calls: set[str] = set()
    for verdict in report.items:
        item = items[verdict.index]
        why = _left_out(item, verdict, kept_calls)
        if why is not None:
            subset.left_out.append(LeftOut(verdict.index, conversion.where(verdict.index), *why))
            continue
        if verdict.type == "function_call":
            kept_calls.add(item["call_id"])
        subset.items.append(item)
    return subset


def _left_out(item: Any, verdict: Any, kept_calls: set[str]) -> tuple[str, str] | None:
    """``(code, why)`` when the item stays out of the replayable subset, else ``None``."""
    kind = verdict.type
    if verdict.refused_by:
        return "refused", f"an error finding names it ({', '.join(verdict.refused_by)})"
    if kind is None or is_namespaced(kind) or verdict.reason == "namespaced":
        return "namespaced", f"{json.dumps(kind)} is a provider extension (namespaced): never replayable elsewhere"
    if kind == "function_call":
        if not verdict.ok:
            return verdict.reason, f"the gate refuses this call ({verdict.reason}): {verdict.message}"
        return None
    if kind == "function_call_output":
        if item.get("call_id") not in kept_calls:
            return "unanswerable", (
                "its call is not in the subset (refused, unfinished or missing): an output "
                "without its call is refused by the next provider"
            )
        return None
    if kind == "reasoning" and (
        item.get("encrypted_content") is not None or any(provider_of(member) for member in item)
    ):  # ``"anthropic:signature"``, ``"gemini:thought_signature"``: the converters keep sealed state as members
        return "sealed", "reasoning with encrypted_content (or a provider's signature) is sealed by its provider"
    if kind in ("item_reference", "compaction"):
        return "provider_bound", f"a {kind} item points into one provider's storage"
    return None

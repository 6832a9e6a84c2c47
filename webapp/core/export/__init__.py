"""Open Responses items as the request body each target's API takes: one writer per target.

    >>> written = write(items, target="anthropic", tools=tools)
    >>> written.body, written.notes     # {"system", "messages", "tools"}; what could not be written, and where

Targets (the gate's ``TARGETS``, docs/targets.md): ``portable`` and ``openai`` →
``{"input": [...], "tools"?}`` (:mod:`.openai`), ``anthropic`` → ``{"system"?, "messages", "tools"?}``
(:mod:`.anthropic`), ``gemini`` → ``{"systemInstruction"?, "contents", "tools"?}`` (:mod:`.gemini`),
``chat_completions`` → ``{"messages", "tools"?}`` (:mod:`.chat_completions`). Each writer is the inverse of its
provider's converter (:mod:`webapp.core.convert`) and restores that provider's ``"<provider>:<member>"``
members; it decides no replay policy (the gate's target plan does), and notes what it cannot write.
"""

from __future__ import annotations

from typing import Any

from webapp.core.export import anthropic, chat_completions, gemini, openai
from webapp.core.export.base import EXPORT_NOTE_CODES, ExportNote, Written

__all__ = ["WRITERS", "EXPORT_NOTE_CODES", "ExportNote", "Written", "write"]

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

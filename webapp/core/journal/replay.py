"""A conversation of any provider through the gate: :func:`gate_conversion`.

What of it may go to a target — the items kept, left out and repaired — is the gate's one policy, its plan
(:func:`webapp.core.gate.targets.plan`, :attr:`webapp.core.gate.JournalReport.plan`); the Journal page's JSON Lines
download is that plan's kept items (:mod:`webapp.core.pages.journal`).
"""

from __future__ import annotations

from webapp.core.convert import Conversion, as_journal
from webapp.core.gate import DEFAULT_TARGET, JournalReport, check_journal

__all__ = ["gate_conversion"]


def gate_conversion(
    conversion: Conversion,
    tools: list[dict] | None,
    *,
    target: str = DEFAULT_TARGET,
    complete_statusless: bool = False,
) -> JournalReport:
    """The gate over a conversion for ``target`` (one of the gate's ``TARGETS``; its source is the conversion's):
    its items against ``tools`` (flat Open Responses function tools; ``None``: no tools known), with its
    ``tool_choice`` and the duplicate member names its Open Responses text had; ``complete_statusless``: as
    :func:`webapp.core.gate.check_journal` takes it (the user's explicit choice for status-less calls whose output
    follows them).

    :raises ValueError: ``target`` is not one of the gate's ``TARGETS``."""
    return check_journal(
        as_journal(conversion),
        tools,
        target=target,
        source=conversion.source,
        complete_statusless=complete_statusless,
    )

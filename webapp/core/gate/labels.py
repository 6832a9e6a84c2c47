"""What the gate's answers are called on the pages, and what each one means there: it passes or it refuses.

An item's *label* is its gate reason (:data:`webapp.core.gate.steps.REASONS`), or one of the words the gate adds:

``refused``      (:data:`REFUSED`) an item whose label lets it pass (:data:`~webapp.core.gate.steps.PASSING_REASONS`,
                 :data:`SCHEMA_NEXT`) but that an error finding stops whatever its value's verdict (a reused
                 ``call_id``, a member name given twice…);
``schema next``  (:data:`SCHEMA_NEXT`) a function_call judged without a schema that passes every step before the
                 schema's: only its tool's schema can still refuse it (the pages before step 2).

A journal's label is ``replayable`` or ``not replayable`` (:data:`REPLAYABLE`, :data:`NOT_REPLAYABLE`).

Pages show labels and never compare them: :func:`badge` gives a label's badge class and :func:`is_refusal` says
whether it stops the replay (the web layer hands both to the templates, once: ``webapp/web/__init__.py``).
"""

from __future__ import annotations

from types import MappingProxyType

from webapp.core.gate.steps import PASSING_REASONS, Verdict

__all__ = [
    "BADGES",
    "NOT_REPLAYABLE",
    "REFUSED",
    "REPLAYABLE",
    "SCHEMA_NEXT",
    "badge",
    "is_refusal",
    "item_label",
    "label_without_schema",
    "refusal_message",
]

#: The label of an item the gate lets pass that an error finding stops (:attr:`ItemVerdict.refused_by`).
REFUSED = "refused"
#: The label of a function_call that only its tool's schema can still refuse, judged before any schema is given
#: (without a schema the gate's reason is ``arguments_schema``, which would read as a failure on a page that has
#: not seen the schema yet).
SCHEMA_NEXT = "schema next"
#: The label of a journal the gate lets be replayed, and of one it does not.
REPLAYABLE, NOT_REPLAYABLE = "replayable", "not replayable"

#: The badge class of each label that is no refusal: ``ok`` (it may run, or be replayed), ``info`` (nothing to run,
#: or not decided yet). Every other label — a reason that refuses, :data:`REFUSED`, a finding's code,
#: :data:`NOT_REPLAYABLE` — is a refusal, badged ``bad``.
BADGES = MappingProxyType(
    {
        "ok": "ok",
        REPLAYABLE: "ok",
        **{reason: "info" for reason in PASSING_REASONS if reason != "ok"},  # not_function_call: nothing to run
        SCHEMA_NEXT: "info",
    }
)


def badge(label: str) -> str:
    """The badge class a page shows ``label`` with: ``"ok"``, ``"info"`` (:data:`BADGES`) or ``"bad"`` (a refusal)."""
    return BADGES.get(label, "bad")


def is_refusal(label: str) -> bool:
    """``label`` (a reason, a word of this module or a finding's code) stops the item, or the journal, from being
    replayed: it is none of :data:`BADGES`."""
    return label not in BADGES


def item_label(label: str, refused: bool) -> str:
    """An item's label: ``label`` (its reason, or :data:`SCHEMA_NEXT`), or :data:`REFUSED` when ``refused`` (an
    error finding names the item) and ``label`` alone would let it pass."""
    return REFUSED if refused and label in BADGES else label


def label_without_schema(verdict: Verdict) -> str:
    """The label of an item judged with no schema (``check_item(item, None)``): :data:`SCHEMA_NEXT` for a call that
    only its tool's schema can still refuse, else the gate's reason."""
    if verdict.reason == "arguments_schema" and verdict.schema_problem is None and not verdict.errors:
        return SCHEMA_NEXT
    return verdict.reason


def refusal_message(verdict: Verdict, refused_by: tuple[str, ...]) -> str:
    """What an item's line says: the gate's message, or, for an item the gate lets pass (``PASSING_REASONS``) but
    error findings stop (``refused_by``: their codes), that they stop it."""
    if not refused_by or verdict.reason not in PASSING_REASONS:
        return verdict.message
    codes = ", ".join(refused_by)
    if verdict.reason == "ok":
        return f"the gate passes its value, but {codes} stops this item (see the findings): it may not be executed"
    return f"nothing to execute, but {codes} stops this item (see the findings): it may not be replayed"

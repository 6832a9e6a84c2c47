"""What the gate's answers are called on the pages, and what each one means there: it passes or it refuses.

An item's *label* is its gate reason (:data:`webapp.core.gate.steps.REASONS`), or one of the words the gate adds:

``refused``      (:data:`REFUSED`) an item whose label lets it pass (:data:`~webapp.core.gate.steps.PASSING_REASONS`,
                 :data:`SCHEMA_NEXT`) but that an error finding stops whatever its value's verdict (a reused
                 ``call_id``, a member name given twice…);
``not checked``  (:data:`NOT_CHECKED`) a call that passes every step before the schema's, judged where no tool
                 definitions were given: only its tool's schema can still refuse it (the pages before step 2, and
                 any journal checked without tools);
``provider item`` (:data:`PROVIDER_ITEM`) a ``namespaced`` item the target takes back (an ``openai:`` item, or
                 OpenAI's native one, replayed to ``openai``): nothing to execute, and not refused.

A journal's label is one of three answers (:data:`ANSWERS`): ``replayable``, ``not replayable``, or ``cannot
tell`` (:data:`CANNOT_TELL`: nothing refuses it, but calls were not checked because no tool definitions were given).

Pages show labels and never compare them: :func:`badge` gives a label's badge class and :func:`is_refusal` says
whether it stops the replay (the web layer hands both to the templates, once: ``webapp/web/__init__.py``).
"""

from __future__ import annotations

from types import MappingProxyType

from webapp.core.gate.steps import PASSING_REASONS, Verdict

__all__ = [
    "ANSWERS",
    "BADGES",
    "CANNOT_TELL",
    "NOT_CHECKED",
    "NOT_REPLAYABLE",
    "PROVIDER_ITEM",
    "REFUSED",
    "REPAIRED",
    "REPLAYABLE",
    "badge",
    "is_refusal",
    "item_label",
    "label_without_schema",
    "refusal_message",
]

#: The label of an item the gate lets pass that an error finding stops (:attr:`ItemVerdict.refused_by`).
REFUSED = "refused"
#: The label of a call that only its tool's schema can still refuse, judged where no tool definitions were given
#: (its reason is ``arguments_schema``, the article's order kept, which would read as a failure of a schema that
#: does not exist).
NOT_CHECKED = "not checked"
#: The label of a ``namespaced`` item the target takes back as it came (its provider's own).
PROVIDER_ITEM = "provider item"
#: The label of an item an error finding names that the target's plan repairs, so that it is sent (Gemini's
#: placeholder signature on a call that never had one): refused as it is, sent as repaired.
REPAIRED = "repaired"
#: A journal's three answers: the gate lets it be replayed; it does not; nothing refuses it but calls were not
#: checked, because no tool definitions were given.
REPLAYABLE, NOT_REPLAYABLE, CANNOT_TELL = "replayable", "not replayable", "cannot tell"
ANSWERS = (REPLAYABLE, NOT_REPLAYABLE, CANNOT_TELL)

#: The badge class of each label that is no refusal: ``ok`` (it may run, or be replayed), ``info`` (nothing to run,
#: or not decided yet). Every other label — a reason that refuses, :data:`REFUSED`, a finding's code,
#: :data:`NOT_REPLAYABLE` — is a refusal, badged ``bad``.
BADGES = MappingProxyType(
    {
        "ok": "ok",
        REPLAYABLE: "ok",
        **{reason: "info" for reason in PASSING_REASONS if reason != "ok"},  # not_function_call: nothing to run
        NOT_CHECKED: "info",
        PROVIDER_ITEM: "info",
        REPAIRED: "warn",
        CANNOT_TELL: "warn",
    }
)


def badge(label: str) -> str:
    """The badge class a page shows ``label`` with: ``"ok"``, ``"info"``, ``"warn"`` (:data:`BADGES`) or ``"bad"``
    (a refusal)."""
    return BADGES.get(label, "bad")


def is_refusal(label: str) -> bool:
    """``label`` (a reason, a word of this module or a finding's code) stops the item, or the journal, from being
    replayed: it is none of :data:`BADGES`."""
    return label not in BADGES


def item_label(label: str, refused: bool) -> str:
    """An item's label: ``label`` (its reason, :data:`NOT_CHECKED` or :data:`PROVIDER_ITEM`), or :data:`REFUSED`
    when ``refused`` (an error finding names the item) and ``label`` alone would let it pass."""
    return REFUSED if refused and label in BADGES else label


def label_without_schema(verdict: Verdict) -> str:
    """The label of an item judged with no schema (``check_item(item, None)``): :data:`NOT_CHECKED` for a call that
    only its tool's schema can still refuse, else the gate's reason."""
    if verdict.reason == "arguments_schema" and verdict.schema_problem is None and not verdict.errors:
        return NOT_CHECKED
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

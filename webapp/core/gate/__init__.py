"""The replay gate: may a stored Open Responses item, or a whole conversation, be executed again — on another
provider, or another day? It owns the policy: every page, route and the CLI ask here and decide nothing themselves.

One idea per module:

``steps``    the rules as one ordered table (:data:`STEPS`; reasons :data:`REASONS`, those that pass
             :data:`PASSING_REASONS`), run by :func:`replay_gate` (the reason alone) and :func:`check_item`
             (:class:`Verdict`, with why);
``labels``   what the answers are called on a page and what each means there (:data:`REFUSED`,
             :data:`NOT_CHECKED`, the three answers :data:`ANSWERS`; :func:`badge`, :func:`is_refusal`);
``report``   a journal's answer as data: :class:`Finding` (codes: :data:`FINDINGS`), :class:`ItemVerdict`,
             :class:`JournalReport`;
``tools``    the tools calls are checked against (:func:`tool_schema`), the one reader of a schema field
             (:func:`read_schema_field`), ``tool_choice`` (:data:`TOOL_CHOICE_MODES`), :data:`FUNCTION_NAME`;
``pairing``  :func:`check_journal` and :class:`JournalChecker` (calls with their outputs, ``tool_choice``, names
             given twice), :func:`check_one` (one item as every page judges it), and vouching for status-less calls
             (:func:`vouched_calls`, :func:`vouch`);
``memo``     :class:`VerdictMemo`: call verdicts shared by the checks of one request;
``targets``  where a conversation is replayed: :data:`TARGETS` (titles :data:`TARGET_TITLES`), their rules as one
             table (:data:`TARGET_RULES`) and what each keeps and leaves out (:func:`plan` -> :class:`ReplayPlan`);
``target_checks``  those rules checked item by item (:class:`TargetChecks`), native OpenAI calls judged as calls;
``grammar``  a custom tool's ``format``: a ``custom_tool_call``'s input against its regex or Lark grammar;
``request``  the policy for a ``/v1/responses`` request's input (:func:`refuse_input`).

Everything public is re-exported here: ``from webapp.core.gate import check_journal``.
"""

from webapp.core.gate.labels import (
    ANSWERS,
    BADGES,
    CANNOT_TELL,
    NOT_CHECKED,
    NOT_REPLAYABLE,
    PROVIDER_ITEM,
    REFUSED,
    REPLAYABLE,
    badge,
    is_refusal,
    item_label,
    label_without_schema,
    refusal_message,
)
from webapp.core.gate.memo import VerdictMemo
from webapp.core.gate.pairing import (
    PAIRING_FINDINGS,
    REMEMBERED,
    JournalChecker,
    check_journal,
    check_one,
    the_item,
    vouch,
    vouched_calls,
)
from webapp.core.gate.report import (
    CHAT_COMPLETIONS_ENVELOPE,
    FINDINGS,
    Finding,
    ItemRef,
    ItemVerdict,
    ItemVerdicts,
    JournalReport,
    base_label,
)
from webapp.core.gate.request import InputRefusal, refuse_input
from webapp.core.gate.steps import (
    DEFAULT_MAX_DEPTH,
    PASSING_REASONS,
    REASONS,
    REFUSING_REASONS,
    STEPS,
    Step,
    Verdict,
    check_item,
    replay_gate,
)
from webapp.core.gate.targets import (
    DEFAULT_TARGET,
    DISPOSITIONS,
    LEAVE_OUT_NOTES,
    REPAIR_NOTES,
    TARGET_RULES,
    TARGET_TITLES,
    TARGETS,
    Repair,
    ReplayPlan,
    Rule,
    plan,
    target_error,
)
from webapp.core.gate.tools import (
    FUNCTION_NAME,
    FUNCTION_NAME_RULE,
    NO_PARAMETERS_SCHEMA,
    TOOL_CHOICE_MODES,
    SchemaField,
    parameters_of,
    read_schema_field,
    tool_schema,
)
from webapp.core.journal import Journal, JournalError, load_journal
from webapp.core.schema import SchemaError, ValidationError

__all__ = [
    "TARGETS",
    "TARGET_TITLES",
    "TARGET_RULES",
    "DEFAULT_TARGET",
    "DISPOSITIONS",
    "LEAVE_OUT_NOTES",
    "REPAIR_NOTES",
    "Repair",
    "ReplayPlan",
    "Rule",
    "plan",
    "target_error",
    "REASONS",
    "PASSING_REASONS",
    "REFUSING_REASONS",
    "STEPS",
    "Step",
    "replay_gate",
    "check_item",
    "check_one",
    "Verdict",
    "check_journal",
    "JournalChecker",
    "tool_schema",
    "parameters_of",
    "read_schema_field",
    "SchemaField",
    "NO_PARAMETERS_SCHEMA",
    "TOOL_CHOICE_MODES",
    "FUNCTION_NAME",
    "FUNCTION_NAME_RULE",
    "the_item",
    "PAIRING_FINDINGS",
    "refusal_message",
    "REFUSED",
    "ANSWERS",
    "CANNOT_TELL",
    "NOT_CHECKED",
    "PROVIDER_ITEM",
    "REPLAYABLE",
    "NOT_REPLAYABLE",
    "BADGES",
    "badge",
    "is_refusal",
    "base_label",
    "item_label",
    "label_without_schema",
    "vouched_calls",
    "vouch",
    "InputRefusal",
    "refuse_input",
    "JournalReport",
    "ItemVerdict",
    "ItemVerdicts",
    "Finding",
    "ItemRef",
    "CHAT_COMPLETIONS_ENVELOPE",
    "DEFAULT_MAX_DEPTH",
    "VerdictMemo",
    "REMEMBERED",
    "FINDINGS",
    "load_journal",
    "Journal",
    "JournalError",
    "SchemaError",
    "ValidationError",
]

"""Where a conversation is replayed: the targets, their rules as one table, and what each target keeps.

A verdict is always about one target (:data:`TARGETS`, each with a title for the pages in :data:`TARGET_TITLES`):
``portable`` (any other Open Responses server: the replay-gate article's rules, the default), ``openai`` (the
Responses API), ``anthropic`` (the Messages API), ``gemini`` (``generateContent``), ``chat_completions``. The
rules each target adds to the article's steps are :data:`TARGET_RULES` (finding code, severity, the targets it
applies to, its rule id in docs/targets.md and the provider page it comes from); the checks that make those
findings are :mod:`webapp.core.gate.target_checks`.

What each target keeps and leaves out (docs/targets.md, the table "What each target keeps and leaves out") is the
policy :func:`item_policy` (an item: kept, or left out with a note) and :func:`member_policy` (a member of a kept
item: another provider's ``<provider>:<field>`` members and sealed state, provider-issued ids), applied to a whole
list by :func:`plan`, the one policy of what goes to a target: ``kept`` is exactly what is sent (members stripped,
values repaired), ``left_out`` names each item or member left out (index, JSON Pointer, code), ``repairs`` each value
the plan changes so that the target takes it (:data:`REPAIR_NOTES`: call ids the target's grammar refuses, Google's
placeholder signature, a vouched call's status), ``notes`` say why, once per code, and
:attr:`ReplayPlan.patch` gives all of it as an RFC 6902 JSON Patch from the journal's items to ``kept``. Items a
finding refuses are left out too (``refused``), when :func:`plan` is told which they are.

Where the sealed state of an item comes from: a ``<provider>:<field>`` member says it itself (the converters write
Anthropic's ``signature`` as ``"anthropic:signature"``, Gemini's as ``"gemini:thought_signature"``); a reasoning
item's ``encrypted_content`` belongs to the journal's source (``openai`` for a native OpenAI journal, else the Open
Responses server that wrote it). Item ids belong to the source too (Open Responses spec, "Required item fields":
unique within the trajectory; docs/targets.md O6).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from webapp.core.items import (
    ANTHROPIC_CALL_ID,
    CORE_TYPES,
    OPENAI_CALL_OUTPUTS,
    OPENAI_ITEM_TYPES,
    RUNNABLE_STATUS,
    native_openai,
    provider_of,
)
from webapp.core.json import pointer as _pointer

__all__ = [
    "CALL_ID_GRAMMARS",
    "DEFAULT_TARGET",
    "DISPOSITIONS",
    "GEMINI_PLACEHOLDER_SIGNATURE",
    "LEAVE_OUT_NOTES",
    "REPAIRED_FINDINGS",
    "REPAIR_NOTES",
    "TARGETS",
    "TARGET_RULES",
    "TARGET_TITLES",
    "LeftOut",
    "Repair",
    "ReplayPlan",
    "Rule",
    "ids_kept",
    "issued_after_reasoning",
    "item_policy",
    "member_policy",
    "plan",
    "rule_for",
    "sealed_owner",
    "target_error",
]

#: Where a conversation may be replayed (``"target"`` of ``/api/gate``, ``--target`` of the CLI), with a title each.
TARGET_TITLES: dict[str, str] = {
    "portable": "Any Open Responses server (portable)",
    "openai": "OpenAI Responses API",
    "anthropic": "Anthropic Messages API",
    "gemini": "Gemini generateContent",
    "chat_completions": "Chat Completions",
}
TARGETS: tuple[str, ...] = tuple(TARGET_TITLES)
DEFAULT_TARGET = "portable"

#: What the plan does with one item: sent (``keep``), not sent with a note (``leave_out``), or not sent because a
#: finding (or the gate's own reason) stops it (``refused``).
DISPOSITIONS = ("keep", "leave_out", "refused")

_SPEC = "https://www.openresponses.org/specification"
_OPENAI_TYPES = "https://github.com/openai/openai-python/blob/main/src/openai/types/"
_OPENAI_INPUT = _OPENAI_TYPES + "responses/response_input_param.py"
_OPENAI_DOCS = "https://developers.openai.com/api/docs/"
_ANTHROPIC_TYPES = "https://github.com/anthropics/anthropic-sdk-python/blob/main/src/anthropic/types/"
_ANTHROPIC_TOOLS = "https://platform.claude.com/docs/en/agents-and-tools/tool-use/handle-tool-calls"
_GEMINI_TYPES = "https://github.com/googleapis/python-genai/blob/main/google/genai/types.py"


@dataclass(frozen=True)
class Rule:
    """One rule a target adds to the article's steps, as data.

    :ivar code: the finding it makes (its severity is :attr:`severity`; ``FINDINGS`` is built from this table).
    :ivar severity: ``"error"`` (not replayable to that target) or ``"warning"``.
    :ivar targets: the targets it applies to.
    :ivar rule_id: its id in docs/targets.md (``O1``, ``A2``…).
    :ivar source: the provider page (or, where docs/targets.md found none, the public thread) it comes from.
    :ivar sourced: ``False`` for a rule docs/targets.md lists under "Rules we could not source" (observed behaviour).
    """

    code: str
    severity: str
    targets: tuple[str, ...]
    rule_id: str
    source: str
    sourced: bool = True


_NOT_OPENAI = tuple(t for t in TARGETS if t != "openai")

#: The targets' rules, one row each (docs/targets.md gives every source in full). One finding code may have a row
#: per target where the targets' rules differ in id or source (``invalid_tool_name``: O15, A7, G8), never two rows
#: for one target; :func:`rule_for` finds the row of a code and a target.
TARGET_RULES: tuple[Rule, ...] = (
    Rule("duplicate_id", "error", TARGETS, "P3, O5", _SPEC),
    Rule("unknown_type", "error", TARGETS, "P1", _SPEC),
    Rule("provider_item", "error", _NOT_OPENAI, "P1, O9", _SPEC),
    Rule(
        "output_never_given",
        "error",
        ("openai",),
        "O7",
        "https://github.com/openai/openai-python/blob/main/src/openai/types/responses/response_input_param.py",
    ),
    Rule(
        "reasoning_without_following_item",
        "error",
        ("openai",),
        "O1",
        "https://cookbook.openai.com/examples/responses_api/reasoning_items",
        sourced=False,
    ),
    Rule(
        "reasoning_missing",
        "error",
        ("openai",),
        "O2",
        "https://github.com/mastra-ai/mastra/issues/8738",
        sourced=False,
    ),
    Rule(
        "reasoning_not_stored",
        "error",
        ("openai",),
        "O3",
        "https://github.com/openai/openai-python/blob/main/src/openai/types/responses/response_create_params.py",
    ),
    Rule("missing_id", "error", ("openai",), "O10", _OPENAI_INPUT),
    Rule(
        "thinking_signature_missing",
        "error",
        ("anthropic",),
        "A1",
        "https://platform.claude.com/docs/en/build-with-claude/thinking-tool-workflows",
    ),
    Rule(
        "thinking_required",
        "error",
        ("anthropic",),
        "A2",
        "https://github.com/n8n-io/n8n/issues/22550",
        sourced=False,
    ),
    Rule(
        "thinking_not_enabled",
        "error",
        ("anthropic",),
        "A2",
        "https://github.com/tailcallhq/forgecode/issues/1853",
        sourced=False,
    ),
    Rule(
        "thought_signature_missing",
        "error",
        ("gemini",),
        "G1",
        "https://ai.google.dev/gemini-api/docs/thought-signatures",
    ),
    Rule("reasoning_prefix_changed", "warning", ("openai",), "O4", _OPENAI_DOCS + "guides/preserved-reasoning"),
    Rule(
        "message_without_status",
        "warning",
        ("openai",),
        "O8",
        _OPENAI_TYPES + "responses/response_output_message_param.py",
    ),
    Rule(
        "invalid_tool_name",
        "error",
        ("openai", "chat_completions"),
        "O15, C4",
        _OPENAI_TYPES + "shared_params/function_definition.py",
    ),
    Rule("id_prefix", "error", ("openai",), "O16", "https://github.com/can1357/oh-my-pi/issues/977", sourced=False),
    Rule("id_too_long", "error", ("openai",), "O16", "https://github.com/can1357/oh-my-pi/issues/284", sourced=False),
    Rule("compaction_trigger_not_last", "error", ("openai",), "O17", _OPENAI_INPUT),
    Rule("not_input_item", "error", ("openai",), "O18", "https://github.com/openai/codex/issues/27423", sourced=False),
    Rule(
        "namespace_left_out",
        "warning",
        ("anthropic", "gemini", "chat_completions"),
        "O19",
        _OPENAI_TYPES + "responses/namespace_tool_param.py",
    ),
    Rule("output_not_adjacent", "error", ("anthropic",), "A4", _ANTHROPIC_TOOLS),
    Rule("results_reordered", "warning", ("anthropic",), "A6", _ANTHROPIC_TOOLS),
    Rule(
        "invalid_tool_name",
        "error",
        ("anthropic",),
        "A7",
        "https://docs.claude.com/en/docs/agents-and-tools/tool-use/implement-tool-use",
    ),
    Rule(
        "call_id_rewritten",
        "warning",
        ("anthropic",),
        "A7",
        "https://github.com/BlockRunAI/ClawRouter/issues/17",
        sourced=False,
    ),
    Rule("arguments_not_object", "error", ("anthropic", "gemini"), "A8", _ANTHROPIC_TYPES + "tool_use_block_param.py"),
    Rule("system_moved", "warning", ("anthropic",), "A13", _ANTHROPIC_TYPES + "message_create_params.py"),
    Rule("paired_by_position", "warning", ("gemini",), "G3", _GEMINI_TYPES, sourced=False),
    Rule(
        "output_not_adjacent",
        "error",
        ("gemini",),
        "G4",
        "https://github.com/google-gemini/gemini-cli/issues/11814",
        sourced=False,
    ),
    Rule(
        "call_turn_misplaced",
        "error",
        ("gemini",),
        "G4",
        "https://github.com/google-gemini/gemini-cli/issues/11814",
        sourced=False,
    ),
    Rule("system_moved", "warning", ("gemini",), "G5", _GEMINI_TYPES),
    Rule("invalid_tool_name", "error", ("gemini",), "G8", _GEMINI_TYPES),
    Rule(
        "output_not_adjacent",
        "error",
        ("chat_completions",),
        "C1",
        "https://github.com/RamiAwar/dataline/issues/172",
        sourced=False,
    ),
)
#: Each (code, target) -> its row: one code may have a row per target, each with that target's source (the same
#: severity in each: ``FINDINGS`` has one per code).
_RULES = {(rule.code, target): rule for rule in reversed(TARGET_RULES) for target in rule.targets}
_CODES = {rule.code: rule for rule in reversed(TARGET_RULES)}


def rule_for(code: str, target: str | None = None) -> Rule | None:
    """The :class:`Rule` that makes finding ``code`` for ``target`` (``None``: its first row; a code with no row for
    ``target`` gives ``None`` then), or ``None`` for a finding of the article's own checks."""
    if target is None:
        return _CODES.get(code)
    return _RULES.get((code, target))


def target_error(target: Any) -> str | None:
    """Why ``target`` is not a target (``None`` when it is one): the words a 400 or an exit 2 says."""
    if isinstance(target, str) and target in TARGET_TITLES:
        return None
    return f"unknown target {target!r}: one of {', '.join(TARGETS)}"


#: Each note code of a plan -> what it means, in words for the pages and the export's ``notes``.
LEAVE_OUT_NOTES: dict[str, str] = {
    "provider_item": "an item of one provider (a hosted or tool item, a namespaced type): it goes back to that "
    "provider only (docs/targets.md P1, O9, A10, G7)",
    "foreign_reasoning": "reasoning sealed by another provider: only the provider that made it can read it "
    "(docs/targets.md P2, A3, G2, C3)",
    "sealed_state": "sealed state (encrypted_content) of another provider, left out of an item that stays "
    "(docs/targets.md P2)",
    "provider_member": "a member another provider owns (<provider>:<field>, e.g. anthropic:cache_control): it means "
    "nothing to this target (docs/targets.md A11, A12, G2)",
    "provider_reference": "a reference into one provider's storage (item_reference, compaction): it goes back to "
    "that provider only",
    "provider_id": "an item id the target did not issue: an id means something only to the provider that issued "
    "it; call ids stay (docs/targets.md O6, C3)",
    "issued_with_reasoning": "the id of an item issued with a reasoning item that does not go: OpenAI refuses it "
    "without that reasoning item (docs/targets.md O2)",
    "refused": "a finding (or the gate's own reason) stops this item",
    "call_of_left_out_output": "a call whose output does not go: sent alone it is refused, or read as a call still to "
    "run (docs/targets.md O7, A4, G3, C1)",
    "output_of_left_out_call": "the output of a call that does not go: every target refuses an output whose call "
    "is not in the conversation (docs/targets.md O7, A5, G3, C1)",
    "reasoning_alone": "a reasoning item whose following item does not go: OpenAI refuses a reasoning item without "
    "the item it issued after it, so it is left out too (docs/targets.md O1)",
    "reasoning_without_id": "a reasoning item without the rs_ id OpenAI gave it: the Responses API's reasoning input "
    "requires that id (ResponseReasoningItemParam; docs/targets.md O1-O3)",
}

#: Each repair code of a plan -> what it means: a value the plan changes or adds so that the target takes the item
#: (docs/targets.md, "What the plan repairs").
REPAIR_NOTES: dict[str, str] = {
    "call_id_changed": "a call id with characters the target refuses, changed the same way on the call and its "
    "output (docs/targets.md A7)",
    "thought_signature_placeholder": "a call Gemini did not make has no thought signature: it is sent with the "
    "placeholder Google documents for such history (docs/targets.md G1)",
    "status_completed": "a status-less call whose output follows it, sent as completed by the user's explicit "
    'choice (complete_statusless; docs/responses-api.md, "Status-less replays")',
}

#: The error findings the plan repairs (:data:`REPAIR_NOTES`): the item they name is kept, repaired, not refused.
REPAIRED_FINDINGS = frozenset({"thought_signature_missing"})


@dataclass(frozen=True)
class LeftOut:
    """One thing a plan leaves out: a whole item (``pointer`` ``/3``) or a member of a kept item (``/3/id``).

    :ivar index: the item's position in the journal.
    :ivar pointer: RFC 6901 pointer of what is left out, in the list of items.
    :ivar code: one of :data:`LEAVE_OUT_NOTES` (its words there).
    :ivar words: one sentence about this one.
    """

    index: int
    pointer: str
    code: str
    words: str

    def as_dict(self) -> dict[str, Any]:
        """JSON-ready: ``{"index", "pointer", "code", "words"}``."""
        return {"index": self.index, "pointer": self.pointer, "code": self.code, "words": self.words}


@dataclass(frozen=True)
class Repair:
    """One value a plan changes or adds in a kept item so that the target takes it.

    :ivar index: the item's position in the journal.
    :ivar pointer: RFC 6901 pointer of the member, in the list of items (``/3/call_id``).
    :ivar code: one of :data:`REPAIR_NOTES` (its words there).
    :ivar words: one sentence about this one.
    :ivar op: ``"replace"`` (the member was there) or ``"add"`` (it was not): its RFC 6902 operation.
    :ivar value: the value sent.
    """

    index: int
    pointer: str
    code: str
    words: str
    op: str
    value: Any

    def as_dict(self) -> dict[str, Any]:
        """JSON-ready: ``{"index", "pointer", "code", "words", "op", "value"}``."""
        return {
            "index": self.index,
            "pointer": self.pointer,
            "code": self.code,
            "words": self.words,
            "op": self.op,
            "value": self.value,
        }


@dataclass
class ReplayPlan:
    """What goes to one target, what does not, and what is repaired so that it may.

    :ivar target: one of :data:`TARGETS`; ``source``: where the items came from (``openai``, ``open_responses``…).
    :ivar kept: the items as they go (copies where members are left out or values repaired), in order: what the
        export writes and the Journal page's JSON Lines hold.
    :ivar kept_indexes: each kept item's position in the journal.
    :ivar dispositions: one of :data:`DISPOSITIONS` per journal item.
    :ivar left_out: each item and member left out (:class:`LeftOut`), in journal order.
    :ivar repairs: each value changed or added in a kept item (:class:`Repair`), in journal order.
    :ivar notes: each note code used (left out, :data:`LEAVE_OUT_NOTES`, or repaired, :data:`REPAIR_NOTES`) -> its
        words, in order of first use.
    """

    target: str
    source: str
    kept: list[Any] = field(default_factory=list)
    kept_indexes: list[int] = field(default_factory=list)
    dispositions: list[str] = field(default_factory=list)
    left_out: list[LeftOut] = field(default_factory=list)
    repairs: list[Repair] = field(default_factory=list)
    notes: dict[str, str] = field(default_factory=dict)

    @property
    def patch(self) -> list[dict[str, Any]]:
        """What the plan changes, as an RFC 6902 JSON Patch from the journal's items (a JSON array) to :attr:`kept`:
        ``remove`` for each member left out of a kept item, ``replace`` or ``add`` for each repair, then ``remove``
        for each item left out, from the last (so each path still names the item it did). A user applies it to
        their own store to make the same repair (https://www.rfc-editor.org/rfc/rfc6902)."""
        kept = set(self.kept_indexes)
        ops: list[dict[str, Any]] = []
        for entry in self.left_out:
            if entry.index in kept:
                ops.append({"op": "remove", "path": entry.pointer})
        for repair in self.repairs:
            ops.append({"op": repair.op, "path": repair.pointer, "value": repair.value})
        gone = sorted({entry.index for entry in self.left_out if entry.index not in kept}, reverse=True)
        ops += [{"op": "remove", "path": f"/{index}"} for index in gone]
        return ops

    def as_dict(self) -> dict[str, Any]:
        """JSON-ready: ``{"target", "source", "kept", "dispositions", "left_out", "repairs", "notes", "patch"}``."""
        return {
            "target": self.target,
            "source": self.source,
            "kept": self.kept,
            "dispositions": self.dispositions,
            "left_out": [entry.as_dict() for entry in self.left_out],
            "repairs": [repair.as_dict() for repair in self.repairs],
            "notes": dict(self.notes),
            "patch": self.patch,
        }

    def _out(self, index: int, where: str, code: str, words: str) -> None:
        self.left_out.append(LeftOut(index, where, code, words))
        self.notes.setdefault(code, LEAVE_OUT_NOTES[code])


def sealed_owner(item: Any, source: str) -> str | None:
    """Who sealed the state an item carries, or ``None`` when it carries none: the provider of a
    ``<provider>:<field>`` member that holds a signature or redacted thinking, else, for a ``reasoning`` or
    ``compaction`` item with ``encrypted_content`` (or an OpenAI ``rs_`` id), the journal's ``source``."""
    if not isinstance(item, dict):
        return None
    for name in item:
        if ":" in name:  # a member name is a string; the cheap test first (this runs for every item)
            owner, _, field_name = name.partition(":")
            if field_name in _SEALED_MEMBERS:
                return owner
    if item.get("type") in ("reasoning", "compaction"):
        item_id = item.get("id")
        if isinstance(item.get("encrypted_content"), str) or (isinstance(item_id, str) and item_id.startswith("rs_")):
            return source
    return None


#: The provider members that are sealed state (docs/targets.md, "Sealed state"): the converters' names for
#: Anthropic's ``signature`` and ``redacted_thinking`` data and Gemini's ``thoughtSignature``.
_SEALED_MEMBERS = frozenset({"signature", "redacted_thinking", "thought_signature"})


def _provider_of_source(source: str) -> str:
    """The target a source's own state goes back to: ``open_responses`` (another server) is ``portable``."""
    return "portable" if source in ("open_responses", "auto", "") else source


def ids_kept(target: str, source: str) -> bool:
    """Whether items keep their ``id`` for ``target``: only where the target is the provider that issued them
    (docs/targets.md O6; an Open Responses server's ids stay for ``portable``, as today). Call ids always stay."""
    return _provider_of_source(source) == target and target in ("openai", "portable")


def item_policy(item: Any, target: str, source: str) -> tuple[str, str] | None:
    """Whether ``target`` takes ``item`` at all (docs/targets.md, "What each target keeps and leaves out").

    :return: ``None`` (kept, members aside: :func:`member_policy`), or ``(code, words)``: left out, the code one
        of :data:`LEAVE_OUT_NOTES`. Items that are not objects or have no string type are the gate's business (it
        refuses them), not the policy's: ``None``.
    """
    if not isinstance(item, dict):
        return None
    item_type = item.get("type")
    if not isinstance(item_type, str) or item_type in _PORTABLE_CORE:
        return None  # every target takes the portable core (members aside); the gate judges the rest
    own = _provider_of_source(source)
    owner = provider_of(item_type)
    if owner is not None:
        if owner == target:
            return None
        what = f"OpenAI's native {item_type}" if ":" not in item_type else f"{item_type}, an item of {owner}"
        return "provider_item", f"{what}: it goes back to {owner} only"
    if item_type == "reasoning":
        sealed = sealed_owner(item, source)
        if target == "chat_completions":
            return "foreign_reasoning", "Chat Completions has no field for reasoning (docs/targets.md C3)"
        if sealed is not None and _provider_of_source(sealed) == target:
            if target == "openai" and not isinstance(item.get("id"), str):
                return "reasoning_without_id", "a reasoning item without its rs_ id: OpenAI takes back only its own"
            return None
        if target == "portable" and _has_summary(item):
            return None  # its summary travels; the sealed part is left out as a member (P2)
        if sealed is None and target == "portable":
            return None
        by = "another provider" if sealed is None else _provider_of_source(sealed)
        return "foreign_reasoning", f"reasoning made by {by}: {target} cannot use it"
    if item_type in ("item_reference", "compaction"):
        if own == target:
            return None
        return "provider_reference", f"a {item_type} points into the storage of the provider that made it"
    return None


_PORTABLE_CORE = frozenset(CORE_TYPES)


def _has_summary(item: dict) -> bool:
    summary = item.get("summary")
    return isinstance(summary, list) and any(
        isinstance(part, dict) and isinstance(part.get("text"), str) and part["text"] for part in summary
    )


def member_policy(item: dict, target: str, source: str) -> list[tuple[str, str, str]]:
    """The members of a kept ``item`` that ``target`` does not take: ``(name, code, words)`` each, in the item's
    order — another provider's ``<provider>:<field>`` members, sealed ``encrypted_content`` that is not the
    target's (P2), and the ``id`` where :func:`ids_kept` says no (O6, C3) unless the item is the target's own type
    (an ``openai:`` item for ``openai``: the target issued that id, O10). The members of its content parts are
    :func:`plan`'s too (``_part_members``)."""
    out: list[tuple[str, str, str]] = []
    keep_ids = ids_kept(target, source)
    own_item = provider_of(item.get("type")) == target  # its id was issued by the target (O6, O10)
    for name in item:
        if ":" in name:
            owner = name.partition(":")[0]
            if owner != target:
                out.append((name, "provider_member", f"{name} belongs to {owner}"))
        elif name == "encrypted_content":
            sealed = sealed_owner(item, source)
            if sealed is not None and _provider_of_source(sealed) != target:
                out.append((name, "sealed_state", f"encrypted_content sealed by {_provider_of_source(sealed)}"))
        elif name == "id" and not keep_ids and isinstance(item.get("id"), str) and not own_item:
            out.append((name, "provider_id", f"id {item['id']!r} was not issued by {target}"))
    return out


def issued_after_reasoning(item: Any) -> bool:
    """Whether ``item`` is model output that a reasoning item just before it was issued with: a call, an assistant
    message, or a native OpenAI call or hosted item (docs/targets.md O1, O2)."""
    if not isinstance(item, dict):
        return False
    item_type = item.get("type")
    if item_type == "function_call":
        return True
    if item_type == "message":
        return item.get("role") == "assistant"
    return OPENAI_ITEM_TYPES.get(item_type) in ("call", "hosted") if isinstance(item_type, str) else False


def plan(
    items: Sequence[Any],
    *,
    target: str = DEFAULT_TARGET,
    source: str | None = None,
    refused: Iterable[int] | Mapping[int, Any] = (),
    vouched: Iterable[int] = (),
) -> ReplayPlan:
    """The policy applied to a conversation: what goes to ``target``, what is left out and what is repaired, with
    why — the one answer of what is sent (the export writes :attr:`ReplayPlan.kept`, the Journal page's JSON Lines
    are those items).

    Left out: what :func:`item_policy` and :func:`member_policy` (on the item and on its content parts) leave out,
    the ``refused`` items, the outputs of calls that do not go, and for ``openai`` a reasoning item whose following
    item does not go (O1: OpenAI refuses it alone). Repaired (:data:`REPAIR_NOTES`, each a :class:`Repair`): call
    ids the target's grammar refuses (:data:`CALL_ID_GRAMMARS`, the call and its output alike), Google's placeholder
    signature on the calls of the current turn that never had one (:data:`GEMINI_PLACEHOLDER_SIGNATURE`, G1), and
    the ``vouched`` status-less calls marked ``completed``.

    :param items: the journal's items, in order (not changed).
    :param target: one of :data:`TARGETS`. :raises ValueError: for another value (:func:`target_error`'s words).
    :param source: where they came from (a ``SOURCES`` value of :mod:`webapp.core.convert`); ``None``: read from
        the items (:func:`webapp.core.items.native_openai`: ``openai`` or ``open_responses``).
    :param refused: the indexes of items a finding or the gate's own reason stops (a :class:`JournalReport`'s
        refusals): left out as ``refused``, and the ids of the items issued with a refused reasoning item too (O2).
    :param vouched: the indexes of status-less calls the user chose to send as ``completed``
        (:func:`webapp.core.gate.pairing.vouched_calls`, the ``complete_statusless`` choice).
    :return: a :class:`ReplayPlan`; applying its :attr:`~ReplayPlan.patch` to ``items`` gives its ``kept``.
    """
    problem = target_error(target)
    if problem is not None:
        raise ValueError(problem)
    if source is None:
        source = "openai" if native_openai(items) else "open_responses"
    stopped = set(refused)
    marked = set(vouched)
    renamed = _renamed_call_ids(items, target)
    states: list[_State] = []
    reasoning_gone: str | None = None  # the id of the last reasoning item left out, while its output follows
    calls_gone: set[str] = set()  # call_ids of calls left out or refused: their outputs go neither
    # call_ids whose every output is left out or refused: the call goes neither (a call without its answer)
    answers_gone = _answers_gone(items, target, source, stopped)
    if target == "openai":  # O7: a call answered nowhere before a later user turn is refused; the last turn's waits
        answers_gone |= _never_answered(items)
    for index, item in enumerate(items):
        policy = item_policy(item, target, source)
        answered = _answered_call_id(item)
        if policy is None and index not in stopped and answered is not None and answered in calls_gone:
            policy = ("output_of_left_out_call", f"answers call_id {answered!r}, whose call does not go")
        asked = _call_id_of_call(item)
        if policy is None and index not in stopped and asked is not None and asked in answers_gone:
            policy = ("call_of_left_out_output", f"call_id {asked!r}: its output does not go")
        if policy is not None:
            state = _State(index, item, "leave_out", out=(policy[0], policy[1]))
        elif index in stopped:
            state = _State(index, item, "refused", out=("refused", "a finding (or the gate's reason) stops this item"))
        else:
            state = _State(index, item, "keep")
            if isinstance(item, dict):
                drop = member_policy(item, target, source)
                if reasoning_gone is not None and "id" in item and not any(d[0] == "id" for d in drop):
                    drop.append(("id", "issued_with_reasoning", f"issued with {reasoning_gone}, which does not go"))
                state.members = [(f"/{index}/{_pointer.escape(name)}", code, words) for name, code, words in drop]
                state.members += _part_members(item, index, target)
                state.repairs = _repairs(item, index, renamed, index in marked)
        states.append(state)
        call_id = _call_id_of_call(item)
        if call_id is not None and state.disposition != "keep":
            calls_gone.add(call_id)
        if isinstance(item, dict) and item.get("type") == "reasoning":
            item_id = item.get("id")
            gone = state.disposition != "keep"
            reasoning_gone = (item_id if isinstance(item_id, str) else "a reasoning item") if gone else None
        elif not issued_after_reasoning(item):
            reasoning_gone = None
    if target == "openai":
        _reasoning_alone(states)
    if target == "gemini":
        _placeholder_signatures(states)
    return _assemble(target, source, states)


def _answers_gone(items: Sequence[Any], target: str, source: str, stopped: set[int]) -> set[str]:
    """The call_ids answered only by outputs that do not go (refused, or left out by :func:`item_policy`)."""
    kept: set[str] = set()
    gone: set[str] = set()
    for index, item in enumerate(items):
        answered = _answered_call_id(item)
        if answered is None:
            continue
        if index in stopped or item_policy(item, target, source) is not None:
            gone.add(answered)
        else:
            kept.add(answered)
    return gone - kept


def _never_answered(items: Sequence[Any]) -> set[str]:
    """The call_ids of function_calls no output answers anywhere, with a user message after them (OpenAI refuses
    them: docs/targets.md O7); the calls of the last turn are waiting for their outputs, not refused."""
    answered = {_answered_call_id(item) for item in items} - {None}
    last_user = max(
        (i for i, item in enumerate(items) if isinstance(item, dict) and item.get("role") == "user"), default=-1
    )
    return {
        item["call_id"]
        for item in items[:last_user]
        if isinstance(item, dict)
        and item.get("type") == "function_call"
        and isinstance(item.get("call_id"), str)
        and item["call_id"] not in answered
    }


#: Each target's grammar for a call id, where it has one: Anthropic's ``tool_use.id`` (docs/targets.md A7; known
#: from Anthropic's error text, ``String should match pattern '^[a-zA-Z0-9_-]+$'``). Other targets take any string.
CALL_ID_GRAMMARS: dict[str, re.Pattern[str]] = {"anthropic": ANTHROPIC_CALL_ID}

#: The signature Google documents for a function call Gemini did not make ("transferring a trace from a different
#: model", history built by the client): the thought-signatures page's FAQ,
#: https://ai.google.dev/gemini-api/docs/thought-signatures#faqs ("You can set the following dummy signatures of
#: either "context_engineering_is_the_way_to_go" or "skip_thought_signature_validator""); this one is also the
#: value Vertex AI documents (docs/targets.md G1, "What the plan repairs").
GEMINI_PLACEHOLDER_SIGNATURE = "skip_thought_signature_validator"

_SIGNATURE = "gemini:thought_signature"
#: Where an item holds content parts whose ``<provider>:<field>`` members a target may not take.
_PART_LISTS = ("content", "output", "summary")


@dataclass
class _State:
    """One journal item while :func:`plan` decides: its disposition, why it is left out, and, when it stays, the
    members left out of it and its repairs."""

    index: int
    item: Any
    disposition: str
    out: tuple[str, str] | None = None
    members: list[tuple[str, str, str]] = field(default_factory=list)  # (pointer, code, words)
    repairs: list[Repair] = field(default_factory=list)


def _renamed_call_ids(items: Sequence[Any], target: str) -> dict[str, str]:
    """Each call id ``target``'s grammar (:data:`CALL_ID_GRAMMARS`) refuses -> the id sent instead: its other
    characters as ``_``, made unique among the journal's call ids; a call and its output get the same one."""
    grammar = CALL_ID_GRAMMARS.get(target)
    if grammar is None:
        return {}
    taken = {item.get("call_id") for item in items if isinstance(item, dict)}
    renamed: dict[str, str] = {}
    for item in items:
        call_id = item.get("call_id") if isinstance(item, dict) else None
        if not isinstance(call_id, str) or grammar.fullmatch(call_id) or call_id in renamed:
            continue
        new = re.sub(r"[^a-zA-Z0-9_-]", "_", call_id) or "call"
        while new in taken:
            new += "_"
        taken.add(new)
        renamed[call_id] = new
    return renamed


def _repairs(item: dict, index: int, renamed: Mapping[str, str], vouched: bool) -> list[Repair]:
    """The repairs of a kept item: its call id renamed (:func:`_renamed_call_ids`), its status completed when it
    is a vouched call."""
    repairs = []
    if vouched and item.get("type") == "function_call" and item.get("status") is None:
        op = "replace" if "status" in item else "add"
        words = "a status-less call whose output follows it: sent as completed, as chosen (complete_statusless)"
        repairs.append(Repair(index, f"/{index}/status", "status_completed", words, op, RUNNABLE_STATUS))
    call_id = item.get("call_id")
    if isinstance(call_id, str) and call_id in renamed and (_call_id_of_call(item) or _answered_call_id(item)):
        new = renamed[call_id]
        words = f"call id {call_id!r} has characters the target refuses: sent as {new!r}, on its call and output alike"
        repairs.append(Repair(index, f"/{index}/call_id", "call_id_changed", words, "replace", new))
    return repairs


def _part_members(item: dict, index: int, target: str) -> list[tuple[str, str, str]]:
    """The ``<provider>:<field>`` members of a kept item's content parts (``content``, ``output``, ``summary``) that
    belong to another provider than ``target``: ``(pointer, code, words)`` each (a Gemini text part's
    ``thoughtSignature`` travels so, as ``"gemini:thought_signature"``)."""
    out = []
    for key in _PART_LISTS:
        parts = item.get(key)
        if not isinstance(parts, list):
            continue
        for j, part in enumerate(parts):
            if not isinstance(part, dict):
                continue
            for name in part:
                owner = name.partition(":")[0] if ":" in name else None
                if owner is not None and owner != target:
                    where = f"/{index}/{key}/{j}/{_pointer.escape(name)}"
                    out.append((where, "provider_member", f"{name} of a content part belongs to {owner}"))
    return out


def _reasoning_alone(states: list[_State]) -> None:
    """OpenAI (docs/targets.md O1): a kept reasoning item must be followed, among what is sent, by the item OpenAI
    issued after it; one whose following item does not go is left out too (``reasoning_alone``)."""
    kept = [state for state in states if state.disposition == "keep"]
    for position, state in enumerate(kept):
        if not (isinstance(state.item, dict) and state.item.get("type") == "reasoning"):
            continue
        following = kept[position + 1].item if position + 1 < len(kept) else None
        if following is None or not issued_after_reasoning(following):
            item_id = state.item.get("id")
            name = repr(item_id) if isinstance(item_id, str) else "this reasoning item"
            state.disposition, state.members, state.repairs = "leave_out", [], []
            state.out = ("reasoning_alone", f"the item issued after {name} does not go: OpenAI refuses it alone")


def _placeholder_signatures(states: list[_State]) -> None:
    """Gemini (docs/targets.md G1): the first call of each step of the current turn (after the last user message
    sent) that has no ``"gemini:thought_signature"`` gets :data:`GEMINI_PLACEHOLDER_SIGNATURE`, as Google documents
    for calls Gemini did not make."""
    kept = [state for state in states if state.disposition == "keep"]
    turn = 0
    for position, state in enumerate(kept):
        item = state.item
        if isinstance(item, dict) and item.get("type") == "message" and item.get("role") == "user":
            turn = position + 1
    step_open = True
    for state in kept[turn:]:
        item = state.item
        if not isinstance(item, dict):
            continue
        if _string(item.get("type")) in _OUTPUT_TYPES:
            step_open = True
        elif item.get("type") == "function_call":
            if step_open and _SIGNATURE not in item:
                words = "a call Gemini did not make (it never had a thought signature): sent with Google's placeholder"
                pointer = f"/{state.index}/{_pointer.escape(_SIGNATURE)}"
                placeholder = GEMINI_PLACEHOLDER_SIGNATURE
                state.repairs.append(
                    Repair(state.index, pointer, "thought_signature_placeholder", words, "add", placeholder)
                )
            step_open = False


def _assemble(target: str, source: str, states: list[_State]) -> ReplayPlan:
    """The :class:`ReplayPlan` of the decided items: the kept items as sent (members left out, repairs made)."""
    result = ReplayPlan(target, source)
    for state in states:
        result.dispositions.append(state.disposition)
        if state.disposition != "keep":
            assert state.out is not None  # an item that does not go says why
            result._out(state.index, f"/{state.index}", *state.out)
            continue
        for where, code, words in state.members:
            result._out(state.index, where, code, words)
        for repair in state.repairs:
            result.repairs.append(repair)
            result.notes.setdefault(repair.code, REPAIR_NOTES[repair.code])
        result.kept.append(_as_sent(state))
        result.kept_indexes.append(state.index)
    return result


def _as_sent(state: _State) -> Any:
    """A kept item as it goes: a copy without the members left out and with its repairs, or the item itself when
    neither changes it."""
    item = state.item
    if not state.members and not state.repairs:
        return item
    sent = dict(item)
    prefix = f"/{state.index}"
    for where, _, _ in state.members:
        tokens = _pointer.split(where[len(prefix) :])
        if len(tokens) == 1:
            sent.pop(tokens[0], None)
        else:  # a member of a content part: that list and that part copied
            key, j, name = tokens[0], int(tokens[1]), tokens[2]
            parts = sent[key] = list(sent[key])
            parts[j] = {k: v for k, v in parts[j].items() if k != name}
    for repair in state.repairs:
        sent[_pointer.split(repair.pointer[len(prefix) :])[0]] = repair.value
    return sent


_CALL_TYPES = frozenset({"function_call", *OPENAI_CALL_OUTPUTS})
_OUTPUT_TYPES = frozenset({"function_call_output", *OPENAI_CALL_OUTPUTS.values()})


def _call_id_of_call(item: Any) -> str | None:
    """The ``call_id`` of a call a client answers (``function_call`` or a native call type), else ``None``."""
    if isinstance(item, dict) and _string(item.get("type")) in _CALL_TYPES and isinstance(item.get("call_id"), str):
        return item["call_id"]
    return None


def _answered_call_id(item: Any) -> str | None:
    """The ``call_id`` an output answers (``function_call_output`` or a native output type), else ``None``."""
    if isinstance(item, dict) and _string(item.get("type")) in _OUTPUT_TYPES and isinstance(item.get("call_id"), str):
        return item["call_id"]
    return None


def _string(value: Any) -> str | None:
    """``value`` when it is a string, else ``None``: a list or object as an item's type is unhashable."""
    return value if isinstance(value, str) else None

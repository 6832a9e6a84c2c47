"""The gate's answer about a journal, as data: its findings (:class:`Finding`, codes in :data:`FINDINGS`), one
line per item (:class:`ItemVerdict`) and the whole (:class:`JournalReport`).

The checks that make them are :mod:`webapp.core.gate.pairing` (a journal) and :mod:`webapp.core.gate.steps` (one
item); what their labels mean on a page is :mod:`webapp.core.gate.labels`.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any

from webapp.core.gate.labels import (
    CANNOT_TELL,
    NOT_CHECKED,
    NOT_REPLAYABLE,
    PROVIDER_ITEM,
    REFUSED,
    REPAIRED,
    REPLAYABLE,
    is_refusal,
    item_label,
    refusal_message,
)
from webapp.core.gate.steps import Verdict
from webapp.core.gate.targets import DEFAULT_TARGET, REPAIRED_FINDINGS, TARGET_RULES, ReplayPlan
from webapp.core.items import provider_of
from webapp.core.json import quote as _q
from webapp.core.schema import ValidationError

__all__ = [
    "CHAT_COMPLETIONS_ENVELOPE",
    "FINDINGS",
    "SEVERITIES",
    "UNCHECKABLE_TYPES",
    "NO_MEMBERS",
    "Finding",
    "ItemRef",
    "ItemVerdict",
    "ItemVerdicts",
    "JournalReport",
    "item_line",
    "answer_line",
    "answer_of",
    "base_label",
    "reason_blocks",
    "refused_by_index",
    "tally",
    "unchecked",
    "unchecked_words",
]

#: The finding of a Chat Completions envelope in a journal: also the ``/v1`` error code for that mistake on input
#: (``webapp.core.responses.fields``), so a client meets one name for it.
CHAT_COMPLETIONS_ENVELOPE = "chat_completions_envelope"

#: What a finding's severity means: ``error`` (the target refuses it: the journal is not replayable), ``action``
#: (what must be done before sending: the output of the last call appended), ``notice`` (something was not
#: checked: the journal's answer is ``cannot tell``), ``warning`` (worth knowing; the target takes it).
SEVERITIES = ("error", "action", "notice", "warning")

#: Every finding code of a journal's check -> its severity (one of :data:`SEVERITIES`).
FINDINGS: dict[str, str] = {
    "unknown_tool": "error",  # a function_call names no tool in the tools given
    "orphan_output": "error",  # function_call_output whose call_id matches no earlier function_call
    "output_for_unfinished_call": "error",  # ... whose function_call is not completed
    "duplicate_call_id": "error",  # two function_calls share a call_id
    "duplicate_output": "error",  # two function_call_outputs answer one call
    "missing_call_id": "error",  # a function_call or function_call_output without a call_id string
    "missing_name": "error",  # a function_call without a name string: which tool would run?
    "missing_output": "warning",  # a completed call with no output before the next user message
    "output_required": "action",  # the last turn's call has no output yet: append it before sending (openai)
    "not_checked": "notice",  # calls not checked against a schema: no tool definitions were given
    "empty_journal": "error",  # no items: nothing to replay
    CHAT_COMPLETIONS_ENVELOPE: "error",  # Chat Completions `tool_calls` / role "tool" mixed into the journal
    "chat_completions_tool": "warning",  # a tool in the nested Chat Completions shape (recognised, still used)
    "tool_not_allowed": "error",  # a call outside tool_choice (allowed_tools, a forced function, none)
    "invalid_tool_choice": "error",  # a tool_choice the gate cannot read: no call may pass unchecked
    "duplicate_member": "error",  # a member name given twice in the journal's text: ambiguous
    "invalid_tool": "error",  # a tool definition without a usable name, or a duplicate name
    "tool_schema_invalid": "error",  # a tool's parameters schema is itself unusable
    "partial_journal": "warning",  # one page of a longer list (has_more: true): the rest is not checked
    # The targets' rules (duplicate_id, provider_item, unknown_type, O1…G1): their severities are their table's.
    **{rule.code: rule.severity for rule in TARGET_RULES},
}


#: The item types whose calls a tool definition checks (a function tool's schema, a custom tool's grammar): judged
#: where no tool definitions were given, such a call is :data:`~webapp.core.gate.labels.NOT_CHECKED`.
UNCHECKABLE_TYPES = frozenset({"function_call", "custom_tool_call"})


def unchecked_words(unchecked: Mapping[str, int]) -> str:
    """``'3 calls of tools "a", "b"'``: what was not checked, from tool name -> calls not checked."""
    calls = sum(unchecked.values())
    names = ", ".join(_q(name) for name in list(unchecked)[:5]) + (", …" if len(unchecked) > 5 else "")
    return f"{calls:,} call{'s' if calls != 1 else ''} of tool{'s' if len(unchecked) != 1 else ''} {names}"


#: What a journal entry that is not an object has: no members (``NO_MEMBERS.get`` stands in for ``item.get``).
NO_MEMBERS: Mapping[str, Any] = MappingProxyType({})


@dataclass(frozen=True)
class ItemRef:
    """An item a finding's message names, as data: ``index`` is its position in the journal; ``noun`` is how the
    default message calls it (``item``, ``function_call``, ``function_call_output``), shown as ``"function_call 2"``.
    """

    index: int
    noun: str = "item"

    def __str__(self) -> str:
        return f"{self.noun} {self.index}"


@dataclass(frozen=True)
class Finding:
    """A journal-level problem, as data.

    :ivar code: one of :data:`FINDINGS` (its value is :attr:`severity`).
    :ivar index: the position of the item it is about, or ``None`` for a tool definition, ``tool_choice`` or the
        journal's envelope.
    :ivar call_id: the ``call_id`` involved, when there is one.
    :ivar message: one sentence for people, naming items by their journal positions (``function_call 2``).
    :ivar severity: one of :data:`SEVERITIES`: ``"error"`` (the journal is not replayable), ``"action"``,
        ``"notice"`` or ``"warning"``.
    :ivar pointer: RFC 6901 pointer of the problem in the journal's text, when it is a problem of the text itself
        (``duplicate_member``), else ``None``; ``line`` and ``column`` (1-based) place it there.
    :ivar parts: :attr:`message` as text pieces and :class:`ItemRef` s, so that a reader showing another numbering
        (the responses API counts a request's input apart from earlier responses) renders it with
        :meth:`describe` instead of rewriting the words.
    """

    code: str
    index: int | None
    call_id: str | None
    message: str
    severity: str  # one of SEVERITIES
    pointer: str | None = None
    line: int | None = None
    column: int | None = None
    parts: tuple[str | ItemRef, ...] = field(default=(), compare=False, repr=False)

    @property
    def mentions(self) -> tuple[int, ...]:
        """The indexes of the items :attr:`message` names, in the order it names them."""
        return tuple(part.index for part in self.parts if isinstance(part, ItemRef))

    def describe(self, name: Callable[[ItemRef], str] = str) -> str:
        """:attr:`message` with each item it names rendered by ``name`` (default: ``"function_call 2"``).

        :param name: ``ItemRef -> str``, e.g. ``lambda ref: f"input[{ref.index - 3}]"``.
        """
        if not self.parts:
            return self.message
        return "".join(name(part) if isinstance(part, ItemRef) else part for part in self.parts)

    @classmethod
    def of(
        cls, code: str, index: int | None, says: str | tuple[str | ItemRef, ...], call_id: Any = None, **place: Any
    ) -> Finding:
        """The finding ``code`` (its severity from :data:`FINDINGS`; :raises KeyError: for a code not there) about
        the item at ``index``; ``says`` is its message, as text or as pieces naming items (:class:`ItemRef`);
        ``call_id`` is kept when it is a string; ``place``: ``pointer``, ``line``, ``column``."""
        parts = (says,) if isinstance(says, str) else says
        return cls(
            code,
            index,
            call_id if isinstance(call_id, str) else None,
            "".join(map(str, parts)),
            FINDINGS[code],
            parts=parts,
            **place,
        )

    def as_dict(self) -> dict[str, Any]:
        """JSON-ready: ``{"code", "index", "call_id", "message", "severity", "pointer", "line", "column"}``."""
        return {
            "code": self.code,
            "index": self.index,
            "call_id": self.call_id,
            "message": self.message,
            "severity": self.severity,
            "pointer": self.pointer,
            "line": self.line,
            "column": self.column,
        }


@dataclass
class ItemVerdict:
    """One item's line in a :class:`JournalReport`: read-only once made (``refused_by`` is set with
    :func:`dataclasses.replace`). Not frozen because a journal makes one per item: a frozen dataclass sets each of
    its ten fields through ``object.__setattr__``, a third of a 24,000-item journal's check. The :class:`Verdict`
    it holds, which items share, is read-only too.
    """

    index: int
    id: str | None
    type: str | None
    reason: str
    errors: tuple[ValidationError, ...] = ()
    message: str = ""
    name: str | None = None
    call_id: str | None = None
    verdict: Verdict | None = field(default=None, compare=False, repr=False)
    refused_by: tuple[str, ...] = ()  # codes of the error findings that name this item
    disposition: str | None = None  # the target's plan for it: keep, leave_out or refused; None: not planned
    checked: bool = True  # False: a call judged where no tool definitions were given (its schema is unknown)

    @property
    def ok(self) -> bool:
        """May this item run: the gate says ``ok`` and no error finding names it (e.g. ``duplicate_member``)."""
        return self.reason == "ok" and not self.refused_by

    @property
    def label(self) -> str:
        """The reason; ``not checked`` for a call whose tool definition was not given; ``provider item`` for a
        namespaced item the target takes back; or ``refused`` for an item those labels (or ``ok``,
        ``not_function_call``) would let pass but an error finding stops (an orphan output, a reused call_id…)."""
        if self.repaired:
            return REPAIRED
        return item_label(base_label(self.reason, self.checked, self.disposition), bool(self.refused_by))

    @property
    def repaired(self) -> bool:
        """Every error finding that names this item is one the target's plan repairs (``REPAIRED_FINDINGS``), and
        the plan sends it: refused as it is, sent as repaired (its row says ``repaired``, not ``refused``)."""
        return bool(self.refused_by) and self.disposition == "keep" and REPAIRED_FINDINGS.issuperset(self.refused_by)

    @property
    def blocks_replay(self) -> bool:
        """The gate's own answer stops the journal: a ``namespaced`` item the target does not take (another
        provider's), or a call that is not ``ok`` (a function_call, or a native call judged as one: its reason is
        then a call's) — except a call not checked for want of its tool's definition, which nothing refuses yet.
        Findings aside (see :attr:`refused_by`); other items have nothing to run."""
        return self.checked and reason_blocks(self.reason, self.disposition)

    def as_dict(self) -> dict[str, Any]:
        """JSON-ready: ``{"index", "id", "type", "reason", "label", "ok", "refused_by", "disposition",
        "message", "errors"}``, plus ``name`` and ``call_id`` when known and ``parse_error`` for ``arguments_parse``.
        """
        data: dict[str, Any] = {
            "index": self.index,
            "id": self.id,
            "type": self.type,
            "reason": self.reason,
            "label": self.label,
            "ok": self.ok,
            "refused_by": list(self.refused_by),
            "disposition": self.disposition,
            "message": self.message,
            "errors": [e.as_dict() for e in self.errors],
        }
        if self.name is not None:
            data["name"] = self.name
        if self.call_id is not None:
            data["call_id"] = self.call_id
        if self.verdict is not None and self.verdict.parse_error is not None:
            data["parse_error"] = self.verdict.as_dict()["parse_error"]
        return data


@dataclass(frozen=True)
class JournalReport:
    """:func:`check_journal`'s answer: ``replayable`` plus one verdict per item and the findings.

    :ivar items: one :class:`ItemVerdict` per item, in order; made when first read (:class:`ItemVerdicts`).
    :ivar verdicts: each item's gate :class:`Verdict`, in order: what :attr:`items` are made of, without an object
        per item (items that are alike share one), for a reader that needs only counts and the refused items.
    :ivar refused: the index of each item that error findings name -> their codes (:attr:`ItemVerdict.refused_by`).
    :ivar target: the target the verdict is about (:data:`webapp.core.gate.targets.TARGETS`): ``replayable`` means
        replayable *to it*.
    :ivar plan: what goes to the target and what is left out (:func:`webapp.core.gate.targets.plan`), or ``None``
        for a report made without one.
    :ivar unchecked: tool name -> how many of its calls were not checked because no tool definitions were given
        (their label is ``not checked``); empty when tools (or one schema) were given.
    """

    replayable: bool | None  # None: cannot tell (see answer)
    items: Sequence[ItemVerdict]
    findings: list[Finding]
    shape: str | None = None
    verdicts: Sequence[Verdict] = ()
    refused: Mapping[int, tuple[str, ...]] = field(default_factory=dict)
    target: str = DEFAULT_TARGET
    plan: ReplayPlan | None = None
    unchecked: Mapping[str, int] = field(default_factory=dict)

    @property
    def answer(self) -> str:
        """The journal's answer, one of :data:`~webapp.core.gate.labels.ANSWERS`: ``not replayable`` when an item
        or an error finding stops it, else ``cannot tell`` when calls were not checked (:attr:`unchecked`), else
        ``replayable``."""
        return answer_of(self.replayable)

    @property
    def says(self) -> str:
        """The answer in one line, the same on every page, route and the CLI: ``replayable``, ``not replayable
        (…)`` or ``cannot tell until the tools are given (3 calls of tools "a", "b" not checked)``; what must be
        done before sending (``action`` findings) follows a ``replayable``."""
        return answer_line(self.replayable, self.unchecked, tally(self.findings), self.counts)

    @property
    def counts(self) -> dict[str, int]:
        """How many items have each :attr:`ItemVerdict.label`, in order of first appearance."""
        counts: dict[str, int] = {}
        refused = self.refused
        lines = self.items if self.unchecked or self.plan is not None else None
        for index, verdict in enumerate(self.verdicts):
            if lines is not None and (
                verdict.reason == "arguments_schema" or verdict.reason == "namespaced" or index in refused
            ):
                label = lines[index].label  # not checked, a provider's own item, repaired: its line knows
            else:
                label = item_label(verdict.reason, True) if index in refused else verdict.reason
            counts[label] = counts.get(label, 0) + 1
        return counts

    def as_dict(self) -> dict[str, Any]:
        """JSON-ready: ``{"replayable" (true, false or null: cannot tell), "answer", "says", "unchecked": {tool:
        calls}, "target", "source", "shape", "counts", "items": [...], "findings": [...], "left_out": [...],
        "left_out_notes": {code: words}}`` (``source`` and what is left out from :attr:`plan`)."""
        plan = self.plan
        return {
            "replayable": self.replayable,
            "answer": self.answer,
            "says": self.says,
            "unchecked": dict(self.unchecked),
            "target": self.target,
            "source": plan.source if plan is not None else None,
            "left_out": [entry.as_dict() for entry in plan.left_out] if plan is not None else [],
            "left_out_notes": dict(plan.notes) if plan is not None else {},
            "shape": self.shape,
            "counts": self.counts,
            "items": [item.as_dict() for item in self.items],
            "findings": [finding.as_dict() for finding in self.findings],
        }


class ItemVerdicts(Sequence[ItemVerdict]):
    """A :class:`JournalReport`'s :attr:`~JournalReport.items`, all made on first reading (then kept): a page that
    shows only a journal's counts and its refused items (the Diff page's sides) never makes 24,000 of them.

    :param items: the journal's items; ``verdicts``: each one's gate verdict; ``refused``: as
        :attr:`JournalReport.refused`.
    """

    __slots__ = ("_items", "_verdicts", "_refused", "_dispositions", "_tools_given", "_made")

    def __init__(
        self,
        items: Sequence[Any],
        verdicts: Sequence[Verdict],
        refused: Mapping[int, tuple[str, ...]],
        dispositions: Sequence[str] = (),
        *,
        tools_given: bool = True,
    ) -> None:
        self._items, self._verdicts, self._refused = items, verdicts, refused
        self._dispositions, self._tools_given = dispositions, tools_given
        self._made: list[ItemVerdict] | None = None

    def _lines(self) -> list[ItemVerdict]:
        if self._made is None:
            refused, dispositions, tools_given = self._refused, self._dispositions, self._tools_given
            self._made = [
                item_line(
                    index,
                    item,
                    verdict,
                    refused.get(index, ()),
                    dispositions[index] if index < len(dispositions) else None,
                    checked=tools_given or not unchecked(item, verdict),
                )
                for index, (item, verdict) in enumerate(zip(self._items, self._verdicts, strict=True))
            ]
            self._items = ()  # the journal's items are no longer needed here
        return self._made

    def __len__(self) -> int:
        return len(self._verdicts)

    def __getitem__(self, index: Any) -> Any:
        return self._lines()[index]

    def __iter__(self) -> Iterator[ItemVerdict]:
        return iter(self._lines())

    def __eq__(self, other: object) -> bool:
        return list(self) == list(other) if isinstance(other, Sequence) else NotImplemented

    def __repr__(self) -> str:
        return f"ItemVerdicts({self._lines()!r})"


def unchecked(item: Any, verdict: Verdict) -> bool:
    """Whether ``item``, judged as ``verdict`` where no tool definitions were given, is a call its tool's
    definition would check (:data:`UNCHECKABLE_TYPES`) that passed every step before it: not checked, not refused.
    """
    return (
        verdict.reason == "arguments_schema"
        and isinstance(item, dict)
        and item.get("type") in UNCHECKABLE_TYPES
        and verdict.schema_problem is None
        and not verdict.errors
    )


def base_label(reason: str, checked: bool = True, disposition: str | None = None) -> str:
    """An item's label before findings: :data:`~webapp.core.gate.labels.NOT_CHECKED` for a call not checked,
    :data:`~webapp.core.gate.labels.PROVIDER_ITEM` for a namespaced item the target keeps, else ``reason``."""
    if not checked:
        return NOT_CHECKED
    if reason == "namespaced" and disposition == "keep":
        return PROVIDER_ITEM
    return reason


def answer_of(replayable: bool | None) -> str:
    """A journal's answer (:data:`~webapp.core.gate.labels.ANSWERS`) from its ``replayable`` (``None``: cannot
    tell)."""
    return CANNOT_TELL if replayable is None else REPLAYABLE if replayable else NOT_REPLAYABLE


def tally(findings: Iterable[Finding], into: dict[tuple[str, str], int] | None = None) -> dict[tuple[str, str], int]:
    """How many findings of each ``(severity, code)``, in order of first appearance (added to ``into`` if given):
    what :func:`answer_line` needs of them, kept by a reader that cannot keep every finding (a stream)."""
    counted = {} if into is None else into
    for finding in findings:
        key = (finding.severity, finding.code)
        counted[key] = counted.get(key, 0) + 1
    return counted


def answer_line(
    replayable: bool | None,
    unchecked: Mapping[str, int],
    findings: Mapping[tuple[str, str], int],
    counts: Mapping[str, int] | None = None,
) -> str:
    """A journal's answer in words (:attr:`JournalReport.says`): what stops it (the items' refusing labels from
    ``counts``, then the error findings: how many, the first code, and whether the body offered repairs them all),
    what was not checked, or what must be done before sending (``action`` findings). ``findings``: their
    :func:`tally`."""
    if replayable is None:
        return f"{CANNOT_TELL} until the tools are given ({unchecked_words(unchecked)} not checked)"
    if not replayable:
        blocking = [f"{n:,} {label}" for label, n in (counts or {}).items() if is_refusal(label) and label != REFUSED]
        codes = [code for severity, code in findings if severity == "error"]
        why = list(blocking)
        if codes:
            errors = sum(n for (severity, _), n in findings.items() if severity == "error")
            more = f" and {len(codes) - 1} more kind{'s' if len(codes) > 2 else ''}" if len(codes) > 1 else ""
            why.append(f"{errors:,} error{'s' if errors != 1 else ''}: {codes[0]}{more}")
        # Only what the plan repairs stops it: refused as it is, the body offered is repaired (and judged so).
        repairable = bool(codes) and not blocking and REPAIRED_FINDINGS.issuperset(codes)
        tail = "; the body offered repairs it (see what goes)" if repairable else ""
        return f"{NOT_REPLAYABLE} ({'; '.join(why) or 'see the items'}){tail}"
    actions = sum(n for (severity, _), n in findings.items() if severity == "action")
    if actions:
        return f"{REPLAYABLE} once the output of {actions} call{'s is' if actions != 1 else ' is'} appended"
    return REPLAYABLE


def reason_blocks(reason: str, disposition: str | None = None) -> bool:
    """Whether an item's gate reason stops the replay: any reason but ``ok`` and ``not_function_call`` (a call
    that may not run, an item without a type, another provider's item), except a ``namespaced`` item the target
    takes (``disposition`` ``keep``: an ``anthropic:`` item replayed to ``anthropic``)."""
    if reason == "ok" or reason == "not_function_call":
        return False
    return not (reason == "namespaced" and disposition == "keep")


def item_line(
    index: int,
    item: Any,
    verdict: Verdict,
    refused_by: tuple[str, ...] = (),
    disposition: str | None = None,
    *,
    checked: bool = True,
) -> ItemVerdict:
    """The :class:`ItemVerdict` of ``item`` at ``index`` gated as ``verdict``; ``refused_by``: the codes of the
    error findings that name it (an item the gate passes is then refused, and says why); ``disposition``: what the
    target's plan does with it (``None``: not planned, as for one item alone); ``checked``: ``False`` for a call
    judged where no tool definitions were given (:func:`unchecked`)."""
    get = item.get if isinstance(item, dict) else NO_MEMBERS.get
    item_type, item_id, name, call_id = get("type"), get("id"), get("name"), get("call_id")
    if not checked and not refused_by:
        message = "not checked: no tool definitions were given, so nothing can check its arguments yet"
    elif verdict.reason == "namespaced" and disposition == "keep" and isinstance(item_type, str) and not refused_by:
        owner = provider_of(item_type)
        message = f"type {_q(item_type)} is {owner}'s own item: it goes back to {owner} as it came; nothing to execute"
    else:
        message = refusal_message(verdict, refused_by)
    return ItemVerdict(
        index,
        item_id if isinstance(item_id, str) else None,
        item_type if isinstance(item_type, str) else None,
        verdict.reason,
        verdict.errors,
        message,
        name if item_type == "function_call" and isinstance(name, str) else None,
        call_id if isinstance(call_id, str) else None,
        verdict,
        refused_by,
        disposition,
        checked,
    )


def refused_by_index(findings: list[Finding]) -> dict[int, tuple[str, ...]]:
    """Each item that error findings name -> their codes, in order, once each: it is not ``ok`` whatever the gate
    said of its value."""
    codes: dict[int, list[str]] = {}
    for finding in findings:
        if finding.severity == "error" and finding.index is not None:
            named = codes.setdefault(finding.index, [])
            if finding.code not in named:
                named.append(finding.code)
    return {index: tuple(named) for index, named in codes.items()}

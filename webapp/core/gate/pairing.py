"""A whole conversation through the gate: every item gated against its tool, and the journal's own rules.

:func:`check_journal` (a list of items) and :class:`JournalChecker` (one item at a time, for a stream of any length)
gate each item (:mod:`webapp.core.gate.steps`) against the schema of the tool it names
(:mod:`webapp.core.gate.tools`) and check the pairing of calls with their outputs (Open Responses spec,
function_call / function_call_output), ``tool_choice``, and that the journal's text names no member twice
(``duplicate_member``: the item a reader sees would depend on its parser); their findings are data
(:class:`webapp.core.gate.report.Finding`). :func:`check_one` judges one item as every page does. :func:`vouched_calls`
is the one rule for status-less calls a client vouched for.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from webapp.core.gate.memo import VerdictMemo
from webapp.core.gate.report import (
    NO_MEMBERS,
    Finding,
    ItemRef,
    ItemVerdict,
    ItemVerdicts,
    JournalReport,
    item_line,
    reason_blocks,
    refused_by_index,
    unchecked,
    unchecked_words,
)
from webapp.core.gate.steps import DEFAULT_MAX_DEPTH, Verdict, Why, check_item, judge, why_of
from webapp.core.gate.target_checks import TargetChecks
from webapp.core.gate.targets import DEFAULT_TARGET, REPAIRED_FINDINGS, item_policy, plan, target_error
from webapp.core.gate.tools import allowed_names, tool_key, tool_table
from webapp.core.items import (
    CUSTOM_TOOL_CALL,
    OPENAI_ITEM_TYPES,
    OPENAI_TOOL_ITEMS,
    RUNNABLE_STATUS,
    native_openai,
    provider_of,
)
from webapp.core.journal import Duplicate, Journal
from webapp.core.json import pointer
from webapp.core.json import quote as _q

__all__ = [
    "PAIRING_FINDINGS",
    "REMEMBERED",
    "JournalChecker",
    "check_journal",
    "check_one",
    "the_item",
    "vouch",
    "vouched_calls",
]

#: How many item types, and how many tool names, a :class:`JournalChecker` remembers a verdict or a compiled schema
#: for: a journal uses a handful; a stream that invents a new one on every line must not grow the memory.
REMEMBERED = 256


def the_item(ref: ItemRef) -> str:
    """How a finding about a lone item names it (for :meth:`Finding.describe` of :func:`check_one`'s findings)."""
    return "the item"


#: Findings whose rule needs another item of the journal (pairing, order): never made about one item alone. The
#: targets' order rules too (docs/targets.md A4, A6, A13, C1, G3, G4, G5, O4, O17): a call alone is not "the
#: first turn" of a conversation.
PAIRING_FINDINGS = frozenset(
    {
        "orphan_output",
        "output_for_unfinished_call",
        "duplicate_call_id",
        "duplicate_output",
        "missing_output",
        "output_not_adjacent",
        "call_turn_misplaced",
        "paired_by_position",
        "results_reordered",
        "system_moved",
        "reasoning_prefix_changed",
        "compaction_trigger_not_last",
    }
)


def check_one(
    item: Any | Journal,
    schema: dict | bool | None = None,
    *,
    format_assertion: bool = False,
    tool_name: str | None = None,
    max_depth: int = DEFAULT_MAX_DEPTH,
    target: str = DEFAULT_TARGET,
    source: str | None = None,
    tools: Iterable[Any] | None = None,
) -> tuple[ItemVerdict, list[Finding]]:
    """One item, as every page and ``/api/gate`` judge it: :func:`check_item`'s reason, and what stops the item
    whatever its value's verdict, as a journal's check of it would find (Open Responses spec: a FunctionCall
    requires ``call_id`` and ``name``): a member name its text gives twice (``duplicate_member``), a function_call
    without a call_id or a name (``missing_call_id``, ``missing_name``), a Chat Completions envelope. Not the
    findings about other items (pairing: ``orphan_output``…), which one item alone cannot have.

    :param item: the item, or the :class:`Journal` of one item read from its text (its duplicate names kept).
    :param schema, format_assertion, tool_name, max_depth: as :func:`check_item`'s.
    :param target, source: as :func:`check_journal`'s: the item's own target rules (``provider_item``,
        ``unknown_type``…) and its disposition.
    :param tools: the tools, for what ``schema`` cannot say: a ``custom_tool_call``'s grammar (its custom tool);
        ``None``: no definitions were given, so a call without ``schema`` is not checked (an empty list: they were,
        and none is this call's).
    :return: ``(line, findings)``: its :class:`ItemVerdict` (index 0; ``refused_by`` names the error findings, so
        ``ok`` only without them; a call given neither ``schema`` nor ``tools`` is ``not checked``) and those
        findings, whose messages call it item 0 (render them with :meth:`Finding.describe`, e.g. ``lambda ref: "the
        item"``).
    :raises ValueError: for an unknown ``target``.
    """
    duplicates: tuple[Duplicate, ...] | list[Duplicate] = ()
    if isinstance(item, Journal):
        duplicates, item = item.duplicates, item.items[0]
    source = source or ("openai" if native_openai([item]) else "open_responses")
    verdict = check_item(item, schema, format_assertion=format_assertion, tool_name=tool_name, max_depth=max_depth)
    # Its rules without its value's verdict (made above): any schema passes, no tool is looked up.
    checker = JournalChecker(
        tools,
        schema=True,
        max_depth=max_depth,
        duplicates=[d for d in duplicates if d.index is None],
        target=target,
        source=source,
    )
    native = checker.check(item, [d for d in duplicates if d.index is not None])
    if isinstance(item, dict) and isinstance(item.get("type"), str) and item["type"] in OPENAI_ITEM_TYPES:
        verdict = native  # a native call judged as a call (custom_tool_call, mcp_call) by the checker
    findings = [f for f in checker.take_findings() if f.code not in PAIRING_FINDINGS]
    refused_by = refused_by_index(findings).get(0, ())
    disposition = plan([item], target=target, source=source, refused=[0] if refused_by else []).dispositions[0]
    checked = not (schema is None and tools is None and unchecked(item, verdict))  # nothing given to check it
    return item_line(0, item, verdict, refused_by, disposition, checked=checked), findings


def check_journal(
    items: Iterable[Any] | Journal,
    tools: Iterable[Any] | None = None,
    *,
    tool_choice: Any = None,
    schema: dict | bool | None = None,
    format_assertion: bool = False,
    max_depth: int = DEFAULT_MAX_DEPTH,
    memo: VerdictMemo | None = None,
    target: str = DEFAULT_TARGET,
    source: str | None = None,
    thinking: bool | None = None,
    store: Any = None,
    complete_statusless: bool = False,
) -> JournalReport:
    """Gate every item of a conversation and check the pairing rules (Open Responses spec, function_call /
    function_call_output; "tool_choice"; the article's "do not mix Chat Completions envelopes").

    :param items: the items in order, or a :class:`Journal` (its tools and tool_choice are used unless given;
        each member name its text gives twice is a ``duplicate_member`` error, with pointer and line:column). A
        journal read from one item (shape ``item``) has none of the findings about other items (pairing); one that
        is a page of a longer list (:attr:`Journal.partial`) has a ``partial_journal`` warning saying so.
    :param tools: tool definitions as in ``CreateResponseBody.tools``; each ``function_call`` is checked against
        the schema of the tool it names, and one naming no tool among them is an ``unknown_tool`` error. ``None``
        (and no ``schema``, and a journal without its own): no definitions were given, so calls that pass every
        step before the schema's are *not checked* — not refused — and the answer is ``cannot tell``
        (:attr:`JournalReport.unchecked`, one ``not_checked`` finding naming their tools).
    :param tool_choice: ``{"type": "allowed_tools", "tools": [...], "mode": ...}`` (or ``"none"``, or a forced
        function) limits which names may run; mode ``"none"`` allows none, ``"auto"``/``"required"`` the listed
        ones. It never replaces the schema check. One the gate cannot read is an ``invalid_tool_choice`` finding.
    :param schema: one schema for every function_call, whatever its name (then ``tools`` is not consulted).
    :param format_assertion: assert ``format`` in the schemas.
    :param max_depth: nesting limit (JSON levels) for each call's parsed ``arguments`` (see :func:`check_item`).
    :param memo: verdicts of calls other checks of this request made (:class:`VerdictMemo`); the report is the
        same with or without it.
    :param target: where the conversation is replayed (:data:`webapp.core.gate.targets.TARGETS`): its rules
        (:data:`webapp.core.gate.targets.TARGET_RULES`) add findings, and its policy gives each item its
        disposition (:attr:`JournalReport.plan`). :raises ValueError: for another value.
    :param source: where the items came from (``openai``, ``open_responses``, ``anthropic``…); ``None``: read from
        the items (:func:`webapp.core.items.native_openai`).
    :param thinking: the target request enables thinking (docs/targets.md A2); ``None``: what the journal's request
        says (:meth:`webapp.core.journal.settings.RequestSettings.for_target`: Anthropic's ``thinking`` for the
        ``anthropic`` target), else on when the conversation holds Anthropic thinking. ``False``: off, whatever the
        conversation holds.
    :param store: the conversation's ``store`` (``False``: docs/targets.md O3 applies); ``None``: the journal's
        request's (for a target of the Responses API).
    :param complete_statusless: the user's explicit choice to send each status-less call its client vouched for
        (:func:`vouched_calls`) as ``completed``: such calls are judged so, and the plan repairs their ``status``
        (``status_completed``). Off, the article's rule stands (``status``: only ``completed`` runs).
    :return: a :class:`JournalReport`. ``replayable`` (to ``target``) is false when any item blocks the replay
        (:attr:`ItemVerdict.blocks_replay`: another provider's ``namespaced`` item, a call that is not ``ok``) or any
        finding is an error (an empty journal is one: ``empty_journal``); else ``None`` (cannot tell) when calls
        were not checked for want of tool definitions; else true. Findings name items by their position in
        ``items``, as data (:attr:`Finding.parts`).
    """
    shape = None
    partial = None
    include = None  # the request's include, which O3's finding names when it lacks encrypted reasoning
    duplicates: dict[int | None, list[Duplicate]] = {}
    if isinstance(items, Journal):
        shape, partial = items.shape, items.partial
        said_thinking, said_store = items.settings.for_target(target)  # the request's own, where they count
        include = items.settings.include if store is None or store == items.settings.store else None
        thinking = said_thinking if thinking is None else thinking
        store = said_store if store is None else store
        for duplicate in items.duplicates:
            duplicates.setdefault(duplicate.index, []).append(duplicate)
        tools = items.tools if tools is None else tools
        tool_choice = items.tool_choice if tool_choice is None else tool_choice
        items = items.items
    if not isinstance(items, (list, tuple)):
        items = list(items)  # its ItemVerdicts are made from the items when first read
    if source is None:
        source = "openai" if native_openai(items) else "open_responses"
    vouched = vouched_calls(items) if complete_statusless else []
    checked = vouch(items, vouched) if vouched else items
    checker = JournalChecker(
        tools,
        tool_choice=tool_choice,
        schema=schema,
        format_assertion=format_assertion,
        max_depth=max_depth,
        duplicates=duplicates.get(None, ()),
        memo=memo,
        target=target,
        source=source,
        store=store,
        thinking=thinking,
        include=include,
    )
    check = checker.check
    if duplicates:
        verdicts = [check(item, duplicates.get(index, ())) for index, item in enumerate(checked)]
    else:
        verdicts = [check(item) for item in checked]
    checker.finish()
    findings = checker.take_findings()
    if partial is not None:  # said on every surface: a page's verdict is never taken for the whole list's
        findings.append(Finding.of("partial_journal", None, partial))
    if shape == "item":  # a document of one item: nothing else to pair it with (as check_one judges it)
        findings = [f for f in findings if f.code not in PAIRING_FINDINGS]
    refused = refused_by_index(findings)
    replayable = checker.answer(any(f.severity == "error" for f in findings))  # the findings kept, not all made
    # An item stays when every error naming it is one the plan repairs (REPAIRED_FINDINGS).
    stopped = {index for index, codes in refused.items() if not REPAIRED_FINDINGS.issuperset(codes)}
    tools_given = not checker.unchecked_possible
    for index, verdict in enumerate(verdicts):
        if verdict.reason != "ok" and verdict.reason != "not_function_call":
            item = checked[index]
            if not tools_given and unchecked(item, verdict):
                continue  # not checked is not refused: it goes, and the answer says what was not checked
            taken = isinstance(item, dict) and provider_of(item.get("type")) == target  # an item of the target's
            if reason_blocks(verdict.reason, "keep" if taken else None):
                stopped.add(index)
    the_plan = plan(items, target=target, source=source, refused=stopped, vouched=vouched)
    lines = ItemVerdicts(checked, verdicts, refused, the_plan.dispositions, tools_given=tools_given)
    return JournalReport(
        replayable, lines, findings, shape, verdicts, refused, target, the_plan, dict(checker.unchecked)
    )


class JournalChecker:
    """The journal check one item at a time: what :func:`check_journal` runs over a list, and what a stream of
    any length (``python -m webapp gate --stream``) runs line by line.

    It keeps only what pairing needs — each call's ``call_id`` with its index and status, each answered
    ``call_id``, the completed calls still waiting for an output — never the items or their verdicts, except the
    one verdict of each item type that is not a call and each tool name's compiled schema (the first
    :data:`REMEMBERED` of each), and what a ``memo`` given keeps. Findings accumulate until :meth:`take_findings`.
    Arguments are as :func:`check_journal`'s.
    """

    def __init__(
        self,
        tools: Iterable[Any] | None = None,
        *,
        tool_choice: Any = None,
        schema: dict | bool | None = None,
        format_assertion: bool = False,
        max_depth: int = DEFAULT_MAX_DEPTH,
        duplicates: Iterable[Duplicate] = (),
        memo: VerdictMemo | None = None,
        target: str = DEFAULT_TARGET,
        source: str | None = None,
        store: Any = None,
        thinking: bool | None = None,
        include: Sequence[str] | None = None,
    ) -> None:
        problem = target_error(target)
        if problem is not None:
            raise ValueError(problem)
        self._findings: list[Finding] = []
        self._format_assertion, self._max_depth, self._memo = format_assertion, max_depth, memo
        # No tool definitions at all: calls are not checked (counted by tool name), not refused as unknown_tool.
        self.unchecked_possible = tools is None and schema is None
        self.unchecked: dict[str, int] = {}  # tool name -> calls not checked (the first REMEMBERED names)
        self._unchecked_calls = 0
        self._table = tool_table(tools, self._findings) if schema is None else {}
        self._known = ", ".join(_q(n) for n in self._table) or "none"  # for unknown_tool messages
        # How calls are checked: against the one schema, else against their tool's, by name (compiled once).
        self._one_schema = None if schema is None else why_of(schema, format_assertion, None, max_depth)
        if self._one_schema is not None and self._one_schema.problem is not None:
            self._findings.append(Finding.of("tool_schema_invalid", None, f"schema: {self._one_schema.problem}"))
        self._by_name: dict[str | None, Why] = {}
        self._by_type: dict[str, Verdict] = {}  # the verdict of each item type that is not function_call
        self._findings += [_duplicate_finding(d) for d in duplicates]
        self._allowed, self._allowed_words, choice_problem = allowed_names(tool_choice)
        if choice_problem is not None:
            self._findings.append(Finding.of("invalid_tool_choice", None, f"{choice_problem}; no call is allowed"))
            self._allowed_words = "tool_choice cannot be read"
        self._calls: dict[str, tuple[int, Any]] = {}  # call_id -> (index, status) of the first function_call
        self._answered: dict[str, int] = {}  # call_id -> index of its first output
        self._pending: list[tuple[int, str]] = []  # completed calls waiting for an output (index, call_id)
        self._count = 0
        self._blocked = False
        self.target, self.source = target, source or "open_responses"
        self._target = TargetChecks(
            target,
            self.source,
            self._findings,
            tools=tools,
            report_unknown=tools is not None,
            store=store,
            thinking=thinking,
            include=include,
            max_depth=max_depth,
            format_assertion=format_assertion,
        )

    @property
    def blocked(self) -> bool:
        """An item so far blocks the replay by the gate's own answer (:attr:`ItemVerdict.blocks_replay`)."""
        return self._blocked

    def answer(self, errors: bool) -> bool | None:
        """The journal's ``replayable`` given whether the findings the caller keeps hold an error (a one-item
        document keeps no pairing findings): ``False`` when they do or an item blocks the replay, else ``None``
        (cannot tell) when calls were not checked, else ``True``."""
        if errors or self._blocked:
            return False
        return None if self._unchecked_calls else True

    def take_findings(self) -> list[Finding]:
        """The findings made since the last call (all of them, the first time), in order."""
        taken = list(self._findings)
        self._findings.clear()  # the same list: the target's checks add to it too
        return taken

    def finish(self) -> None:
        """The end of the conversation: the target's rules about its last items and its current turn
        (docs/targets.md O1, O7, A1, A2, G1) add their findings, and so does what the whole has or lacks (no items:
        ``empty_journal``; calls not checked: one ``not_checked``). Call once, after the last item."""
        if self._count == 0:
            self._findings.append(
                Finding.of("empty_journal", None, "the journal has no items: there is nothing to replay")
            )
        if self._unchecked_calls:
            self._findings.append(
                Finding.of(
                    "not_checked",
                    None,
                    f"not checked: {unchecked_words(self.unchecked)}. No tool definitions were given, so no schema "
                    "can check their arguments: give the tools to check them",
                )
            )
        if self.target == "openai":  # O7: OpenAI refuses a function_call without its output, the last turn's too
            last_turn = {call_id for _, call_id in self._pending}
            for call_id, (call_index, status) in self._calls.items():
                if status == RUNNABLE_STATUS and call_id not in self._answered and call_id not in last_turn:
                    self._findings.append(
                        Finding.of(
                            "output_never_given",
                            call_index,
                            (
                                _call(call_index),
                                f" ({_q(call_id)}) is answered nowhere in the conversation: OpenAI refuses a call "
                                "without its output (No tool output found for function call)",
                            ),
                            call_id,
                        )
                    )
            for call_index, waiting in self._pending:
                if waiting not in self._answered:
                    self._findings.append(
                        Finding.of(
                            "output_required",
                            call_index,
                            (
                                _call(call_index),
                                f" ({_q(waiting)}) has no function_call_output yet: run it and append its output "
                                "before sending (OpenAI refuses a call without its output)",
                            ),
                            waiting,
                        )
                    )
            self._pending = []
        self._target.finish()

    def add(self, item: Any, duplicates: Iterable[Duplicate] = ()) -> ItemVerdict:
        """Gate the next item (its index is the number of items added before it) and check its pairing.

        :param duplicates: member names its text gave twice (``duplicate_member`` findings).
        :return: its :class:`ItemVerdict` (``refused_by`` is left to the caller: findings about an item may come
            later, e.g. ``missing_output``).
        """
        index = self._count
        verdict = self.check(item, duplicates)
        disposition = "leave_out" if item_policy(item, self.target, self.source) is not None else "keep"
        return item_line(index, item, verdict, (), disposition)

    def check(self, item: Any, duplicates: Iterable[Duplicate] = ()) -> Verdict:
        """:meth:`add` without the :class:`ItemVerdict`: the item's gate :class:`Verdict` (items that are alike
        share one), for a caller that keeps the items and makes their lines only if asked (:class:`ItemVerdicts`).
        """
        index = self._count
        self._count = index + 1
        findings = self._findings
        get = item.get if isinstance(item, dict) else NO_MEMBERS.get
        item_type, role = get("type"), get("role")
        if duplicates:
            findings += [_duplicate_finding(d, get("call_id")) for d in duplicates]
        tool_calls = get("tool_calls")
        if role == "tool" or isinstance(tool_calls, list):
            what = "a tool_calls array" if isinstance(tool_calls, list) else 'a role "tool" message'
            findings.append(
                Finding.of(
                    "chat_completions_envelope",
                    index,
                    (
                        _item(index),
                        f" is {what} from Chat Completions: replaying it sends the wrong envelope to an Open "
                        "Responses provider (use function_call / function_call_output items)",
                    ),
                    get("call_id") or get("tool_call_id"),
                )
            )

        if item_type == "function_call":
            verdict = self._call(index, item, get("name"), get("call_id"))
            if verdict.reason == "ok":
                pass
            elif self.unchecked_possible and verdict.reason == "arguments_schema":
                self._not_checked(get("name"))  # no tool definitions: not checked, not refused
            else:  # a call that may not run stops the journal
                self._blocked = True
            self._target.see(index, item, verdict)
            return verdict
        known = self._by_type.get(item_type) if isinstance(item_type, str) else None
        verdict = known if known is not None else self._not_a_call(item, item_type)
        if isinstance(item_type, str) and item_type in OPENAI_ITEM_TYPES:
            native = self._target.native_verdict(index, item, item_type)
            if native is not None:  # calls are calls: judged as one, and one that may not run stops the journal
                verdict = native
                if native.ok:
                    pass
                elif self.unchecked_possible and item_type == CUSTOM_TOOL_CALL and native.reason == "arguments_schema":
                    self._not_checked(get("name"))  # no custom tools given: its grammar is unknown
                else:
                    self._blocked = True
        self._target.see(index, item, verdict)
        if isinstance(item_type, str) and item_type in OPENAI_TOOL_ITEMS and self._one_schema is None:
            self._load_tools(index, get("tools"))
        if item_type == "function_call_output":
            _pair_output(index, get("call_id"), self._calls, self._answered, findings)
        elif item_type == "message" and role == "user" and self._pending:
            for call_index, waiting in self._pending:
                if waiting not in self._answered:
                    findings.append(
                        Finding.of(
                            "missing_output",
                            call_index,
                            (
                                _call(call_index),
                                f" ({_q(waiting)}) has no function_call_output before the user message at ",
                                _item(index),
                            ),
                            waiting,
                        )
                    )
            self._pending = []
        if item_type == "message" and role == "user":
            self._target.user_message(index)
        if verdict.reason == "namespaced" and provider_of(item_type) != self.target:  # another provider's item
            self._blocked = True
        return verdict

    def _not_checked(self, name: Any) -> None:
        """A call that no definition could check: counted under its tool's name."""
        if not isinstance(name, str) or not name:
            return  # no tool could ever check it: missing_name refuses it
        self._unchecked_calls += 1
        if name in self.unchecked or len(self.unchecked) < REMEMBERED:
            self.unchecked[name] = self.unchecked.get(name, 0) + 1

    def _not_a_call(self, item: Any, item_type: Any) -> Verdict:
        """The verdict of an item that is not a function_call, made: it depends on its type alone, so it is kept
        for :meth:`check` to find (for the first :data:`REMEMBERED` types; an item that is not an object or has no
        string type is namespaced, in its own words, each time)."""
        verdict = check_item(item, None, max_depth=self._max_depth)
        if isinstance(item_type, str) and len(self._by_type) < REMEMBERED:
            self._by_type[item_type] = verdict
        return verdict

    def _load_tools(self, index: int, tools: Any) -> None:
        """The function tools an ``additional_tools`` or ``tool_search_output`` item carries: calls after it may
        name them (docs/targets.md O19). A name the table has already keeps its first tool."""
        if not isinstance(tools, list):
            return
        for key, entry in tool_table(tools, self._findings, f"item {index} tools").items():
            if key not in self._table:
                self._table[key] = entry
                self._by_name.pop(key, None)  # a call before it was checked against no tool
        self._known = ", ".join(_q(n) for n in self._table) or "none"

    def _checked_as(self, name: Any) -> Why:
        """How a call naming ``name`` is checked: its tool's schema, compiled once (for the first
        :data:`REMEMBERED` names), or none when no tool has that name."""
        name = name if isinstance(name, str) else None
        why = self._by_name.get(name)
        if why is None:
            tool = self._table.get(name) if name is not None else None
            why = why_of(tool.schema if tool else None, self._format_assertion, name, self._max_depth)
            if len(self._by_name) < REMEMBERED:
                self._by_name[name] = why
        return why

    def _call(self, index: int, item: dict, name: Any, call_id: Any) -> Verdict:
        findings = self._findings
        named = isinstance(name, str) and name != ""
        if not named:  # the FunctionCall schema requires a name: which tool would run?
            shown = "no name" if name is None else f"the name {_q(name)}, not a tool's name"
            findings.append(
                Finding.of(
                    "missing_name", index, (_call(index), f" has {shown}: which tool it would run is unknown"), call_id
                )
            )
        if self._one_schema is not None:
            why = self._one_schema
        else:
            # A namespace's tool (O19) when the tools declare one; else `namespace` is an extension field only.
            key = name
            if named and tool_key(name, item.get("namespace")) in self._table:
                key = tool_key(name, item.get("namespace"))
            if not self.unchecked_possible and named and key not in self._table:
                findings.append(
                    Finding.of(
                        "unknown_tool",
                        index,
                        (_item(index), f" calls {_q(key)}, which is not among the tools (known: {self._known})"),
                        call_id,
                    )
                )
            why = self._checked_as(key)
        verdict = judge(item, why) if self._memo is None else self._memo.verdict(item, why)
        if self._allowed is not None and named and name not in self._allowed:
            findings.append(
                Finding.of(
                    "tool_not_allowed", index, (_item(index), f" calls {_q(name)}, but {self._allowed_words}"), call_id
                )
            )
        if not isinstance(call_id, str) or not call_id:
            findings.append(
                Finding.of("missing_call_id", index, (_call(index), " has no call_id: its output cannot be paired"))
            )
        elif call_id in self._calls:
            findings.append(
                Finding.of(
                    "duplicate_call_id",
                    index,
                    (_item(index), f" reuses call_id {_q(call_id)} of ", _item(self._calls[call_id][0])),
                    call_id,
                )
            )
        else:
            status = item.get("status")
            self._calls[call_id] = (index, status)
            if status == RUNNABLE_STATUS:
                self._pending.append((index, call_id))
        return verdict


def _pair_output(
    index: int, call_id: Any, calls: dict[str, tuple[int, Any]], answered: dict[str, int], findings: list[Finding]
) -> None:
    if not isinstance(call_id, str) or not call_id:
        findings.append(
            Finding.of("missing_call_id", index, ("function_call_output ", _item(index), " has no call_id"))
        )
        return
    call = calls.get(call_id)
    if call is None:
        findings.append(
            Finding.of(
                "orphan_output",
                index,
                (_output(index), f" answers call_id {_q(call_id)}, which matches no earlier function_call"),
                call_id,
            )
        )
    elif call[1] != RUNNABLE_STATUS:
        shown = "missing" if call[1] is None else _q(call[1])
        findings.append(
            Finding.of(
                "output_for_unfinished_call",
                index,
                (_output(index), " answers ", _call(call[0]), f", whose status is {shown}, not {_q(RUNNABLE_STATUS)}"),
                call_id,
            )
        )
    if call_id in answered:
        findings.append(
            Finding.of(
                "duplicate_output",
                index,
                (_output(index), f" answers {_q(call_id)} again (first at ", _item(answered[call_id]), ")"),
                call_id,
            )
        )
    else:
        answered[call_id] = index


def _item(index: int) -> ItemRef:
    return ItemRef(index)


def _call(index: int) -> ItemRef:
    return ItemRef(index, "function_call")


def _output(index: int) -> ItemRef:
    return ItemRef(index, "function_call_output")


def _duplicate_finding(duplicate: Duplicate, call_id: Any = None) -> Finding:
    """``duplicate_member``: a member name given twice in the journal's text (RFC 8259 §4: names SHOULD be
    unique, and parsers differ on which value they keep). Issue 2's rule for arguments — ambiguous input must
    never run — applies to the envelope too: a parser keeping the first ``type`` or ``status`` may see a
    namespaced or unfinished item where this one (keeping the last) sees a completed call."""
    if not duplicate.pointer:  # counted in a very big text, not located
        return Finding.of(
            "duplicate_member", duplicate.index, duplicate.message, line=duplicate.line, column=duplicate.column
        )
    name = _q(pointer.split(duplicate.pointer)[-1])
    owner: str | ItemRef = _item(duplicate.index) if duplicate.index is not None else "the journal"
    scope = "item" if duplicate.index is not None else "journal"
    says = (
        owner,
        f" gives the member name {name} twice, at {duplicate.pointer} (the second at line "
        f"{duplicate.line}, column {duplicate.column}): this gate keeps the last value, a parser keeping "
        f"the first reads another {scope}; an ambiguous {scope} must never be replayed",
    )
    return Finding.of(
        "duplicate_member",
        duplicate.index,
        says,
        call_id,
        pointer=duplicate.pointer,
        line=duplicate.line,
        column=duplicate.column,
    )


def vouched_calls(items: Sequence[Any]) -> list[int]:
    """The indexes of the status-less calls of ``items`` that a client vouched for: each ``function_call`` whose
    ``status`` is missing or ``null`` and whose ``function_call_output`` (the same ``call_id`` string) comes *after*
    it in ``items``.

    ``FunctionCallItemParam.status`` is optional and nullable on input (Open Responses OpenAPI 2026-04-24), and
    clients such as the Vercel AI SDK and LangChain replay their calls without it (``docs/responses-api.md``,
    "Status-less replays"): a client that sends a call together with its output vouches that it ran it. An output
    *before* its call vouches for nothing (it is an ``orphan_output``: it answers no earlier call). A call that says
    ``in_progress`` or ``incomplete`` is never vouched for. The gate itself keeps the article's rule (``status``:
    only ``completed`` runs); what is vouched for is completed only where a caller chooses so (:func:`vouch`:
    ``/v1/responses`` on input, the Journal page's export when asked).

    :param items: the items in order; entries that are not objects are skipped.
    :return: the indexes, in order.
    """
    answered: set[str] = set()
    vouched: list[int] = []
    for index in range(len(items) - 1, -1, -1):  # from the end: an output counts for the calls before it
        item = items[index]
        if not isinstance(item, dict):
            continue
        kind, call_id = item.get("type"), item.get("call_id")
        if not isinstance(call_id, str):
            continue
        if kind == "function_call_output":
            answered.add(call_id)
        elif kind == "function_call" and item.get("status") is None and call_id in answered:
            vouched.append(index)
    vouched.reverse()
    return vouched


def vouch(items: Sequence[Any], vouched: Iterable[int] | None = None) -> list[Any]:
    """``items`` with each call :func:`vouched_calls` finds (or the indexes ``vouched`` given, from it) marked
    ``status: "completed"``: new dicts for those, the other items as they are (``items`` is not changed)."""
    marked = set(vouched_calls(items) if vouched is None else vouched)
    return [{**item, "status": RUNNABLE_STATUS} if index in marked else item for index, item in enumerate(items)]

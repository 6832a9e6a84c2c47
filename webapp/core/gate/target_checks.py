"""The rules of :data:`webapp.core.gate.targets.TARGET_RULES`, checked item by item, and OpenAI's native calls
judged as calls.

:class:`TargetChecks` is what :class:`webapp.core.gate.pairing.JournalChecker` runs beside the article's steps for
one target: it sees each item once (:meth:`TargetChecks.see`), keeps only what the rules need (ids seen, the calls
waiting for an output, the state of the current turn), and makes its findings at the item or at the end
(:meth:`TargetChecks.finish`). Each rule's id in docs/targets.md is named where it is checked.

Calls are calls (docs/targets.md O7, O11–O14): a ``custom_tool_call``'s ``input`` is checked against its custom
tool's ``format`` (:mod:`webapp.core.gate.grammar`); an ``mcp_call``'s ``arguments`` against the ``input_schema``
an ``mcp_list_tools`` item of the same journal lists for its ``server_label`` and ``name``, by the function_call
steps (:func:`webapp.core.gate.steps.judge_call`); a native call without its output is ``missing_output``, an
output (or ``mcp_approval_response``) that answers nothing is ``orphan_output``.

Where the target's writer makes messages of items (Anthropic, Gemini, Chat Completions), the kept items are put
in those messages as the writer does (:func:`_turn_key`), so that an output not right after its call's message is
found before the export (A4, C1, G4). What the writer repairs (a call id Anthropic refuses, tool results after the
user's words, a system message between turns) is a warning, never an error (A6, A7, A13, G5).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from webapp.core.gate.grammar import check_input, describe
from webapp.core.gate.report import Finding, ItemRef
from webapp.core.gate.steps import DEFAULT_MAX_DEPTH, Verdict, Why, judge_call, why_of
from webapp.core.gate.targets import ids_kept, issued_after_reasoning, item_policy, rule_for, sealed_owner
from webapp.core.gate.tools import FUNCTION_NAME, FUNCTION_NAME_RULE, GEMINI_FUNCTION_NAME, GEMINI_FUNCTION_NAME_RULE
from webapp.core.items import (
    ANTHROPIC_CALL_ID,
    CALL_STATUSES,
    COMPACTION_TRIGGER,
    CUSTOM_TOOL_CALL,
    NAMESPACE_TOOL,
    OPENAI_CALL_OUTPUTS,
    OPENAI_ID_PREFIXES,
    OPENAI_ITEM_TYPES,
    OPENAI_MAX_ID,
    OPENAI_NOT_INPUT,
    provider_of,
    tool_shape,
    type_kind,
)
from webapp.core.journal.settings import ENCRYPTED_REASONING
from webapp.core.json import quote as _q

__all__ = ["IDS_REQUIRED", "TargetChecks", "custom_tools"]

#: Native OpenAI types whose ``id`` the Responses API's input types require (docs/targets.md O10: the TypedDicts
#: of ``response_input_param.py``).
IDS_REQUIRED = frozenset(
    {
        "web_search_call",
        "file_search_call",
        "computer_call",
        "code_interpreter_call",
        "image_generation_call",
        "local_shell_call",
        "local_shell_call_output",
        "mcp_list_tools",
        "mcp_approval_request",
        "mcp_call",
    }
)
_OUTPUT_OF = {output: call for call, output in OPENAI_CALL_OUTPUTS.items()}
_CALLS_TOO = ("function_call",)  # the article's call, for the rules of the current turn

#: JSON's name for each parsed type that is not an object (A8's words).
_JSON_TYPES = {list: "an array", str: "a string", int: "a number", float: "a number", bool: "a boolean"}
_JSON_TYPES[type(None)] = "null"

#: Each target's grammar of a function's name, whole, with its words (docs/targets.md O15, C4: OpenAI's
#: ``FunctionDefinition.name``; A7: Anthropic's tool names, the same pattern; G8: Gemini's ``FunctionDeclaration``).
TOOL_NAMES = {
    "openai": (FUNCTION_NAME, FUNCTION_NAME_RULE),
    "chat_completions": (FUNCTION_NAME, FUNCTION_NAME_RULE),
    "anthropic": (FUNCTION_NAME, FUNCTION_NAME_RULE),
    "gemini": (GEMINI_FUNCTION_NAME, GEMINI_FUNCTION_NAME_RULE),
}


def _turn_key(target: str, side: str, current: str | None) -> tuple[str, bool] | None:
    """The message (turn) an item of ``side`` (``user``, ``assistant``, ``call``, ``output``) goes into when the
    target's writer puts it after a message of kind ``current``: ``(kind, joins)``, ``joins`` when it joins that
    message. ``None``: the target has no such rule (``portable``, ``openai``: items, not messages). As the writers
    do it (webapp/core/export/): Anthropic merges consecutive items of one role, outputs in the user's turn (A4,
    A6); Gemini too, but function responses form a user turn of their own (G4); Chat Completions joins calls to
    the assistant message before them and makes every other message apart, outputs as a run of tool messages (C1).
    """
    if target == "anthropic":
        kind = "assistant" if side in ("assistant", "call") else "user"
    elif target == "gemini":
        kind = {"assistant": "model", "call": "model", "output": "response"}.get(side, "user")
    elif target == "chat_completions":
        kind = {"assistant": "assistant", "call": "assistant", "output": "tool"}.get(side, "user")
        joins = kind == current and (side in ("call", "output"))
        return kind, joins
    else:
        return None
    return kind, kind == current


def _side(item_type: Any, role: Any) -> str | None:
    """Which side of a conversation an item is on, for :func:`_turn_key`: ``None`` for items no turn holds
    (system messages, which go to the request's system field; provider items)."""
    if item_type == "message":
        return {"user": "user", "assistant": "assistant"}.get(role) if isinstance(role, str) else None
    return {"function_call": "call", "function_call_output": "output", "reasoning": "assistant"}.get(item_type)


def custom_tools(tools: Iterable[Any] | None) -> dict[str, Any]:
    """The custom tools (``{"type": "custom", "name", "format"}``, docs/targets.md O12) among ``tools``, by name ->
    their ``format`` (``None`` when they have none: free text). The first of two of one name wins."""
    found: dict[str, Any] = {}
    for tool in tools or ():
        if isinstance(tool, dict) and tool.get("type") == "custom" and isinstance(tool.get("name"), str):
            found.setdefault(tool["name"], tool.get("format"))
    return found


def _ref(index: int, noun: str = "item") -> ItemRef:
    return ItemRef(index, noun)


class TargetChecks:
    """One target's rules over a journal, item by item.

    :param target: one of :data:`webapp.core.gate.targets.TARGETS`; ``source``: where the items came from.
    :param findings: the list the findings are added to (the journal checker's).
    :param tools: the journal's tools (custom tools are read from them); ``report_unknown``: a custom_tool_call
        naming no custom tool is an ``unknown_tool`` finding (as a function_call naming no tool is).
    :param store: the journal's ``store`` (``False``: docs/targets.md O3 applies).
    :param thinking: the target request enables thinking (A2); ``None``: on when the conversation holds Anthropic
        thinking; ``False``: off (the request disables it), whatever the conversation holds.
    :param include: the ``include`` of the request the journal came in, when known: O3's finding says whether it
        asked for ``reasoning.encrypted_content`` (without it, OpenAI's response held none to send back).
    """

    def __init__(
        self,
        target: str,
        source: str,
        findings: list[Finding],
        *,
        tools: Iterable[Any] | None = None,
        report_unknown: bool = True,
        store: Any = None,
        thinking: bool | None = None,
        max_depth: int = DEFAULT_MAX_DEPTH,
        format_assertion: bool = False,
        include: Iterable[str] | None = None,
    ) -> None:
        self.target, self.source, self._findings = target, source, findings
        self._custom = custom_tools(tools)
        self._report_unknown, self._store = report_unknown, store
        self._include = None if include is None else tuple(include)
        self._max_depth, self._format_assertion = max_depth, format_assertion
        self._ids: dict[str, int] = {}  # item id -> index of the first item with it (P3, O5)
        self._mcp_schemas: dict[tuple[str, str], Why] = {}  # (server_label, name) -> how its calls are checked
        self._native_calls: dict[str, tuple[int, str]] = {}  # call_id -> (index, type) of a native call
        self._native_answered: set[str] = set()
        self._native_pending: list[tuple[int, str, str]] = []  # (index, call_id, type) waiting for an output
        self._approvals: set[str] = set()  # ids of mcp_approval_request items
        # O1 / O2: the kept reasoning item waiting for its following item; a reasoning item that does not go.
        self._open_reasoning: int | None = None
        self._gone_reasoning: str | None = None
        # The current turn (since the last user message): A1, A2, G1.
        self._turn_first: int | None = None  # its first assistant-side item
        self._turn_first_thinks = False
        self._turn_calls: list[int] = []
        self._step_open = True  # the next call is the first of its step (G1)
        self._unsigned: list[int] = []  # first calls of a step without a thought signature (G1)
        self._thinking = bool(thinking)  # A2: thinking is on (asked, or the conversation holds Anthropic thinking)
        self._thinking_said = thinking is not None  # asked on or off: the conversation does not change it
        self._unsigned_thinking: list[int] = []  # Anthropic reasoning without its signature, this turn (A1)
        self._tail_thinking: int | None = None  # Anthropic thinking in the assistant run at the end so far (A2)
        # The messages the target's writer makes (A4, A6, C1, G3, G4): the current one, and where each call went.
        self._turn, self._turn_has_user = 0, False
        self._turn_kind: str | None = None
        self._turn_called: dict[str, tuple[int, int]] = {}  # call_id -> (turn, index) of a kept function_call
        self._idless: dict[str, tuple[int, str, int]] = {}  # G3: call_id -> (turn, name, place among its name)
        self._idless_calls: dict[tuple[int, str], int] = {}  # (turn, name) -> its id-less calls, counted
        self._idless_answers: dict[tuple[int, str], int] = {}  # (turn of the calls, name) -> their outputs, counted
        self._spoken = False  # an item other than a system message was kept (A13, G5)
        self._left_out_before: int | None = None  # O4: the first item left out
        self._prefix_told = False
        self._trigger: int | None = None  # O17: a compaction_trigger, until an item follows it
        self._tool_names(tools)

    def _add(self, code: str, index: int | None, says: tuple[str | ItemRef, ...], call_id: Any = None) -> None:
        if rule_for(code) is not None and rule_for(code, self.target) is None:
            return  # a target rule without a row for this target
        self._findings.append(Finding.of(code, index, says, call_id))

    def _tool_names(self, tools: Iterable[Any] | None) -> None:
        """O15, C4, A7, G8: each function tool's name against the target's grammar (:data:`TOOL_NAMES`); for
        ``openai`` the function tools inside a ``namespace`` tool too (O19)."""
        grammar = TOOL_NAMES.get(self.target)
        if grammar is None or not isinstance(tools, (list, tuple)):
            return
        pattern, words = grammar
        for i, tool in enumerate(tools):
            inner = tool.get("tools") if isinstance(tool, dict) and tool.get("type") == NAMESPACE_TOOL else None
            listed = inner if self.target == "openai" and isinstance(inner, list) else [tool]
            for j, each in enumerate(listed):
                shape = tool_shape(each)
                if shape is None or shape.name is None or pattern.fullmatch(shape.name):
                    continue
                where = f"tool {i}" if each is tool else f"tool {i} (namespace), its tool {j}"
                self._add(
                    "invalid_tool_name", None, (f"{where} is named {_q(shape.name)}: {self.target} takes only {words}",)
                )

    # ----------------------------------------------------------------------------------------------------------
    # Native calls: their verdicts

    def native_verdict(self, index: int, item: dict, item_type: str) -> Verdict | None:
        """The verdict of a native call with something to check (``custom_tool_call``, ``mcp_call``), else
        ``None`` (the item keeps the article's verdict: ``not_function_call``)."""
        if item_type == CUSTOM_TOOL_CALL:
            return self._custom_call(index, item)
        if item_type == "mcp_call":
            key: tuple[Any, Any] = (item.get("server_label"), item.get("name"))  # any JSON: checked below
            why = self._mcp_schemas.get(key) if all(isinstance(k, str) for k in key) else None
            if why is None:
                label = f"{_q(key[1])} of server {_q(key[0])}"
                why = why_of(None, False, f"{key[1]}", self._max_depth)
                verdict = judge_call(item, why)
                if verdict.reason == "arguments_schema":
                    verdict.message = f"no mcp_list_tools item before it lists {label}: its arguments are unchecked"
                return verdict
            return judge_call(item, why)
        return None

    def _custom_call(self, index: int, item: dict) -> Verdict:
        name, text = item.get("name"), item.get("input")
        if not isinstance(text, str):
            shown = "missing" if "input" not in item else type(text).__name__
            return Verdict("arguments_type", False, message=f"input is {shown}, not a string (docs/targets.md O12)")
        if not isinstance(name, str) or name not in self._custom:
            if self._report_unknown:
                known = ", ".join(_q(n) for n in self._custom) or "none"
                self._findings.append(
                    Finding.of(
                        "unknown_tool",
                        index,
                        (_ref(index), f" calls {_q(name)}, which is not among the custom tools (known: {known})"),
                        item.get("call_id"),
                    )
                )
            return Verdict("arguments_schema", False, message=f"no custom tool {_q(name)} to check the input against")
        fmt = self._custom[name]
        problem = check_input(text, fmt)
        if problem is None:
            return Verdict("ok", True, message=f"its input fits {describe(fmt)}: it may be executed")
        words = f"the format of {_q(name)} is unusable: " if problem.format_problem else ""
        return Verdict("arguments_schema", False, message=f"{words}{problem.message} (docs/targets.md O12)")

    # ----------------------------------------------------------------------------------------------------------
    # Every item

    def see(self, index: int, item: Any, verdict: Verdict) -> None:
        """Check ``item`` (at ``index``, gated as ``verdict``) against the target's rules, and keep what the rules
        of later items need."""
        if not isinstance(item, dict):
            return
        before = len(self._findings)
        item_type, item_id = item.get("type"), item.get("id")
        if isinstance(item_id, str):
            self._id(index, item_id)
        kind = type_kind(item_type)
        if kind == "unknown":  # P1: neither the spec's nor a provider's
            self._add(
                "unknown_type",
                index,
                (
                    _ref(index),
                    f" has type {_q(item_type)}, which the Open Responses spec does not define and no provider "
                    "prefix names: what it is, and what replaying it does, is unknown",
                ),
            )
        elif kind == "provider":
            assert isinstance(item_type, str)  # type_kind: a provider's type is a string
            self._native(index, item, item_type)
        policy = item_policy(item, self.target, self.source)
        kept = policy is None
        named = item_type if isinstance(item_type, str) else None  # a list or object as type names nothing
        if kept:
            self._id_rules(index, item, named)
            self._order_rules(index, item, named, verdict)
        elif self._left_out_before is None:
            self._left_out_before = index
        self._reasoning_rules(index, item, named, kept, before)
        self._turn_rules(index, item, named, kept)

    def _id(self, index: int, item_id: str) -> None:
        first = self._ids.get(item_id)
        if first is None:
            self._ids[item_id] = index
            return
        self._add(
            "duplicate_id",
            index,
            (_ref(index), f" has the id {_q(item_id)} of ", _ref(first), ": item ids are unique in a conversation"),
        )

    def _native(self, index: int, item: dict, item_type: str) -> None:
        if self.target != "openai":  # P1, O9: OpenAI's own item, sent unprefixed
            self._add(
                "provider_item",
                index,
                (
                    _ref(index),
                    f" is OpenAI's native {item_type} ({OPENAI_ITEM_TYPES[item_type]}): only OpenAI's Responses API "
                    f"takes it back; {self.target} gets it left out, and the conversation without it",
                ),
            )
        elif item_type in OPENAI_NOT_INPUT:  # O18
            self._add(
                "not_input_item",
                index,
                (
                    _ref(index),
                    f" is a {item_type}, which OpenAI's clients store but the Responses API refuses as input: send "
                    "its encrypted_content as a compaction item, or leave it out when it has none",
                ),
            )
        elif item_type in IDS_REQUIRED and not isinstance(item.get("id"), str):  # O10
            self._add(
                "missing_id",
                index,
                (_ref(index), f" is a {item_type} without its id: OpenAI's input type requires the id it issued"),
            )
        if item_type == "mcp_list_tools":
            self._list_tools(item)
        elif item_type == "mcp_approval_request" and isinstance(item.get("id"), str):
            self._approvals.add(item["id"])
        elif item_type == "mcp_approval_response":
            answered = item.get("approval_request_id")
            if not isinstance(answered, str) or answered not in self._approvals:
                self._findings.append(
                    Finding.of(
                        "orphan_output",
                        index,
                        (_ref(index), f" answers approval request {_q(answered)}, which matches no earlier request"),
                    )
                )
        elif item_type in OPENAI_CALL_OUTPUTS and item_type != "mcp_approval_request":
            self._native_call(index, item, item_type)
        elif item_type in _OUTPUT_OF:
            self._native_output(index, item, item_type)

    def _list_tools(self, item: dict) -> None:
        label, tools = item.get("server_label"), item.get("tools")
        if not isinstance(label, str) or not isinstance(tools, list):
            return
        for tool in tools:
            if isinstance(tool, dict) and isinstance(tool.get("name"), str) and "input_schema" in tool:
                schema = tool["input_schema"]
                if isinstance(schema, (dict, bool)):
                    why = why_of(schema, self._format_assertion, tool["name"], self._max_depth)
                    self._mcp_schemas.setdefault((label, tool["name"]), why)

    def _native_call(self, index: int, item: dict, item_type: str) -> None:
        if item_type == "tool_search_call" and item.get("execution") != "client":
            return  # a server-executed search has no output to wait for (O14)
        call_id = item.get("call_id")
        if not isinstance(call_id, str) or not call_id:
            return
        if call_id not in self._native_calls:
            self._native_calls[call_id] = (index, item_type)
            self._native_pending.append((index, call_id, item_type))

    def _native_output(self, index: int, item: dict, item_type: str) -> None:
        call_id = item.get("call_id")
        call = self._native_calls.get(call_id) if isinstance(call_id, str) else None
        if call is None:
            self._findings.append(
                Finding.of(
                    "orphan_output",
                    index,
                    (_ref(index), f" answers call_id {_q(call_id)}, which matches no earlier {_OUTPUT_OF[item_type]}"),
                    call_id,
                )
            )
            return
        assert isinstance(call_id, str)  # a call was found for it, which only a string call_id can find
        self._native_answered.add(call_id)

    def user_message(self, index: int) -> None:
        """A user message at ``index``: native calls still without their output are ``missing_output`` (O7, O11,
        O14), as function calls are; the current turn starts again."""
        self._missing(f"before the user message at item {index}")
        self._end_turn()
        self._tail_thinking = None

    def _missing(self, when: str, code: str = "missing_output") -> None:
        for call_index, call_id, item_type in self._native_pending:
            if call_id not in self._native_answered:
                self._findings.append(
                    Finding.of(
                        code,
                        call_index,
                        (
                            _ref(call_index, item_type),
                            f" ({_q(call_id)}) has no {OPENAI_CALL_OUTPUTS[item_type]} {when}",
                        ),
                        call_id,
                    )
                )
        self._native_pending = []

    # ----------------------------------------------------------------------------------------------------------
    # Ids (O8, O16, A7) and the order of kept items (O4, O17, O19, A4, A6, A8, A13, G3, G4, G5, C1)

    def _id_rules(self, index: int, item: dict, item_type: str | None) -> None:
        item_id, call_id = item.get("id"), item.get("call_id")
        if self.target == "openai":
            if isinstance(item_id, str) and ids_kept(self.target, self.source):
                self._openai_id(index, item, item_type, item_id)
            if isinstance(call_id, str) and len(call_id) > OPENAI_MAX_ID:  # O16: call ids always go
                self._add(
                    "id_too_long",
                    index,
                    (_ref(index), f" has a call_id of {len(call_id)} characters: OpenAI takes {OPENAI_MAX_ID} at most"),
                    call_id,
                )
        elif self.target == "anthropic" and item_type == "function_call" and isinstance(call_id, str):
            if not ANTHROPIC_CALL_ID.fullmatch(call_id):  # A7: the writer changes it, on its output too
                self._add(
                    "call_id_rewritten",
                    index,
                    (
                        _ref(index),
                        f" has the call id {_q(call_id)}, which Anthropic refuses (only letters, digits, '_' and "
                        "'-'): the export writes another id, the same on its tool_result",
                    ),
                    call_id,
                )

    def _openai_id(self, index: int, item: dict, item_type: str | None, item_id: str) -> None:
        """O16: an id OpenAI keeps has its type's prefix and 64 characters at most; O8: an assistant message that
        keeps its id is the output form, which needs its ``status``."""
        prefix = OPENAI_ID_PREFIXES.get(item_type) if item_type is not None else None
        if prefix is not None and not item_id.startswith(prefix):
            self._add(
                "id_prefix",
                index,
                (
                    _ref(index),
                    f" is a {item_type} with the id {_q(item_id)}: OpenAI expects an id that begins with {_q(prefix)}",
                ),
            )
        if len(item_id) > OPENAI_MAX_ID:
            self._add(
                "id_too_long",
                index,
                (_ref(index), f" has an id of {len(item_id)} characters: OpenAI takes {OPENAI_MAX_ID} at most"),
            )
        if item_type == "message" and item.get("role") == "assistant" and item.get("status") not in CALL_STATUSES:
            self._add(
                "message_without_status",
                index,
                (
                    _ref(index),
                    f" is an assistant message with its id {_q(item_id)} but no status: OpenAI's output message "
                    "form requires both (without the id it goes in the short form)",
                ),
            )

    def _order_rules(self, index: int, item: dict, item_type: str | None, verdict: Verdict) -> None:
        if self._trigger is not None:  # O17: something follows the compaction_trigger
            self._add(
                "compaction_trigger_not_last",
                self._trigger,
                (
                    _ref(self._trigger),
                    " is a compaction_trigger, which must be the final input item, but ",
                    _ref(index),
                    " follows it",
                ),
            )
            self._trigger = None
        if item_type == COMPACTION_TRIGGER:
            self._trigger = index
        if item_type == "reasoning" and self._left_out_before is not None and not self._prefix_told:
            if sealed_owner(item, self.source) == "openai":  # O4
                self._prefix_told = True
                self._add(
                    "reasoning_prefix_changed",
                    index,
                    (
                        _ref(index),
                        " is OpenAI reasoning after ",
                        _ref(self._left_out_before),
                        ", which does not go: OpenAI drops reasoning whose earlier history changed (this one and "
                        "those after it), without an error",
                    ),
                )
        if item_type in ("function_call", CUSTOM_TOOL_CALL) and isinstance(item.get("namespace"), str):
            self._add(  # O19
                "namespace_left_out",
                index,
                (
                    _ref(index),
                    f" calls {_q(item.get('name'))} of OpenAI's namespace {_q(item['namespace'])}: {self.target} "
                    "has no namespaces, so the call goes by its name alone",
                ),
                item.get("call_id"),
            )
        role = item.get("role")
        if item_type == "message" and role in ("system", "developer"):
            if self._spoken and self.target in ("anthropic", "gemini"):  # A13, G5
                field = "system" if self.target == "anthropic" else "systemInstruction"
                self._add(
                    "system_moved",
                    index,
                    (
                        _ref(index),
                        f" is a {role} message between turns: {self.target} has no such role, so the "
                        f"export moves it to {field}, before the whole conversation",
                    ),
                )
            if self.target == "chat_completions":  # a message of its own there, between the others (C1)
                self._place(index, item, "system")
            return
        self._spoken = True
        if item_type == "function_call":
            self._arguments_object(index, item, verdict)
        side = _side(item_type, role)
        if side is not None:
            self._place(index, item, side)

    def _arguments_object(self, index: int, item: dict, verdict: Verdict) -> None:
        """A8: Anthropic's ``tool_use.input`` (and Gemini's ``functionCall.args``) is an object, never a string. The
        arguments as the article's steps parsed them (not parsed again: they may be as deep as the parse allows)."""
        if verdict.reason not in ("ok", "arguments_schema") or isinstance(verdict.arguments, dict):
            return  # not parsed (the article's reason says why), or an object
        kind = _JSON_TYPES.get(type(verdict.arguments), "a value")
        self._add(
            "arguments_not_object",
            index,
            (
                _ref(index),
                f" has arguments that are {kind}, not a JSON object: {self.target} takes a call's arguments as an "
                "object only",
            ),
            item.get("call_id"),
        )

    def _place(self, index: int, item: dict, side: str) -> None:
        """Put the item in the message the target's writer makes (:func:`_turn_key`) and check where it lands."""
        key = _turn_key(self.target, side, self._turn_kind)
        if key is None:
            return
        kind, joins = key
        if not joins:
            self._turn += 1
            self._turn_has_user = False
        self._turn_kind = kind
        call_id = item.get("call_id")
        if side == "call" and isinstance(call_id, str):
            if self.target == "gemini" and self._turn == 1:  # G4: nothing before the first model turn
                self._add(
                    "call_turn_misplaced",
                    index,
                    (
                        _ref(index),
                        " is a call in the first turn of the conversation: Gemini wants a function call "
                        "turn right after a user turn or a function response turn",
                    ),
                    call_id,
                )
            self._turn_called.setdefault(call_id, (self._turn, index))
            if item.get("gemini:call_id_generated") and isinstance(item.get("name"), str):  # G3
                seen = self._idless_calls.get((self._turn, item["name"]), 0)
                self._idless[call_id] = (self._turn, item["name"], seen)
                self._idless_calls[(self._turn, item["name"])] = seen + 1
        elif side == "output" and isinstance(call_id, str) and call_id in self._turn_called:
            self._output_place(index, call_id)
        elif side == "user":
            self._turn_has_user = True

    def _output_place(self, index: int, call_id: str) -> None:
        turn, call_index = self._turn_called[call_id]
        if self._turn != turn + 1:  # A4, C1, G4
            self._add(
                "output_not_adjacent",
                index,
                (
                    _ref(index),
                    f" answers {_q(call_id)} of ",
                    _ref(call_index),
                    f", but something else stands between them: {self.target} wants the outputs right after the "
                    "message with the calls",
                ),
                call_id,
            )
        elif self._turn_has_user:  # A6
            self._add(
                "results_reordered",
                index,
                (
                    _ref(index),
                    " comes after the user's own words in its message: the export puts tool results "
                    "first, as Anthropic requires",
                ),
                call_id,
            )
        idless = self._idless.get(call_id)
        if idless is not None:  # G3: id-less responses are matched by order
            _, name, place = idless
            order = self._idless_answers.get((turn, name), 0)
            self._idless_answers[(turn, name)] = order + 1
            if order != place:
                self._add(
                    "paired_by_position",
                    index,
                    (
                        _ref(index),
                        f" answers the id-less call {_q(call_id)} of {_q(name)} out of order: Gemini pairs "
                        "responses of id-less calls of one name by their order, so it reads as another call's",
                    ),
                    call_id,
                )

    # ----------------------------------------------------------------------------------------------------------
    # Reasoning (O1, O2, O3) and the current turn (A1, A2, G1)

    def _refused_here(self, index: int, before: int) -> bool:
        """An error finding made since ``before`` names the item at ``index``: it does not go."""
        return any(f.index == index and f.severity == "error" for f in self._findings[before:])

    def _reasoning_rules(self, index: int, item: dict, item_type: Any, kept: bool, before: int) -> None:
        if self._open_reasoning is not None and item_type != "reasoning":
            if not (kept and issued_after_reasoning(item)):
                self._no_following(self._open_reasoning, index)
            self._open_reasoning = None
        if item_type == "reasoning":
            if self._open_reasoning is not None:
                self._no_following(self._open_reasoning, index)
            stored = isinstance(item.get("encrypted_content"), str)
            if kept and self._store is False and not stored:  # O3
                self._add(
                    "reasoning_not_stored",
                    index,
                    (
                        _ref(index),
                        " is a reasoning item without its encrypted_content in a conversation with store: false: "
                        "OpenAI kept nothing, so an id alone refers to nothing" + self._include_words(),
                    ),
                )
            goes = kept and not self._refused_here(index, before)
            self._open_reasoning = index if goes else None
            item_id = item.get("id")
            self._gone_reasoning = None if goes else (item_id if isinstance(item_id, str) else "a reasoning item")
            return
        if self._gone_reasoning is not None and issued_after_reasoning(item):
            item_id = item.get("id")
            if kept and isinstance(item_id, str) and self.source == "openai":  # O2
                self._add(
                    "reasoning_missing",
                    index,
                    (
                        _ref(index),
                        f" ({_q(item_id)}) was issued with the reasoning item {_q(self._gone_reasoning)}, which "
                        "does not go: OpenAI refuses it without that reasoning item",
                    ),
                )
        elif not issued_after_reasoning(item):
            self._gone_reasoning = None

    def _include_words(self) -> str:
        """O3: what the request's ``include`` says of the missing ``encrypted_content``."""
        if self._include is None:
            return ""
        if ENCRYPTED_REASONING in self._include:
            return f" (the request asked for include {_q(ENCRYPTED_REASONING)}: the content was removed since)"
        return f" (the request did not ask for include {_q(ENCRYPTED_REASONING)}, so its response held none)"

    def _no_following(self, reasoning: int, index: int | None) -> None:
        after = "at the end of the conversation" if index is None else "before item " + str(index)
        self._add(
            "reasoning_without_following_item",
            reasoning,
            (
                _ref(reasoning),
                f" is a reasoning item without the item OpenAI issued after it ({after}): OpenAI refuses a "
                "reasoning item without its required following item",
            ),
        )

    def _turn_rules(self, index: int, item: dict, item_type: Any, kept: bool) -> None:
        role = item.get("role")
        if item_type == "message" and role == "user":
            return  # the checker calls user_message()
        if item_type == "function_call_output" or item_type in _OUTPUT_OF:
            self._step_open = True
            self._tail_thinking = None  # a result: the user's turn, so the assistant's is not the last one
            return
        assistant_side = item_type == "reasoning" or issued_after_reasoning(item) or provider_of(item_type)
        anthropic_thinking = item_type == "reasoning" and sealed_owner(item, self.source) == "anthropic"
        if item_type == "reasoning" and self.source == "anthropic" and not anthropic_thinking:
            self._unsigned_thinking.append(index)  # A1: thinking that lost its signature (left out, so flagged)
        if not assistant_side or not kept:
            return
        if anthropic_thinking and not self._thinking_said:
            self._thinking = True
        if anthropic_thinking and self._tail_thinking is None:
            self._tail_thinking = index
        if self._turn_first is None:
            self._turn_first, self._turn_first_thinks = index, anthropic_thinking
        if item_type in _CALLS_TOO or OPENAI_ITEM_TYPES.get(item_type) == "call":
            self._turn_calls.append(index)
            if item_type == "function_call" and self._step_open and "gemini:thought_signature" not in item:
                self._unsigned.append(index)
            self._step_open = False

    def _end_turn(self) -> None:
        self._turn_first, self._turn_first_thinks = None, False
        self._turn_calls, self._unsigned, self._unsigned_thinking = [], [], []
        self._step_open = True

    def finish(self) -> None:
        """The end of the conversation: the rules about its last item and its current turn."""
        if self._open_reasoning is not None:
            self._no_following(self._open_reasoning, None)
            self._open_reasoning = None
        if self._thinking_said and not self._thinking and self._tail_thinking is not None:  # A2, thinking off
            self._add(
                "thinking_not_enabled",
                self._tail_thinking,
                (
                    "with thinking off, the assistant message in the final position may not contain thinking, but ",
                    _ref(self._tail_thinking),
                    " is Anthropic thinking there: enable thinking, or end the conversation with the user's turn",
                ),
            )
        if self.target == "openai":  # O7: OpenAI refuses a call without its output, last turn included
            self._missing(
                "yet: run it and append its output before sending (OpenAI refuses a call without it)", "output_required"
            )
        if self._turn_calls:
            for index in self._unsigned_thinking:  # A1
                self._add(
                    "thinking_signature_missing",
                    index,
                    (
                        _ref(index),
                        " is Anthropic thinking of the current tool loop without its signature: it must go back "
                        "complete and unchanged",
                    ),
                )
            if self._thinking and not self._turn_first_thinks and self._turn_first is not None:  # A2
                self._add(
                    "thinking_required",
                    self._turn_first,
                    (
                        "with thinking on, the final assistant turn must start with a thinking block, but it starts "
                        "at ",
                        _ref(self._turn_first),
                        ", which is not Anthropic thinking: keep the original thinking block, or disable thinking",
                    ),
                )
            for index in self._unsigned:  # G1
                self._add(
                    "thought_signature_missing",
                    index,
                    (
                        _ref(index, "function_call"),
                        " is a call of the current turn without its gemini:thought_signature: Gemini 3 refuses "
                        "it (the first call of each step carries one)",
                    ),
                )
        self._end_turn()

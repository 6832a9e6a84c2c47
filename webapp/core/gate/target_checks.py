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
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from webapp.core.gate.grammar import check_input, describe
from webapp.core.gate.report import Finding, ItemRef
from webapp.core.gate.steps import DEFAULT_MAX_DEPTH, Verdict, Why, judge_call, why_of
from webapp.core.gate.targets import issued_after_reasoning, item_policy, rule_for, sealed_owner
from webapp.core.items import CUSTOM_TOOL_CALL, OPENAI_CALL_OUTPUTS, OPENAI_ITEM_TYPES, provider_of, type_kind
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

    def _add(self, code: str, index: int | None, says: tuple[str | ItemRef, ...], call_id: Any = None) -> None:
        rule = rule_for(code)
        if rule is not None and self.target not in rule.targets:
            return
        self._findings.append(Finding.of(code, index, says, call_id))

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

"""The gate's policy for the input of a ``/v1/responses`` request: which item it refuses, and with which error code.

The request's input items are checked as a journal (:func:`webapp.core.gate.check_journal`) after the items of the
responses it continues, which take part in pairing (an output may answer a call made there) but are not judged
again. The first problem in input order is the answer (``docs/responses-api.md``, "The gate on input"); its code
is the gate's reason or finding, with two rules of this endpoint on top:

* a call of a tool the request does not offer is ``unknown_tool`` (the gate's reason alone would be
  ``arguments_schema``: no schema to check it against);
* a call the gate lets run must still have arguments that encode a JSON object (a tool's parameters describe an
  object), else ``arguments_schema``.

A status-less call is vouched for before this check (:func:`webapp.core.gate.vouch`); one that is not is refused
with ``status``, and the message says what would have vouched for it.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from webapp.core.gate.pairing import check_journal
from webapp.core.gate.report import ItemRef
from webapp.core.gate.steps import DEFAULT_MAX_DEPTH

__all__ = ["InputRefusal", "refuse_input"]


@dataclass(frozen=True)
class InputRefusal:
    """Why the gate refuses a request's input: answered as ``400 invalid_request_error``.

    :ivar code: the error's ``code``: the gate's reason or finding (``status``, ``unknown_tool``, ``orphan_output``…).
    :ivar param: the item, in the request's terms: ``input[k]``.
    :ivar message: one sentence naming ``param`` and ``code``.
    """

    code: str
    param: str
    message: str


def refuse_input(
    earlier: Sequence[dict[str, Any]],
    items: Sequence[dict[str, Any]],
    tools: Sequence[dict[str, Any]],
    *,
    tools_sent: bool = True,
    max_depth: int = DEFAULT_MAX_DEPTH,
) -> InputRefusal | None:
    """The first problem the gate finds in a request's input ``items``, in input order, or ``None``.

    :param earlier: the items of the responses the request continues (``previous_response_id``), in order.
    :param items: the request's input items, ``item_reference`` resolved and status-less calls vouched for.
    :param tools: the function tool definitions in effect (flat ``{type: "function", name, parameters}``).
    :param tools_sent: ``False`` when neither the request nor a previous response sent tools: an unknown tool's
        message then asks for the tools the call was made with instead of listing the tools.
    :param max_depth: nesting limit of each call's parsed ``arguments``.
    :return: an :class:`InputRefusal` (on an item's verdict before a finding about the same item), or ``None``.
    """
    context = [*earlier, *items]
    report = check_journal(context, list(tools), max_depth=max_depth)
    offset = len(earlier)

    def place(ref: ItemRef) -> str:
        # The gate counts items over the whole context; the client knows its input and its earlier responses.
        return f"input[{ref.index - offset}]" if ref.index >= offset else "an item of an earlier response"

    problems: list[tuple[int, int, str, str]] = []  # (index, rank, code, message)
    unknown = {f.index for f in report.findings if f.code == "unknown_tool"}
    for verdict in report.items[offset:]:
        if verdict.blocks_replay:
            code = verdict.reason
            message = verdict.message
            if code == "arguments_schema" and verdict.index in unknown:
                code = "unknown_tool"
                offered = ", ".join(tool["name"] for tool in tools)
                message = f"calls {verdict.name!r}, which is not among the tools " + (
                    f"({offered})" if tools_sent else "(send the tools the call was made with)"
                )
            elif code == "status" and context[verdict.index].get("status") is None:
                message += (
                    "; a call replayed without status is accepted only with its function_call_output "
                    "after it in the same input"
                )
            problems.append((verdict.index, 0, code, message))
        elif (
            verdict.type == "function_call"
            and verdict.verdict is not None
            and not isinstance(verdict.verdict.arguments, dict)
        ):
            # Function arguments are a JSON object (a tool's parameters describe an object).
            problems.append((verdict.index, 0, "arguments_schema", "arguments must encode a JSON object"))
    for finding in report.findings:
        if (
            finding.severity == "error"
            and finding.index is not None
            and finding.index >= offset
            and finding.code != "unknown_tool"
        ):
            problems.append((finding.index, 1, finding.code, finding.describe(place)))
    if not problems:
        return None
    index, _, code, message = min(problems, key=lambda p: (p[0], p[1]))
    where = f"input[{index - offset}]"
    return InputRefusal(code, where, f"{where}: the replay gate refuses this item ({code}): {message}")

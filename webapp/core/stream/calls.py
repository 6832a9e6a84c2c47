"""The replay gate on every finished ``function_call`` of a stream: would a client that stored this call be let
to run it? (:mod:`webapp.core.gate`, against the parameters of the tool the response's ``tools`` names.)

A call's verdict is data (:class:`CallVerdict`). A *completed* call the gate refuses for its arguments (not a
string, not I-JSON, not valid against the tool's parameters, or no tool of that name) is a ``gate_refused``
finding: the server made a call no client can run. A call that is not completed (an ``incomplete`` one cut by
``max_output_tokens``) is refused for its ``status`` as it must be; that is reported by the status rules, if wrong.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from webapp.core.gate import check_item, tool_schema
from webapp.core.items import FUNCTION_CALL, RUNNABLE_STATUS

__all__ = ["CallVerdict", "gate_call"]


@dataclass(frozen=True)
class CallVerdict:
    """The gate's answer for one finished call.

    :ivar index: the frame of the event that finished it (``output_item.done``, else the terminal event).
    :ivar item: the call as it finished; :ivar reason: one of the gate's reasons; :ivar message: its words.
    :ivar refused: whether it is a ``gate_refused`` finding (a completed call refused for its arguments).
    """

    index: int
    item: dict[str, Any]
    reason: str
    message: str
    refused: bool

    @property
    def name(self) -> Any:
        """The call's ``name`` as it finished (any JSON value)."""
        return self.item.get("name")

    @property
    def call_id(self) -> Any:
        """The call's ``call_id`` as it finished (any JSON value)."""
        return self.item.get("call_id")

    def as_dict(self) -> dict[str, Any]:
        """JSON-ready: ``event``, ``id``, ``call_id``, ``name``, ``status``, ``reason``, ``message``."""
        return {
            "event": self.index,
            "id": self.item.get("id"),
            "call_id": self.call_id,
            "name": self.name,
            "status": self.item.get("status"),
            "reason": self.reason,
            "message": self.message,
        }


def gate_call(item: dict[str, Any], tools: Any, index: int, *, max_depth: int = 100) -> CallVerdict | None:
    """The gate's verdict on ``item`` when it is a ``function_call`` (else ``None``).

    :param tools: the response's ``tools`` (its ``parameters`` are the schemas; a call naming no tool there is
        refused ``arguments_schema``: nothing says what its arguments must be).
    :param index: the frame that finished the call.
    """
    if not isinstance(item, dict) or item.get("type") != FUNCTION_CALL:
        return None
    name = item.get("name")
    schema = tool_schema(tools if isinstance(tools, list) else [], name)
    verdict = check_item(item, schema, tool_name=name if isinstance(name, str) else None, max_depth=max_depth)
    refused = item.get("status") == RUNNABLE_STATUS and not verdict.ok
    message = verdict.message
    if verdict.schema_problem is not None:
        message = f"the tool's parameters are unusable: {verdict.schema_problem}"
    return CallVerdict(index, item, verdict.reason, message, refused)

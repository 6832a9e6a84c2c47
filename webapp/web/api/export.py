"""``POST /api/export``: a conversation as the request body a target provider accepts.

Request::

    {"journal": <JSON value> | "<JSON or JSON Lines text>",
     "from": "auto" | <a SOURCES value>,             (default "auto")
     "target": "portable" | "openai" | "anthropic" | "gemini" | "chat_completions",   (default "portable")
     "tools": [...],                                  (optional: tool definitions in any provider's shape)
     "thinking": true | false | {"type": "enabled", "budget_tokens": 1024} | …,   (optional: over the text's)
     "store": true | false}                                                       (optional: over the text's)

Answer (:meth:`webapp.core.export.Export.as_dict`)::

    {"target", "replayable", "answer", "says", "unchecked", "body": {...} | null, "reason": null | "<why no body>",
     "left_out": [{"index", "pointer", "code", "words"}], "repairs": [{"index", "pointer", "code", "words", "op",
     "value"}], "patch": [<RFC 6902 operations>], "left_out_notes": {code: words},
     "notes": [{"index", "pointer", "code", "message"}]}

``body`` holds what the gate's plan for the target keeps (docs/targets.md, "What each target keeps and leaves out"):
``{"input"}`` for ``portable``/``openai``, ``{"system", "messages", "tools"}`` for ``anthropic``,
``{"systemInstruction", "contents", "tools"}`` for ``gemini``, ``{"messages", "tools"}`` for ``chat_completions``.
When the conversation came in a request (or a response echoing its settings), ``body`` is the whole request: the
model, the output limit and the settings go with it to a target of the same API as they came (the model to the
provider that named it only); every one not carried is a ``setting_left_out`` note, a member the target requires
that no one gave a ``setting_required`` note (docs/targets.md, "What is read from the request"). ``thinking`` and
``store`` are as ``POST /api/gate`` takes them.

``replayable`` false: a finding stops the replay of the journal as it is (``POST /api/gate`` with the same body says
which); ``null``: cannot tell, calls were not checked because no tool definitions were given (``answer``, ``says``
and ``unchecked`` as ``/api/gate`` gives them). ``patch`` is what the plan changed, from the journal's items to the
items sent (what a user applies to their own store); ``body`` is ``null``, and ``reason`` says why, when the gate can
offer no body the target would take. Bad input is a 400 naming the member, as ``/api/gate`` answers it; so is a
member this route does not read (:data:`MEMBERS`).
"""

from __future__ import annotations

from typing import Any

from flask import Blueprint

from webapp.core.convert import ConvertError
from webapp.core.export import export
from webapp.web.api.gate import (
    journal_from_body,
    refuse_duplicates,
    request_body,
    settings_params,
    source_of,
    target_param,
    tools_param,
)
from webapp.web.errors import ApiError
from webapp.web.limits import parse_limits

bp = Blueprint("export", __name__, url_prefix="/api")

#: The members a body may have; any other is a 400 naming it (``unknown_parameter``).
MEMBERS = ("journal", "from", "target", "tools", "thinking", "store")


@bp.post("/export")
def export_journal() -> Any:
    """Judge the posted ``journal`` for ``target`` and answer the body it accepts (see the module docstring)."""
    body, duplicates = request_body(MEMBERS, "/api/export", '{"journal": ..., "target": "anthropic"}')
    refuse_duplicates(duplicates, ("journal", "tools"))
    if "journal" not in body:
        raise ApiError(
            "journal is required: the conversation, as JSON or as JSON / JSON Lines text.",
            param="journal",
            code="missing_required_parameter",
        )
    target = target_param(body)
    max_depth = parse_limits().max_depth
    thinking, store = settings_params(body)
    journal, conversion = journal_from_body(body, duplicates, max_depth)
    journal.settings = journal.settings.asking(thinking=thinking, store=store)
    tools = tools_param(body)
    if tools is None and conversion is not None:
        tools = conversion.tools
    try:
        answer = export(
            journal,
            target=target,
            tools=tools,
            source=source_of(body, conversion),
            max_depth=max_depth,
        )
    except ConvertError as err:
        raise ApiError(f"tools{err.pointer}: {err.message}", param="tools", code="invalid_value") from None
    return answer.as_dict()

"""``POST /api/gate``: the replay gate over HTTP, for one item or a whole journal.

One item::

    {"item": {...}, "schema": {...}, "format_assertion": false}
    {"item": {...}, "tools": [...]}          (the schema of the tool the item names)

``schema`` may also be a tool definition or a list of them, as the Schema page takes them: they are read as
``tools`` (a call of another name has no schema: ``arguments_schema``, or ``unknown_tool`` in a journal).
    -> {"reason", "label", "ok", "message", "errors": [{"pointer", "keyword", "schema_path", "message"}],
        "parse_error": null | {"message", "code", "line", "column"},
        "schema_error": null | {"message", "pointer", "keyword"}, "dialect": "2020-12" | null,
        "refused_by": [...], "findings": [{"code", "message", "severity", ...}]}

``label`` is what the pages call it: the reason, ``not checked`` for a call given neither ``schema`` nor ``tools``
(nothing refuses it, nothing could check it), ``provider item`` for a namespaced item the target takes back, or
``refused``. ``reason`` is the gate's (the replay-gate article's codes); ``ok`` is true only when it is ``ok`` and no
error finding stops the item, as a journal's check of it would find (:func:`webapp.core.gate.check_one`): a
``function_call`` without a ``call_id`` (``missing_call_id``: its output cannot be paired) or a ``name``
(``missing_name``: which tool would run?), a Chat Completions envelope; ``refused_by`` lists their codes.

Referenced schemas: ``"schemas"`` — a list of schema documents, each known by its ``$id``, or an object
``{"<absolute URI>": schema}`` — supplies the documents that ``schema`` and the tools' parameters ``$ref`` by URI;
they are resolved locally (:func:`webapp.core.schema.bundle`), never fetched. ``"output": "flag" | "basic" |
"detailed"`` (one item) adds ``"output"``: the arguments' validation in that JSON Schema 2020-12 output format
(core §12), ``null`` when the arguments were not validated; without it the answer is as above.

A journal (``items`` as a JSON array, or ``journal`` as any shape :func:`webapp.core.journal.load_journal` accepts —
parsed JSON, or text of JSON / JSON Lines)::

    {"items": [...], "tools": [...], "tool_choice": ..., "schema": ...}
    {"journal": [...] | {...} | "<JSON or JSON Lines text>", "tools": [...]}
    -> {"replayable", "answer", "says", "unchecked", "target", "source", "shape", "counts",
        "items": [{"index", "id", "type", "reason", "label", "ok", "disposition", "message", "errors"}],
        "findings": [{"code", "index", "call_id", "message", "severity", "pointer", "line", "column"}],
        "left_out": [{"index", "pointer", "code", "words"}], "left_out_notes": {code: words}}

``"target"`` (both forms) says where the item or the conversation is replayed: ``portable`` (the default: any
Open Responses server), ``openai``, ``anthropic``, ``gemini`` or ``chat_completions``
(:data:`webapp.core.gate.TARGETS`); ``replayable`` and ``ok`` are then about that target, each item has its
``disposition`` there (``keep``, ``leave_out``, ``refused``), and the target's rules add their findings
(docs/targets.md). Another value is a 400 naming ``target``.

A journal has one of three answers (``answer``, in words ``says``, the same the pages and the CLI give):
``replayable`` (``replayable: true``), ``not replayable`` (``false``: an item or an error finding stops it) or
``cannot tell`` (``null``: nothing refuses it, but calls were not checked because no tool definitions were given;
``unchecked`` maps each tool name to its calls not checked, and one ``not_checked`` finding says so). Everything
before the schema step still runs and can still refuse.

A journal is judged with the settings of the request it came in (docs/targets.md, "What is read from the request":
Anthropic's ``thinking``, the Responses API's ``store`` and ``include``, Gemini's ``thinkingConfig``), where the
target takes them. ``"thinking"`` (``true`` / ``false``, or Anthropic's object ``{"type": "enabled",
"budget_tokens": 1024}``, ``{"type": "disabled"}``, ``{"type": "adaptive"}``) and ``"store"`` (``true`` /
``false``) say what the replayed request will have, over what the text says; the answer's ``"settings":
{"thinking", "store"}`` is what the verdict counted (``null``: not said). A bad value is a 400 naming the member,
the message its JSON Pointer (``/thinking/budget_tokens``); with ``item`` they are a 400 (one item is judged alone).

Malformed requests get 400 in the one error shape (:mod:`webapp.web.errors`) naming the parameter (a member not
in :data:`MEMBERS`, ``"tool"`` for ``"tools"``: 400 ``unknown_parameter`` naming it); bodies over
``MAX_CONTENT_LENGTH`` get 413. ``JSON_MAX_DEPTH`` (:mod:`webapp.web.limits`) limits the nesting of the body, of a
journal sent as text and of each call's ``arguments``: deeper arguments are ``arguments_parse``.

The body is read as plain JSON, not I-JSON, so that the answer can be about an item holding a lone surrogate or
duplicate member names inside its ``arguments`` string (``arguments_parse``). A member name given twice in the
body itself is never passed over, since parsers disagree on which value counts (a parser keeping the first
``"type"`` or ``"status"`` may see a namespaced or unfinished item where this one sees a completed call):

* inside the journal (``items``, or ``journal`` sent as parsed JSON or as text): a ``duplicate_member`` finding
  (an error, so ``replayable`` is false) with the item ``index`` (``null`` outside the items), the member's
  ``pointer`` and the ``line``/``column`` of its second occurrence — in the request body, or in the ``journal``
  text when the journal is sent as text;
* inside ``item``: 400 ``duplicate_member``, ``param`` ``"item"``, the message naming the pointer and
  line:column. Not a verdict: the answer's ``reason`` keeps the replay-gate article's codes, none of which says
  "ambiguous", and a client reading only ``reason``/``ok`` must not be told ``ok`` about an item that another
  parser reads differently;
* in the request's own members or in what the item is judged against (``schema``, ``tools``, ``tool_choice``):
  400 ``duplicate_member`` naming that parameter — it is unclear what was asked.
"""

from __future__ import annotations

from typing import Any

from flask import Blueprint

from webapp.core.convert import SOURCES, Conversion, ConvertError, placed, read_journal
from webapp.core.gate import TARGETS, check_journal, check_one, read_schema_field, the_item, tool_schema
from webapp.core.items import tool_shape
from webapp.core.journal import Journal, from_value
from webapp.core.journal.settings import SettingError, store_option, thinking_option
from webapp.core.json import JSONWarning, kind_of, quote
from webapp.core.json import pointer as jp
from webapp.core.schema import OUTPUT_FORMATS, SchemaError, bundle, compile_schema, known_documents
from webapp.web.api.jsonbody import expect_members, read_json_document
from webapp.web.errors import ApiError
from webapp.web.limits import parse_limits

bp = Blueprint("api", __name__, url_prefix="/api")

#: The members a body may have (any other is a 400 naming it: :func:`webapp.web.api.jsonbody.expect_members`).
MEMBERS = (
    "item",
    "items",
    "journal",
    "from",
    "tools",
    "tool_choice",
    "schema",
    "schemas",
    "format_assertion",
    "output",
    "target",
    "thinking",
    "store",
)

# Members whose duplicates make the request itself unclear (refused); the journal's are reported as findings.
_REFERENCE_MEMBERS = ("item", "schema", "tools", "tool_choice")


def request_body(
    members: tuple[str, ...] = MEMBERS, route: str = "/api/gate", example: str = '{"item": ..., "schema": ...}'
) -> tuple[dict[str, Any], list[JSONWarning]]:
    """The request body as a JSON object of ``members`` only (plain RFC 8259, line:column on error,
    depth-limited) and the ``duplicate_key`` warnings of its text. ``route`` and ``example`` word the errors."""
    # Lenient on Content-Type: a bare ``curl -d`` sends form-urlencoded, and the body is JSON all the same.
    document = read_json_document(f"a JSON object such as {example}", require_json_type=False)
    body = expect_members(document.value, members, route)
    return body, [w for w in document.warnings if w.code == "duplicate_key"]


def refuse_duplicates(duplicates: list[JSONWarning], members: tuple[str, ...]) -> None:
    """400 ``duplicate_member`` for names given twice in the request's own members or inside one of ``members``
    (see the module docstring): ``param`` is the first such member, the message names every place in it."""
    refused: dict[str | None, list[JSONWarning]] = {}
    for warning in duplicates:
        tokens = jp.split(warning.pointer) if warning.pointer else []
        if not tokens:  # counted in a very big body, not located: the item may hold it
            if "item" in members:
                refused.setdefault(None, []).append(warning)
        elif len(tokens) == 1 or tokens[0] in members:
            refused.setdefault(tokens[0], []).append(warning)
    if not refused:
        return
    param, found = next(iter(refused.items()))
    if param is None:
        raise ApiError(f"The request body gives member names twice: {found[0].message}", code="duplicate_member")
    places = [f"{w.pointer} (second at line {w.line}, column {w.column})" for w in found]
    names = list(dict.fromkeys(quote(jp.split(w.pointer)[-1]) for w in found))
    if len(places) > 5:
        places = places[:5] + [f"{len(places) - 5} more"]
    what = (
        "the item is ambiguous, and an ambiguous item must never be replayed"
        if param == "item" and found[0].pointer != "/item"
        else f"it is unclear which {param} is meant"
    )
    raise ApiError(
        f"{param}: member name{'s' if len(names) > 1 else ''} {', '.join(names)} given twice, at "
        f"{'; '.join(places)}; parsers disagree on which value counts, so {what}. Remove the "
        f"duplicates.",
        param=param,
        code="duplicate_member",
    )


def _optional_bool(body: dict[str, Any], name: str) -> bool:
    value = body.get(name, False)
    if not isinstance(value, bool):
        raise ApiError(f"{name} must be true or false, not {kind_of(value)}.", param=name, code="invalid_type")
    return value


def _optional_schema(body: dict[str, Any]) -> tuple[dict | bool | None, list[Any] | None]:
    """``schema`` as the gate reads a schema field (:func:`webapp.core.gate.read_schema_field`): ``(schema,
    None)``, or ``(None, tools)`` for a tool definition or a list of them. 400 for anything else."""
    schema, tools = read_schema_field(body.get("schema"))
    if schema is not None and not isinstance(schema, (dict, bool)):
        raise ApiError(
            f"schema must be a JSON Schema (an object or a boolean), a tool definition or a list of "
            f"them, not {kind_of(schema)}.",
            param="schema",
            code="invalid_type",
        )
    return schema, tools


@bp.post("/gate")
def gate() -> Any:
    """Gate one item against a schema, or a whole journal against its tools (see the module docstring)."""
    body, duplicates = request_body()
    body = _with_referenced_schemas(body)
    format_assertion = _optional_bool(body, "format_assertion")
    schema, given = _optional_schema(body)
    tools = body.get("tools")
    if given is not None and (tools is None or isinstance(tools, list)):
        # Tool definitions are tools, as the Schema page reads them: a call of a tool's name is checked against its
        # parameters, a call of another name has no schema (arguments_schema; unknown_tool in a journal).
        body = {**body, "tools": [*(tools or []), *given]}
    modes = [name for name in ("item", "items", "journal") if name in body]
    if len(modes) > 1:
        raise ApiError(
            f"Send one of item, items or journal, not {' and '.join(modes)}.", param=modes[1], code="ambiguous_request"
        )
    if not modes:
        raise ApiError(
            'Send {"item": ..., "schema": ...} for one item, or {"items": [...], "tools": [...]}'
            ' / {"journal": ...} for a journal.',
            param="item",
            code="missing_parameter",
        )
    target = target_param(body)
    thinking, store = settings_params(body)
    if modes[0] == "item":
        asked = [name for name, value in (("thinking", thinking), ("store", store)) if value is not None]
        if asked:
            raise ApiError(
                f"/{asked[0]}: {asked[0]} is a setting of the request a conversation is replayed in; send items or "
                "journal with it (one item is judged alone).",
                param=asked[0],
                code="invalid_value",
            )
        refuse_duplicates(duplicates, _REFERENCE_MEMBERS)
        return _one_item(body["item"], schema, format_assertion, tools_param(body), _optional_output(body), target)
    refuse_duplicates(duplicates, tuple(m for m in _REFERENCE_MEMBERS if m != "item"))
    return _journal(body, modes[0], schema, format_assertion, duplicates, target, (thinking, store))


def target_param(body: dict[str, Any]) -> str:
    """The body's ``target`` (default ``portable``); 400 ``invalid_value`` naming it when it is not one of the
    gate's ``TARGETS``."""
    target = body.get("target", "portable")
    if target not in TARGETS:
        shown = quote(target) if isinstance(target, str) else kind_of(target)
        raise ApiError(
            f"target must be one of {', '.join(TARGETS)}, not {shown}.", param="target", code="invalid_value"
        )
    return target


def settings_params(body: dict[str, Any]) -> tuple[bool | dict | None, bool | None]:
    """The body's ``thinking`` (``true`` / ``false`` or Anthropic's ``thinking`` object) and ``store`` (a boolean),
    ``None`` when not given: options that win over what the conversation's request says
    (:meth:`webapp.core.journal.settings.RequestSettings.asking`). 400 naming the member, the message its JSON
    Pointer (``/thinking/type``), otherwise."""
    try:
        return thinking_option(body.get("thinking")), store_option(body.get("store"))
    except SettingError as err:
        param = err.pointer.split("/")[1]
        code = "invalid_type" if err.pointer == f"/{param}" else "invalid_value"
        raise ApiError(f"{err.pointer}: {err.message}.", param=param, code=code) from None


def tools_param(body: dict[str, Any]) -> list[Any] | None:
    """The body's ``tools`` (a JSON array) or ``None``; 400 ``invalid_type`` naming it otherwise."""
    tools = body.get("tools")
    if tools is not None and not isinstance(tools, list):
        raise ApiError(
            f"tools must be a JSON array of tool definitions, not {kind_of(tools)}.", param="tools", code="invalid_type"
        )
    return tools


def _with_referenced_schemas(body: dict[str, Any]) -> dict[str, Any]:
    """``body`` with ``schema`` and the tools' parameters bundled with the documents of ``schemas`` they refer
    to (see the module docstring); ``body`` itself without ``schemas``."""
    if "schemas" not in body:
        return body
    supplied = body["schemas"]
    if not isinstance(supplied, (list, dict)):
        raise ApiError(
            f"schemas must be a JSON array of schemas (each with its $id) or an object of URI -> "
            f"schema, not {kind_of(supplied)}.",
            param="schemas",
            code="invalid_type",
        )
    try:
        documents = known_documents(supplied)
    except SchemaError as err:
        raise ApiError(f"schemas{err.pointer}: {err.message}", param="schemas", code="invalid_schemas") from None
    if not documents:
        return body
    body = dict(body)
    try:
        if isinstance(body.get("schema"), (dict, bool)):
            body["schema"] = bundle(body["schema"], documents)
    except SchemaError as err:
        raise ApiError(f"schema{err.pointer}: {err.message}", param="schema", code="invalid_schema") from None
    if isinstance(body.get("tools"), list):
        body["tools"] = [_bundled_tool(tool, index, documents) for index, tool in enumerate(body["tools"])]
    return body


def _bundled_tool(tool: Any, index: int, documents: dict[str, Any]) -> Any:
    shape = tool_shape(tool)
    if shape is None or not isinstance(shape.definition.get("parameters"), (dict, bool)):
        return tool
    try:
        parameters = bundle(shape.definition["parameters"], documents)
    except SchemaError as err:
        raise ApiError(
            f"tools/{index}{shape.parameters_pointer}{err.pointer}: {err.message}", param="tools", code="invalid_schema"
        ) from None
    definition = {**shape.definition, "parameters": parameters}
    return definition if shape.definition is tool else {**tool, "function": definition}


def _optional_output(body: dict[str, Any]) -> str | None:
    form = body.get("output")
    if form is not None and form not in OUTPUT_FORMATS:
        raise ApiError(
            f"output must be one of {', '.join(map(quote, OUTPUT_FORMATS))}, not "
            f"{quote(form) if isinstance(form, str) else kind_of(form)}.",
            param="output",
            code="invalid_value",
        )
    return form


def _one_item(
    item: Any,
    schema: dict | bool | None,
    format_assertion: bool,
    tools: list[Any] | None,
    output: str | None = None,
    target: str = "portable",
) -> dict[str, Any]:
    if not isinstance(item, dict):
        raise ApiError(
            f"item must be an Open Responses item (a JSON object), not {kind_of(item)}.",
            param="item",
            code="invalid_type",
        )
    name = item.get("name")
    if schema is None and tools is not None:
        schema = tool_schema(tools, name)
    line, findings = check_one(
        item,
        schema,
        format_assertion=format_assertion,
        tool_name=name if isinstance(name, str) else None,
        max_depth=parse_limits().max_depth,
        target=target,
        tools=tools,
    )
    verdict = line.verdict
    assert verdict is not None  # gate.item_line, the one maker of these lines, sets it
    result = verdict.as_dict()
    result.update(
        ok=line.ok,
        label=line.label,
        message=line.message,
        refused_by=list(line.refused_by),
        findings=[dict(f.as_dict(), message=f.describe(the_item)) for f in findings],
        target=target,
        disposition=line.disposition,
    )
    dialect = None
    compiled = None
    if schema is not None and verdict.schema_problem is None:
        try:
            compiled = compile_schema(schema, format_assertion=format_assertion)
            dialect = compiled.dialect_name
        except SchemaError:  # already reported as schema_error
            dialect = None
    result["dialect"] = dialect
    if output is not None:
        validated = compiled is not None and verdict.reached_schema
        result["output"] = compiled.output(verdict.arguments, output) if validated and compiled else None
    return result


def _journal(
    body: dict[str, Any],
    mode: str,
    schema: dict | bool | None,
    format_assertion: bool,
    duplicates: list[JSONWarning],
    target: str = "portable",
    asked: tuple[bool | dict | None, bool | None] = (None, None),
) -> dict[str, Any]:
    max_depth = parse_limits().max_depth
    if mode == "items":
        items = body["items"]
        if not isinstance(items, list):
            raise ApiError(
                f"items must be a JSON array of items, not {kind_of(items)}.", param="items", code="invalid_type"
            )
        journal, conversion = from_value(items, duplicates, "/items"), None
    else:
        journal, conversion = journal_from_body(body, duplicates, max_depth)
    journal.settings = journal.settings.asking(thinking=asked[0], store=asked[1])  # the options win over the text
    report = check_journal(
        journal,
        tools_param(body),
        tool_choice=body.get("tool_choice"),
        schema=schema,
        format_assertion=format_assertion,
        max_depth=max_depth,
        target=target,
        source=source_of(body, conversion),
    )
    answer = report.as_dict()
    counted = journal.settings.for_target(target)  # what the verdict assumed of the replayed request
    answer["settings"] = {"thinking": counted[0], "store": counted[1]}
    if conversion is not None:  # another provider's conversation: say where each item came from
        answer["source"] = conversion.source
        for item, verdict in zip(answer["items"], report.items, strict=True):
            item["origin"] = conversion.where(verdict.index)
        for shown, finding in zip(answer["findings"], report.findings, strict=True):
            shown["message"] = placed(finding, conversion)
            shown["origin"] = conversion.where(finding.index) if finding.index is not None else None
        answer["notes"] = [note.as_dict(conversion.lines) for note in conversion.notes]
    elif journal.notes:  # what reading a list object changed (replays read once, the order turned)
        answer["notes"] = [note.as_dict() for note in journal.notes]
    return answer


def source_of(body: dict[str, Any], conversion: Conversion | None) -> str | None:
    """Where the conversation came from: the conversion's source, else the ``from`` named (``openai``: a native
    OpenAI journal read as it is), else ``None`` (read from the items), as ``gate --from`` says it."""
    if conversion is not None:
        return conversion.source
    named = body.get("from", "auto")
    return None if named == "auto" else named


def journal_from_body(
    body: dict[str, Any], duplicates: list[JSONWarning], max_depth: int
) -> tuple[Journal, Conversion | None]:
    """The conversation of a body's ``journal`` member, read as ``from`` says (``auto`` by default).

    :return: the journal, and the conversion when another provider's conversation was read (``None`` for Open
        Responses items given as a parsed value, which keep the body's duplicate names and pointers).
    :raises ApiError: 400 naming ``journal`` or ``from`` (``invalid_type``, ``invalid_value``, ``invalid_journal``).
    """
    source = body["journal"]
    if not isinstance(source, (str, list, dict)):
        raise ApiError(
            f"journal must be a JSON array, a response or request object, or their text, not {kind_of(source)}.",
            param="journal",
            code="invalid_type",
        )
    provider = body.get("from", "auto")
    if provider != "auto" and provider not in SOURCES:
        raise ApiError(
            f"from must be auto or one of {', '.join(SOURCES)}, not {quote(provider)}.",
            param="from",
            code="invalid_value",
        )
    try:
        if isinstance(source, str) or provider != "auto":
            return read_journal(source, provider, max_depth=max_depth)
        # parsed JSON: Open Responses shapes keep the body's duplicate names and pointers
        journal, conversion = read_journal(source, max_depth=max_depth)
        return (from_value(source, duplicates, "/journal") if conversion is None else journal), conversion
    except ConvertError as err:
        where = f" (at {err.pointer})" if err.pointer else ""
        raise ApiError(f"journal: {err.message}{where}", param="journal", code="invalid_journal") from None

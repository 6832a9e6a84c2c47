"""The event schemas of Open Responses 2026-04-24, checked with the project's own schema layer.

The schemas are bundled into ``event-schemas.json`` beside this module by ``scripts/bundle_event_schemas.py`` (from
the vendored OpenAPI document, ``tests/data/openresponses-openapi.json``; a test checks the bundle is up to date).
Each event type gets its own compiled schema holding only the definitions it reaches, compiled the first time
an event of that type is met (a delta's schema compiles in about 10 ms, a response event's in about 100 ms), so
a stream pays for the types it uses. Validation is :meth:`webapp.core.schema.CompiledSchema.is_valid` (the
Rust fast path) and, for an invalid event only, its errors with the JSON Pointer of each violation. The spec's
unions are discriminated by ``type`` (OpenAPI ``discriminator``), so "matches none of the alternatives" is followed
into the alternative whose ``type`` the value names: a ``function_call`` item without ``id`` is reported as
``/item/id`` missing, not as an item matching no kind of item.
"""

from __future__ import annotations

import gc
import json
from dataclasses import replace
from functools import cache
from importlib import resources
from typing import Any

from webapp.core.json import pointer
from webapp.core.schema import CompiledSchema, ValidationError, compile_schema

__all__ = ["SPEC_VERSION", "EVENT_SCHEMAS", "WEBSOCKET_SCHEMAS", "BODY_SCHEMAS", "schema_for", "violations"]

_DIALECT = "https://json-schema.org/draft/2020-12/schema"  # OpenAPI 3.1 schemas are JSON Schema 2020-12


@cache
def _bundle() -> dict[str, Any]:
    text = resources.files(__package__).joinpath("event-schemas.json").read_text(encoding="utf-8")
    return json.loads(text)


#: ``info.version`` of the OpenAPI document the bundle was made from.
SPEC_VERSION: str = _bundle()["version"]
#: Event ``type`` -> the name of its schema (``ResponseOutputTextDeltaStreamingEvent``): the 24 standard events.
EVENT_SCHEMAS: dict[str, str] = dict(_bundle()["events"])
#: WebSocket mode: the client's ``response.create`` and the server's request-level ``error`` envelope.
WEBSOCKET_SCHEMAS: dict[str, str] = dict(_bundle()["websocket"])
#: Non-streamed answers: ``response`` (``ResponseResource``), ``compact`` (``CompactResource``).
BODY_SCHEMAS: dict[str, str] = dict(_bundle()["bodies"])


def _reached(name: str, definitions: dict[str, Any]) -> dict[str, Any]:
    """The definitions ``name`` reaches through ``$ref`` (itself included)."""
    found: dict[str, Any] = {}
    wanted = [name]
    while wanted:
        current = wanted.pop()
        if current in found:
            continue
        found[current] = definitions[current]
        stack: list[Any] = [definitions[current]]
        while stack:
            node = stack.pop()
            if isinstance(node, dict):
                ref = node.get("$ref")
                if isinstance(ref, str) and ref.startswith("#/$defs/"):
                    wanted.append(ref.removeprefix("#/$defs/"))
                stack.extend(node.values())
            elif isinstance(node, list):
                stack.extend(node)
    return found


@cache
def schema_for(name: str) -> CompiledSchema:
    """The compiled schema ``#/components/schemas/<name>`` of the OpenAPI document (compiled once).

    :raises KeyError: when the bundle has no such schema.
    """
    definitions = _bundle()["$defs"]
    if name not in definitions:
        raise KeyError(f"no schema {name!r} in the bundled Open Responses {SPEC_VERSION} schemas")
    return compile_schema({"$schema": _DIALECT, "$defs": _reached(name, definitions), "$ref": f"#/$defs/{name}"})


def violations(value: Any, name: str, *, limit: int | None = None) -> list[ValidationError]:
    """Every error of ``value`` against the schema ``name`` (or the first ``limit``), the most relevant first, each
    with the JSON Pointer of the offending member (``/output_index``, ``/item/id``); ``[]`` when it is valid.

    :raises KeyError: as :func:`schema_for`.
    """
    compiled = schema_for(name)
    if compiled.is_valid(value):
        return []
    found = _explained(value, name, compiled.errors(value), 0)
    if limit is not None:
        found = found[:limit]
    # python-jsonschema's errors are reference cycles (each names its parent and context), and a recording is linted
    # with the cyclic collector paused (paused_gc): without this, each invalid event's ~100 KB stayed until the end
    # (1.2 GB for a 3.6 MB recording). The youngest generation holds little more than them: the recording's own
    # objects move on at the first collection, so all of these together cost one walk of the recording.
    gc.collect(0)
    return found


_MAX_UNION_DEPTH = 8  # unions inside unions the explanation follows (items hold content parts: two levels)


def _explained(value: Any, name: str, errors: list[ValidationError], depth: int) -> list[ValidationError]:
    """``errors`` of ``value`` against schema ``name``, each union error replaced by the errors inside the
    alternative the value's ``type`` names, when there is exactly that one."""
    out: list[ValidationError] = []
    root = {"$defs": _bundle()["$defs"]}
    for error in errors:
        if error.keyword in ("anyOf", "oneOf") and depth < _MAX_UNION_DEPTH:
            try:
                alternatives = pointer.resolve(root, error.schema_path)
                part = pointer.resolve(value, error.pointer)
            except (KeyError, IndexError, ValueError, TypeError):
                alternatives = part = None
            meant = _meant(alternatives, part)
            if meant is not None:
                inner = schema_for(meant).errors(part)
                if inner:
                    placed = [replace(e, pointer=error.pointer + e.pointer) for e in inner]
                    out.extend(_explained(value, name, placed, depth + 1) if meant != name else placed)
                    continue
        out.append(error)
    return out


def _meant(alternatives: Any, value: Any) -> str | None:
    """The name of the one alternative (a ``$ref`` to a definition) that claims ``value``'s ``type``, or ``None``."""
    if not isinstance(alternatives, list) or not isinstance(value, dict) or not isinstance(value.get("type"), str):
        return None
    claiming = [name for name in map(_ref_name, alternatives) if name is not None and _claims(name, value["type"], 0)]
    return claiming[0] if len(claiming) == 1 else None


def _ref_name(alternative: Any) -> str | None:
    ref = alternative.get("$ref") if isinstance(alternative, dict) else None
    return ref.removeprefix("#/$defs/") if isinstance(ref, str) and ref.startswith("#/$defs/") else None


def _claims(name: str, kind: str, depth: int) -> bool:
    """Whether definition ``name`` says its ``type`` may be ``kind`` (an ``enum``/``const`` on ``type``, or one of
    its own alternatives does)."""
    schema = _bundle()["$defs"].get(name)
    if not isinstance(schema, dict) or depth > _MAX_UNION_DEPTH:
        return False
    declared = schema.get("properties", {}).get("type", {})
    if isinstance(declared, dict) and ("enum" in declared or "const" in declared):
        return kind in declared.get("enum", ()) or declared.get("const") == kind
    return any(
        inner is not None and _claims(inner, kind, depth + 1)
        for inner in map(_ref_name, schema.get("oneOf", []) + schema.get("anyOf", []))
    )

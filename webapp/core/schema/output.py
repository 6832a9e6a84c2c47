"""The standard output formats of JSON Schema 2020-12 core §12 (``flag``, ``basic``, ``detailed``), built from a
compiled schema's answer.

Each output unit has ``valid``, ``keywordLocation`` (the evaluation path, through ``$ref``: §12.3.1),
``absoluteKeywordLocation`` (the keyword's URI in its schema resource: §12.3.2; a schema without ``$id`` has the
layer's base ``https://schema.invalid/root.json``), ``instanceLocation`` (§12.3.3) and ``error`` (the plain message
of :meth:`~webapp.core.schema.compiled.CompiledSchema.errors`). ``basic`` lists the failing units flat
(§12.4.2); ``detailed`` nests the failures of ``anyOf``/``oneOf`` alternatives under their keyword (§12.4.3).
A valid answer carries the annotations collected by the Rust engine when it validates the schema
(:attr:`~webapp.core.schema.compiled.CompiledSchema.fast_path`); without it, none.
"""

from __future__ import annotations

from typing import Any

#: The output formats :func:`output_unit` can answer (2020-12 core §12.4; ``verbose`` is not offered).
OUTPUT_FORMATS = ("flag", "basic", "detailed")


def output_unit(errors: list[dict[str, Any]], annotations: list[dict[str, Any]], form: str) -> dict[str, Any]:
    """The output of one validation in format ``form``.

    :param errors: failing units as :meth:`CompiledSchema.output_units` gives them, each with ``keywordLocation``,
        ``absoluteKeywordLocation``, ``instanceLocation``, ``error`` and ``errors`` (the units of the alternatives
        of an ``anyOf``/``oneOf``, possibly empty).
    :param annotations: annotation units (``keywordLocation``, ``absoluteKeywordLocation``, ``instanceLocation``,
        ``annotation``); used only when ``errors`` is empty.
    :param form: one of :data:`OUTPUT_FORMATS`.
    :raises ValueError: for another ``form``.
    """
    if form not in OUTPUT_FORMATS:
        raise ValueError(f"unknown output format {form!r}; use one of {', '.join(OUTPUT_FORMATS)}")
    valid = not errors
    if form == "flag":
        return {"valid": valid}
    if form == "basic":
        if valid:
            result: dict[str, Any] = {"valid": True}
            if annotations:
                result["annotations"] = [{"valid": True, **unit} for unit in annotations]
            return result
        return {"valid": False, "errors": [unit for error in errors for unit in _flat(error)]}
    root: dict[str, Any] = {"valid": valid, "keywordLocation": "", "instanceLocation": ""}
    if valid:
        if annotations:
            root["annotations"] = [{"valid": True, **unit} for unit in annotations]
        return root
    children = [_nested(error) for error in errors]
    if len(children) == 1:  # §12.4.3: a node with a single child is replaced by that child
        return children[0]
    root["errors"] = children
    return root


def _unit(error: dict[str, Any]) -> dict[str, Any]:
    return {"valid": False, **{k: v for k, v in error.items() if k != "errors"}}


def _flat(error: dict[str, Any]) -> list[dict[str, Any]]:
    units = [_unit(error)]
    for child in error.get("errors", ()):
        units.extend(_flat(child))
    return units


def _nested(error: dict[str, Any]) -> dict[str, Any]:
    unit = _unit(error)
    children = [_nested(child) for child in error.get("errors", ())]
    if children:
        unit["errors"] = children
    return unit

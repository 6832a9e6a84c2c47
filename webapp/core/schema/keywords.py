"""python-jsonschema's keywords, fixed where the library (4.26) falls into a trap: exact ``multipleOf`` on
decimals, ECMA-262 ``pattern``/``patternProperties`` under the time budget, one error per offending member at the
member's own pointer (``additionalProperties``, ``required``, ``dependentRequired``, ``unevaluated*``), and
``multipleOf`` for the Rust engine with the same exact rule."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from decimal import Context, Decimal, DivisionByZero, InvalidOperation
from fractions import Fraction
from typing import Any

from jsonschema import ValidationError, validators
from referencing.jsonschema import lookup_recursive_ref

from webapp.core.json import pointer as jp
from webapp.core.schema.errors import show
from webapp.core.schema.patterns import current, search

# The keywords that refer to another schema by URI.
REF_KEYWORDS = ("$ref", "$dynamicRef", "$recursiveRef")


def where(owner: Any, *tokens: str) -> Callable[[], str]:
    """A lazy "where in the schema" (``owner`` subschema + tokens) for pattern errors, read from the running
    validation (:data:`webapp.core.schema.patterns.current`)."""

    def find() -> str:
        pointers = current.node_pointers
        base = pointers.get(id(owner)) if pointers is not None else None
        return "" if base is None else base + jp.join(tokens)

    return find


def is_multiple(value: int | float, divisor: int | float) -> bool:
    """Exact ``multipleOf``: numbers are taken as the decimals they print as (``19.99`` / ``0.01`` = 1999)."""
    if isinstance(value, int) and isinstance(divisor, int):
        return value % divisor == 0
    try:
        exact_value = Decimal(repr(value)) if isinstance(value, float) else Decimal(value)
        exact_divisor = Decimal(repr(divisor)) if isinstance(divisor, float) else Decimal(divisor)
        try:
            return _DECIMALS.remainder(exact_value, exact_divisor) == 0
        except InvalidOperation:  # the quotient needs more digits than the context keeps: exact fractions
            return (Fraction(exact_value) / Fraction(exact_divisor)).denominator == 1
    except (InvalidOperation, ValueError, OverflowError, ZeroDivisionError):
        return False  # inf / nan never come from I-JSON; a zero divisor is refused by the metaschema


# Enough digits for any quotient of two doubles' shortest decimals short of extreme exponents.
_DECIMALS = Context(prec=60, traps=[InvalidOperation, DivisionByZero])


def _kw_multiple_of(validator: Any, divisor: Any, instance: Any, schema: Any) -> Iterator[ValidationError]:
    if validator.is_type(instance, "number") and not is_multiple(instance, divisor):
        yield ValidationError(f"{show(instance)} is not a multiple of {show(divisor)}")


def _kw_pattern(validator: Any, pattern: str, instance: Any, schema: Any) -> Iterator[ValidationError]:
    if validator.is_type(instance, "string") and not search(pattern, instance, where(schema, "pattern")):
        yield ValidationError(f"{show(instance)} does not match the pattern {show(pattern)}")


def _kw_pattern_properties(validator: Any, patterns: dict, instance: Any, schema: Any) -> Iterator[ValidationError]:
    if not validator.is_type(instance, "object"):
        return
    for pattern, subschema in patterns.items():
        for key, value in instance.items():
            if search(pattern, key, where(schema, "patternProperties", pattern)):
                yield from validator.descend(value, subschema, path=key, schema_path=pattern)


def _additional_keys(instance: dict, schema: dict) -> list[str]:
    properties = schema.get("properties", {})
    patterns = schema.get("patternProperties", {})
    return [
        key
        for key in instance
        if key not in properties and not any(search(p, key, where(schema, "patternProperties", p)) for p in patterns)
    ]


def _kw_additional_properties(validator: Any, extra: Any, instance: Any, schema: Any) -> Iterator[ValidationError]:
    if not validator.is_type(instance, "object"):
        return
    for key in _additional_keys(instance, schema):
        if extra is False:
            # one error per member, pointing at the member itself (python-jsonschema #119)
            yield ValidationError(
                f"unexpected property {show(key)}: additionalProperties is false", path=[key], instance=instance[key]
            )
        elif extra is not True:
            yield from validator.descend(instance[key], extra, path=key)


def _kw_required(validator: Any, required: list, instance: Any, schema: Any) -> Iterator[ValidationError]:
    if not validator.is_type(instance, "object"):
        return
    for name in required:
        if name not in instance:
            yield ValidationError(f"missing required property {show(name)}", path=[name], instance=None)


def _kw_dependent_required(validator: Any, dependent: dict, instance: Any, schema: Any) -> Iterator[ValidationError]:
    if not validator.is_type(instance, "object"):
        return
    for present, needed in dependent.items():
        if present in instance:
            for name in needed:
                if name not in instance:
                    yield ValidationError(
                        f"missing property {show(name)}, required when {show(present)} is present",
                        path=[name],
                        instance=None,
                    )


def _kw_dependencies(validator: Any, dependencies: dict, instance: Any, schema: Any) -> Iterator[ValidationError]:
    if not validator.is_type(instance, "object"):
        return
    for present, dependency in dependencies.items():
        if present not in instance:
            continue
        if validator.is_type(dependency, "array"):
            yield from _kw_dependent_required(validator, {present: dependency}, instance, schema)
        else:
            yield from validator.descend(instance, dependency, schema_path=present)


def _lookup(validator: Any, ref_keyword: str, ref: str) -> tuple[Any, Any]:
    # the same lookups python-jsonschema's own keywords do: $recursiveRef's target is found in the dynamic scope
    # (2019-09 core §8.2.4.2), which referencing's lookup_recursive_ref walks; $dynamicRef's anchors resolve
    # dynamically in the resolver's own lookup
    if ref_keyword == "$recursiveRef":
        resolved = lookup_recursive_ref(validator._resolver)
    else:
        resolved = validator._resolver.lookup(ref)
    return validator.evolve(schema=resolved.contents, _resolver=resolved.resolver), resolved.contents


def _evaluated(validator: Any, instance: Any, schema: Any, local: Callable[[Any, Any, dict], set]) -> set:
    """What ``schema`` evaluates successfully in ``instance`` — member names or item indexes, as ``local`` finds
    them in one schema object — gathered through the in-place applicators that pass: ``$ref`` and its kin,
    allOf/anyOf/oneOf, if/then/else, dependentSchemas (JSON Schema 2020-12 core §11.2, §11.3)."""
    if not isinstance(schema, dict):
        return set()
    found = local(validator, instance, schema)
    for ref_keyword in REF_KEYWORDS:
        ref = schema.get(ref_keyword)
        # $recursiveRef is 2019-09's only (python-jsonschema and the Rust engine follow $dynamicRef in 2019-09 too)
        if isinstance(ref, str) and (ref_keyword != "$recursiveRef" or ref_keyword in validator.VALIDATORS):
            sub_validator, target = _lookup(validator, ref_keyword, ref)
            found |= _evaluated(sub_validator, instance, target, local)
    dependent = schema.get("dependentSchemas")
    if isinstance(dependent, dict) and isinstance(instance, dict):
        for name, sub in dependent.items():
            if name in instance:
                found |= _evaluated(validator, instance, sub, local)
    for keyword in ("allOf", "anyOf", "oneOf"):
        for sub in schema.get(keyword, ()):
            if validator.evolve(schema=sub).is_valid(instance):
                found |= _evaluated(validator, instance, sub, local)
    if "if" in schema:
        passed = validator.evolve(schema=schema["if"]).is_valid(instance)
        for keyword in ("if", "then") if passed else ("else",):
            found |= _evaluated(validator, instance, schema.get(keyword, True), local)
    return found


def _local_keys(validator: Any, instance: dict, schema: dict) -> set[str]:
    """Member names one schema object evaluates: properties, patternProperties, additionalProperties,
    unevaluatedProperties."""
    keys: set[str] = set()
    properties = schema.get("properties")
    if isinstance(properties, dict):
        keys |= properties.keys() & instance.keys()
    patterns = schema.get("patternProperties")
    if isinstance(patterns, dict):
        keys |= {k for k in instance for p in patterns if search(p, k, where(schema, "patternProperties", p))}
    for keyword in ("additionalProperties", "unevaluatedProperties"):
        if keyword in schema:
            sub = validator.evolve(schema=schema[keyword])
            keys |= {k for k, v in instance.items() if sub.is_valid(v)}
    return keys


def _local_indexes(validator: Any, instance: list, schema: dict) -> set[int]:
    """Item indexes one schema object evaluates: prefixItems, items (2019-09's array form with
    additionalItems too), contains, unevaluatedItems."""
    everything = set(range(len(instance)))
    items = schema.get("items")
    if isinstance(items, list):  # 2019-09 tuple form
        if "additionalItems" in schema:
            return everything
        indexes = set(range(min(len(items), len(instance))))
    elif "items" in schema:
        return everything
    else:
        indexes = set()
    prefix = schema.get("prefixItems")
    if isinstance(prefix, list) and "prefixItems" in validator.VALIDATORS:  # 2020-12's
        indexes |= set(range(min(len(prefix), len(instance))))
    for keyword in ("contains", "unevaluatedItems"):
        if keyword in schema:
            sub = validator.evolve(schema=schema[keyword])
            indexes |= {i for i, v in enumerate(instance) if sub.is_valid(v)}
    return indexes


def _unevaluated(
    json_kind: str, local: Callable[[Any, Any, dict], set], unexpected: Callable[[Any], str]
) -> Callable[..., Iterator[ValidationError]]:
    """The ``unevaluatedProperties`` (``json_kind`` "object") or ``unevaluatedItems`` ("array") keyword: the
    rule applies to each member / item no other keyword evaluated; with ``false`` each one is its own error,
    at its own pointer."""

    def keyword(validator: Any, rule: Any, instance: Any, schema: Any) -> Iterator[ValidationError]:
        if not validator.is_type(instance, json_kind):
            return
        evaluated = _evaluated(validator, instance, schema, local)
        for where, value in instance.items() if json_kind == "object" else enumerate(instance):
            if where in evaluated:
                continue
            if rule is False:
                yield ValidationError(unexpected(where), path=[where], instance=value)
            else:
                yield from validator.descend(value, rule, path=where)

    return keyword


_kw_unevaluated_properties = _unevaluated(
    "object", _local_keys, lambda key: f"unexpected property {show(key)}: unevaluatedProperties is false"
)
_kw_unevaluated_items = _unevaluated(
    "array", _local_indexes, lambda index: f"unexpected item at index {index}: unevaluatedItems is false"
)


#: The fixed keywords, by name (each replaces python-jsonschema's own where the dialect has that keyword).
OVERRIDES: dict[str, Callable[..., Iterator[ValidationError]]] = {
    "multipleOf": _kw_multiple_of,
    "pattern": _kw_pattern,
    "patternProperties": _kw_pattern_properties,
    "additionalProperties": _kw_additional_properties,
    "required": _kw_required,
    "dependentRequired": _kw_dependent_required,
    "dependencies": _kw_dependencies,
    "unevaluatedProperties": _kw_unevaluated_properties,
    "unevaluatedItems": _kw_unevaluated_items,
}


def extend(cls: Any) -> Any:
    """A python-jsonschema validator class with :data:`OVERRIDES` in place of its own keywords. In 2019-09 and
    2020-12, ``dependencies`` keeps its draft-07 meaning (``dependentRequired`` and ``dependentSchemas`` in one
    keyword): the old spelling is still applied, as the Rust engine does (the suite's
    ``optional/dependencies-compatibility.json``)."""
    keywords = {k: v for k, v in OVERRIDES.items() if k in cls.VALIDATORS}
    keywords["dependencies"] = _kw_dependencies
    return validators.extend(cls, keywords)


class RustMultipleOf:
    """``multipleOf`` for the Rust engine (a custom keyword replacing its own): our exact decimal rule."""

    def __init__(self, parent_schema: dict, value: Any, schema_path: list) -> None:
        self.divisor = value

    def validate(self, instance: Any) -> None:
        """:raises ValueError: when ``instance`` is a number that is no multiple of the divisor."""
        if (
            isinstance(instance, (int, float))
            and not isinstance(instance, bool)
            and not is_multiple(instance, self.divisor)
        ):
            raise ValueError(f"{show(instance)} is not a multiple of {show(self.divisor)}")

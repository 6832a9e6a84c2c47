"""The checks every field of a ``/v1/responses`` body goes through, and the one error they raise.

Pure (no Flask, no I/O). Each check takes a value and its place in the notation of OpenAI's errors
(``input[2].content[0].type``, built with :func:`path_key` and :func:`path_index`), returns the value, and raises
:class:`RequestError` naming that place: a wrong JSON type is ``invalid_type``, a value out of its bounds or not
among its choices ``invalid_value``, a missing member ``missing_required_parameter``.
"""

from __future__ import annotations

import re
from typing import Any

from webapp.core.gate import CHAT_COMPLETIONS_ENVELOPE, FUNCTION_NAME, FUNCTION_NAME_RULE
from webapp.core.json import json_type

MiB = 1024 * 1024
MAX_TEXT = 10 * MiB  # maxLength of input text fields in the spec (10485760 characters)

# Error codes carried in ``error.code`` (OpenAI's names where it has one).
MISSING = "missing_required_parameter"
INVALID_TYPE = "invalid_type"
INVALID_VALUE = "invalid_value"
UNKNOWN_PARAMETER = "unknown_parameter"
UNSUPPORTED = "unsupported_value"
CHAT_ENVELOPE = CHAT_COMPLETIONS_ENVELOPE  # the gate's finding for this mistake: one name for it


class RequestError(ValueError):
    """The request is invalid; the client can fix it (HTTP 400, ``invalid_request_error``).

    :param message: plain words; ``str(err)`` is ``"<param>: <message>"``.
    :param param: where, in the notation of OpenAI's errors: ``input[2].content[0].type``, ``tools[0].name``.
    :param code: a stable code (``missing_required_parameter``, ``invalid_type``, ``invalid_value``,
        ``unknown_parameter``, ``unsupported_value``, ``chat_completions_envelope``, ...).
    :param whole: ``message`` is the whole sentence already (it names its place itself, or needs no prefix, as
        ``Previous response not found: ...``): ``str(err)`` is ``message`` as given.
    """

    def __init__(
        self, message: str, param: str | None = None, code: str = INVALID_VALUE, *, whole: bool = False
    ) -> None:
        self.message = f"{param}: {message}" if param and not whole else message
        super().__init__(self.message)
        self.param = param
        self.code = code


# ------------------------------------------------------------------------------------------------ paths


def path_key(path: str, key: str) -> str:
    """``input[2]`` + ``content`` → ``input[2].content``; keys that are not identifiers are quoted."""
    if re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", key):
        return f"{path}.{key}" if path else key
    return f'{path}["{key}"]'


def path_index(path: str, index: int) -> str:
    """``input`` + 2 → ``input[2]``."""
    return f"{path}[{index}]"


def type_error(path: str, expected: str, value: Any) -> RequestError:
    """The ``invalid_type`` error at ``path``: ``expected an object, got array``."""
    return RequestError(f"expected {expected}, got {json_type(value)}", path, INVALID_TYPE)


def quoted_list(values: tuple[str, ...]) -> str:
    """``('a', 'b')`` as a message lists it: ``'a', 'b'``."""
    return ", ".join(repr(v) for v in values)


# ------------------------------------------------------------------------------------------------ checks


def expect_object(value: Any, path: str) -> dict[str, Any]:
    """``value`` when it is a JSON object. :raises RequestError: ``invalid_type`` otherwise."""
    if not isinstance(value, dict):
        raise type_error(path, "an object", value)
    return value


def expect_array(value: Any, path: str) -> list[Any]:
    """``value`` when it is a JSON array. :raises RequestError: ``invalid_type`` otherwise."""
    if not isinstance(value, list):
        raise type_error(path, "an array", value)
    return value


def expect_string(
    value: Any, path: str, *, nullable: bool = False, min_length: int = 0, max_length: int | None = None
) -> str | None:
    """``value`` when it is a string of ``min_length`` to ``max_length`` characters (or ``None`` when
    ``nullable``). :raises RequestError: ``invalid_type``, or ``invalid_value`` naming the bound."""
    if value is None and nullable:
        return None
    if not isinstance(value, str):
        raise type_error(path, "a string" + (" or null" if nullable else ""), value)
    if len(value) < min_length:
        raise RequestError(
            "must not be empty" if min_length == 1 else f"must be at least {min_length} characters", path, INVALID_VALUE
        )
    if max_length is not None and len(value) > max_length:
        raise RequestError(f"is {len(value):,} characters; the limit is {max_length:,}", path, INVALID_VALUE)
    return value


def expect_integer(
    value: Any, path: str, *, nullable: bool = False, minimum: int | None = None, maximum: int | None = None
) -> int | None:
    """``value`` as an integer within ``minimum`` and ``maximum`` (``64.0`` is ``64``; ``None`` when ``nullable``).
    :raises RequestError: ``invalid_type`` (``true`` is no integer), or ``invalid_value`` naming the bound."""
    if value is None and nullable:
        return None
    if isinstance(value, float) and value.is_integer():
        value = int(value)  # JSON has one number type; 64.0 is the integer 64
    if not isinstance(value, int) or isinstance(value, bool):
        raise type_error(path, "an integer" + (" or null" if nullable else ""), value)
    if minimum is not None and value < minimum:
        raise RequestError(f"must be at least {minimum}, got {value}", path, INVALID_VALUE)
    if maximum is not None and value > maximum:
        raise RequestError(f"must be at most {maximum}, got {value}", path, INVALID_VALUE)
    return value


def expect_number(value: Any, path: str, *, minimum: float | None = None, maximum: float | None = None) -> float | None:
    """``value`` when it is a number within ``minimum`` and ``maximum``, or ``None``.
    :raises RequestError: ``invalid_type``, or ``invalid_value`` naming the bounds."""
    if value is None:
        return None
    if not isinstance(value, (int, float)) or isinstance(value, bool):
        raise type_error(path, "a number or null", value)
    if minimum is not None and value < minimum or maximum is not None and value > maximum:
        raise RequestError(f"must be between {minimum} and {maximum}, got {value}", path, INVALID_VALUE)
    return value


def expect_boolean(value: Any, path: str, *, nullable: bool = False) -> bool | None:
    """``value`` when it is ``true`` or ``false`` (or ``None`` when ``nullable``). :raises RequestError:
    ``invalid_type``."""
    if value is None and nullable:
        return None
    if not isinstance(value, bool):
        raise type_error(path, "a boolean" + (" or null" if nullable else ""), value)
    return value


def expect_enum(value: Any, path: str, choices: tuple[str, ...], *, nullable: bool = False) -> str | None:
    """``value`` when it is one of the strings ``choices`` (or ``None`` when ``nullable``).
    :raises RequestError: ``invalid_type``, or ``invalid_value`` listing the choices."""
    if value is None and nullable:
        return None
    if not isinstance(value, str):
        raise type_error(path, "a string" + (" or null" if nullable else ""), value)
    if value not in choices:
        raise RequestError(f"expected one of {quoted_list(choices)}, got {value!r}", path, INVALID_VALUE)
    return value


def required(obj: dict[str, Any], key: str, path: str, what: str = "") -> Any:
    """The member ``key`` of the object ``obj`` found at ``path``.

    :param what: said after "missing required field" (``" (a data: URL)"``).
    :raises RequestError: ``missing_required_parameter`` naming ``path.key``.
    """
    if key not in obj:
        raise RequestError(f"missing required field{what}", path_key(path, key), MISSING)
    return obj[key]


def expect_name(value: Any, path: str) -> str:
    """``value`` when it is a function name (the gate's ``FUNCTION_NAME`` pattern). :raises RequestError:
    ``invalid_type``, or ``invalid_value`` saying what a name must be."""
    name = expect_string(value, path, min_length=1)
    assert name is not None
    if not FUNCTION_NAME.fullmatch(name):
        raise RequestError(f"{name[:80]!r} must be {FUNCTION_NAME_RULE}", path, INVALID_VALUE)
    return name


def expect_call_id(obj: dict[str, Any], path: str) -> str:
    """The ``call_id`` of the item ``obj`` at ``path``: 1 to 64 characters. :raises RequestError: naming
    ``path.call_id``."""
    value = expect_string(required(obj, "call_id", path), path_key(path, "call_id"), min_length=1, max_length=64)
    assert value is not None
    return value

"""The checks every field of a Chat Completions body goes through, and the one error they raise.

Pure. Places are named in Chat Completions terms (``messages[2].content[0].image_url.url``); the error codes are
those of ``/v1/responses`` (``webapp.core.responses.fields``, OpenAI's names), and one of this layer's own.
"""

from __future__ import annotations

from typing import Any

from webapp.core.gate import FUNCTION_NAME, FUNCTION_NAME_RULE
from webapp.core.json import json_type
from webapp.core.responses.fields import INVALID_TYPE, INVALID_VALUE, MAX_TEXT, MISSING

UNSUPPORTED = "unsupported_parameter"


class ChatRequestError(ValueError):
    """The chat request is invalid (HTTP 400, ``invalid_request_error``).

    :param message: plain words, starting with ``param`` when there is one.
    :param param: where: ``messages[2].content[0].type``, ``tools[0].function.name``, ``max_tokens``.
    :param code: a stable code (``missing_required_parameter``, ``invalid_type``, ``invalid_value``,
        ``unknown_parameter``, ``unsupported_parameter``, ``orphan_output``, ``missing_output``, ...).
    """

    def __init__(self, message: str, param: str | None = None, code: str = INVALID_VALUE) -> None:
        self.message = f"{param}: {message}" if param else message
        super().__init__(self.message)
        self.param = param
        self.code = code


def expect(value: Any, kind: type | tuple[type, ...], path: str, what: str) -> Any:
    """``value`` when it is of the Python ``kind`` (``true`` is no number). :raises ChatRequestError:
    ``invalid_type`` saying ``what`` was expected."""
    kinds = kind if isinstance(kind, tuple) else (kind,)
    # bool is an int subclass in Python, but true is no number in JSON.
    if not isinstance(value, kinds) or (isinstance(value, bool) and bool not in kinds):
        raise ChatRequestError(f"expected {what}, got {json_type(value)}", path, INVALID_TYPE)
    return value


def need(obj: dict[str, Any], key: str, path: str) -> Any:
    """The member ``key`` of ``obj`` (found at ``path``). :raises ChatRequestError: ``missing_required_parameter``."""
    if key not in obj:
        raise ChatRequestError("missing required field", f"{path}.{key}" if path else key, MISSING)
    return obj[key]


def expect_text(value: Any, path: str, *, empty: bool = True) -> str:
    """``value`` when it is a string of at most ``MAX_TEXT`` characters (and not empty unless ``empty``).
    :raises ChatRequestError: ``invalid_type`` or ``invalid_value``."""
    expect(value, str, path, "a string")
    if not empty and not value:
        raise ChatRequestError("must not be empty", path, INVALID_VALUE)
    if len(value) > MAX_TEXT:
        raise ChatRequestError(f"is {len(value):,} characters; the limit is {MAX_TEXT:,}", path, INVALID_VALUE)
    return value


def expect_name(value: Any, path: str) -> str:
    """``value`` when it is a function name (the gate's ``FUNCTION_NAME``). :raises ChatRequestError: naming it."""
    expect_text(value, path)
    if not FUNCTION_NAME.fullmatch(value):
        raise ChatRequestError(f"{value[:80]!r} must be {FUNCTION_NAME_RULE}", path)
    return value


def expect_integer(value: Any, path: str, minimum: int, maximum: int | None = None) -> int | None:
    """``value`` as an integer from ``minimum`` to ``maximum``, or ``None`` (``64.0`` is ``64``).
    :raises ChatRequestError: ``invalid_type`` or ``invalid_value`` naming the bounds."""
    if value is None:
        return None
    if isinstance(value, float) and value.is_integer():
        value = int(value)
    expect(value, int, path, "an integer or null")
    if value < minimum or (maximum is not None and value > maximum):
        bound = f"from {minimum} to {maximum}" if maximum is not None else f"at least {minimum}"
        raise ChatRequestError(f"must be {bound}, got {value}", path)
    return value


def expect_choice(value: Any, path: str, choices: tuple[str, ...]) -> str:
    """``value`` when it is one of the strings ``choices``. :raises ChatRequestError: listing them."""
    expect(value, str, path, "a string")
    if value not in choices:
        raise ChatRequestError(f"expected one of {', '.join(map(repr, choices))}, got {value!r}", path)
    return value

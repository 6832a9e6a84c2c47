"""The configured parse limits: the one reader of them in the app config, passed down to the core as arguments.

``JSON_MAX_DEPTH``      nesting levels of JSON read from a request (bodies, pasted documents, journals) and of a
                        call's ``arguments`` in the replay gate; default
                        :data:`webapp.core.json.DEFAULT_MAX_DEPTH` (100);
``MAX_CONTENT_LENGTH``  bytes of a request body (Werkzeug answers 413 above it; the parse layer shares the cap).

Both come from ``webapp.DEFAULTS``, then ``FLASK_JSON_MAX_DEPTH`` / ``FLASK_MAX_CONTENT_LENGTH``, then the test
config (``create_app``). The core never reads the config: it takes ``max_depth`` / ``max_bytes`` parameters.
Templates get ``max_request_bytes`` (:func:`init_app`): base.html renders it into ``<body data-max-bytes>``, which
static/app.js checks every request against before sending it.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from flask import Flask, current_app

from webapp.core.json import DEFAULT_MAX_DEPTH

__all__ = ["ParseLimits", "init_app", "parse_limits"]


@dataclass(frozen=True)
class ParseLimits:
    """The limits on JSON the app reads.

    :ivar max_depth: nesting limit in JSON levels (``[[1]]`` is 2).
    :ivar max_bytes: size limit of a request body or pasted text in bytes, or ``None`` for none.
    """

    max_depth: int = DEFAULT_MAX_DEPTH
    max_bytes: int | None = None

    @classmethod
    def from_config(cls, config: Mapping[str, Any]) -> ParseLimits:
        """The limits set in ``config`` (a Flask ``app.config``); a missing one takes its default.

        :raises ValueError: a limit that is not a positive whole number (naming the setting), so a misconfigured
            app fails loudly instead of parsing without the limit.
        """
        return cls(
            _positive(config, "JSON_MAX_DEPTH", DEFAULT_MAX_DEPTH), _positive(config, "MAX_CONTENT_LENGTH", None)
        )

    @property
    def parse_options(self) -> dict[str, Any]:
        """``{"max_depth", "max_bytes"}``: the keyword arguments of :func:`webapp.core.json.parse`."""
        return {"max_depth": self.max_depth, "max_bytes": self.max_bytes}


def parse_limits() -> ParseLimits:
    """The limits of the app handling the current request (``flask.current_app``)."""
    return ParseLimits.from_config(current_app.config)


def init_app(app: Flask) -> None:
    """Give every template ``max_request_bytes``: ``MAX_CONTENT_LENGTH`` in bytes, or ``None`` for no limit."""

    @app.context_processor
    def _limits() -> dict[str, int | None]:
        return {"max_request_bytes": parse_limits().max_bytes}


def _positive(config: Mapping[str, Any], name: str, default: int | None) -> Any:
    value = config.get(name)
    if value is None:
        return default
    if isinstance(value, str) and value.strip().isdigit():  # e.g. set by hand as text
        value = int(value)
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise ValueError(f"{name} must be a positive whole number, not {value!r}")
    return value

"""One JSON error shape for every machine-facing route, and friendly pages for the human-facing ones.

Shape (Open Responses spec, Errors; the OpenAI SDKs read ``error.message``)::

    {"error": {"message": str, "type": str, "param": str | None, "code": str | None}}
"""

from __future__ import annotations

from typing import Any

from flask import Flask, Response, jsonify, render_template, request
from werkzeug.exceptions import HTTPException

from webapp.web.htmx import is_partial
from webapp.web.limits import ParseLimits
from webapp.web.store import StorageError

# HTTP status -> error ``type`` (Open Responses spec, Errors table; ``invalid_request_error`` as the SDKs expect).
ERROR_TYPES = {
    400: "invalid_request_error",
    401: "authentication_error",
    403: "permission_error",
    404: "not_found",
    405: "invalid_request_error",
    413: "invalid_request_error",
    415: "invalid_request_error",
    429: "too_many_requests",
    500: "server_error",
    503: "server_error",
    507: "server_error",
}
# Codes for the statuses Werkzeug raises itself, so clients can branch without parsing messages.
_HTTP_CODES = {404: "not_found", 405: "method_not_allowed", 413: "payload_too_large", 415: "unsupported_media_type"}

JSON_PREFIXES = ("/api/", "/v1/")


def error_body(
    message: str, type: str = "invalid_request_error", param: str | None = None, code: str | None = None
) -> dict[str, Any]:
    """Return the one error envelope ``{"error": {"message", "type", "param", "code"}}``."""
    return {"error": {"message": message, "type": type, "param": param, "code": code}}


class ApiError(Exception):
    """An error a JSON route answers with the envelope of :func:`error_body`.

    :param message: plain words, naming the place (JSON Pointer, ``input[2].type``, line:column).
    :param status: the HTTP status (400 unless said).
    :param param: the request parameter or path at fault, if any.
    :param code: a stable machine code (e.g. a gate reason such as ``arguments_schema``).
    """

    def __init__(
        self,
        message: str,
        status: int = 400,
        *,
        param: str | None = None,
        code: str | None = None,
        type: str | None = None,
        headers: dict[str, str] | None = None,
    ) -> None:
        super().__init__(message)
        self.message = message
        self.status = status
        self.param = param
        self.code = code
        self.type = type or ERROR_TYPES.get(status, "invalid_request_error")
        self.headers = headers or {}

    def to_response(self) -> Response:
        response = jsonify(error_body(self.message, self.type, self.param, self.code))
        response.status_code = self.status
        response.headers.update(self.headers)
        return response


def storage_api_error(error: StorageError) -> ApiError:
    """The error a route (or a WebSocket turn) answers a storage fault with: 507 ``storage_full`` or 503
    ``storage_unavailable``, its message saying what happened to which file and what to do."""
    return ApiError(error.message, error.status, code=error.code)


def wants_json() -> bool:
    """True for the machine-facing routes (``/api/*``, ``/v1/*``), which always answer JSON."""
    return request.path.startswith(JSON_PREFIXES)


def init_app(app: Flask) -> None:
    """Register the handlers: :class:`ApiError`, HTTP errors and, as a last resort, any exception."""

    @app.errorhandler(ApiError)
    def _api_error(error: ApiError) -> Response:
        return error.to_response()

    @app.errorhandler(StorageError)
    def _storage_error(error: StorageError) -> Any:
        app.logger.error("storage fault on %s: %s", request.path, error.message)
        if wants_json():
            return storage_api_error(error).to_response()
        page = HTTPException(description=error.message)
        page.code = error.status  # 503 Service Unavailable, 507 Insufficient Storage
        return render_template("error.html", error=page), error.status

    @app.errorhandler(HTTPException)
    def _http_error(error: HTTPException) -> Any:
        status = error.code or 500
        allowed = list(getattr(error, "valid_methods", None) or [])
        if status == 405 and allowed:
            path = request.path if len(request.path) <= 200 else request.path[:200] + "…"
            error.description = (
                f"The method {request.method} is not allowed on {path}; it answers {', '.join(allowed)}."
            )
        if wants_json():
            message = error.description or error.name
            if status == 413:
                limit = ParseLimits.from_config(app.config).max_bytes
                message = f"Request body is larger than the limit of {limit} bytes."
            response = ApiError(message, status, code=_HTTP_CODES.get(status)).to_response()
            if status == 405 and allowed:
                response.headers["Allow"] = ", ".join(allowed)
            return response
        headers = {"Allow": ", ".join(allowed)} if status == 405 and allowed else {}
        if status == 413:
            limit = ParseLimits.from_config(app.config).max_bytes or 0
            megabytes = f" ({limit / (1 << 20):.3g} MB)" if limit >= 1 << 20 else ""
            error.description = (
                f"What you sent is larger than the limit of {limit:,} bytes{megabytes}, so it was "
                "not read. Send less, or start the app with a larger MAX_CONTENT_LENGTH "
                "(FLASK_MAX_CONTENT_LENGTH)."
            )
            if is_partial():  # htmx swaps a 413 into the page's result area (base.html's htmx-config)
                return render_template("_too_large.html", message=error.description), status
        return render_template("error.html", error=error), status, headers

    @app.errorhandler(Exception)
    def _unexpected(error: Exception) -> Any:
        # A bug of ours: log it with its traceback, answer in the route's own language.
        app.logger.exception("unhandled error on %s", request.path)
        if wants_json():
            return ApiError("The server failed on this request; it is logged.", 500, code="server_error").to_response()
        return render_template("error.html", error=None), 500

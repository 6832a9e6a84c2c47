"""``/v1/responses`` (placeholder until its issue lands)."""

from __future__ import annotations

from flask import Blueprint

bp = Blueprint("responses", __name__, url_prefix="/v1")

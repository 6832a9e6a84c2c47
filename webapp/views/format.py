"""JSON Format page (placeholder until its issue lands)."""

from __future__ import annotations

from flask import Blueprint

bp = Blueprint("format", __name__)


@bp.get("/format")
def page() -> str:
    return "JSON Format: coming soon"

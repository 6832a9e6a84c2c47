"""JSON Schema page (placeholder until its issue lands)."""

from __future__ import annotations

from flask import Blueprint

bp = Blueprint("schema", __name__)


@bp.get("/schema")
def page() -> str:
    return "JSON Schema: coming soon"

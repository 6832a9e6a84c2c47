"""JSON Diff page (placeholder until its issue lands)."""

from __future__ import annotations

from flask import Blueprint

bp = Blueprint("diff", __name__)


@bp.get("/diff")
def page() -> str:
    return "JSON Diff: coming soon"

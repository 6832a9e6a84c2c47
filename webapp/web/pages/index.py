"""The landing page: the three steps of deciding whether a stored tool call may be replayed."""

from __future__ import annotations

from flask import Blueprint, render_template

bp = Blueprint("index", __name__)


@bp.get("/")
def index() -> str:
    """Show the workflow: 1 JSON Format, 2 JSON Schema, 3 JSON Diff, and the gate's reason codes."""
    return render_template("index/page.html")

"""``POST /api/gate`` (placeholder until the gate issue lands)."""

from __future__ import annotations

from flask import Blueprint

bp = Blueprint("api", __name__, url_prefix="/api")

"""Legacy ``/v1/chat/completions`` (placeholder until its issue lands)."""

from __future__ import annotations

from flask import Blueprint

bp = Blueprint("chat_completions", __name__, url_prefix="/v1")

"""The names ``webapp/core/gate.py`` imports from this module's old place; every other module imports the parse
layer's names from :mod:`webapp.core.json`, which defines where each lives."""

# kept for webapp/core/gate.py until the gate package lands
from webapp.core.json import (
    DEFAULT_MAX_DEPTH,
    NOT_IJSON,
    JSONTextError,
    kind_of,
    loads_ijson,
    quote,
    try_loads_ijson,
)

__all__ = ["DEFAULT_MAX_DEPTH", "NOT_IJSON", "JSONTextError", "kind_of", "loads_ijson", "quote", "try_loads_ijson"]

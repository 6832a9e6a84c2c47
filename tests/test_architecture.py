"""The pure core imports no Flask (checked on the source with ``ast``, standard library only)."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parent.parent / "webapp"
PURE = ["gate", "jsontext", "pointer", "schema", "format", "diff", "openresponses", "testmodel",
        "journal", "chatcompletions", "sse"]
FORBIDDEN = ("flask", "werkzeug", "jinja2", "htmx_flask", "webapp.views", "webapp.errors", "webapp.htmx")


def imported_modules(path: Path) -> set[str]:
    names: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:  # relative import inside webapp
                base = "webapp." + base if base else "webapp"
            names.add(base)
            names.update(f"{base}.{alias.name}" for alias in node.names)
    return names


@pytest.mark.parametrize("name", [n for n in PURE if (PACKAGE / f"{n}.py").exists()])
def test_pure_module_imports_no_web_framework(name):
    bad = sorted(m for m in imported_modules(PACKAGE / f"{name}.py")
                 if any(m == f or m.startswith(f + ".") for f in FORBIDDEN))
    assert bad == [], f"webapp/{name}.py is pure but imports {bad}"

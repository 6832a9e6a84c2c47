"""The house rules, checked on the source with ``ast`` (standard library only).

- Every module under ``webapp/core`` is pure: it imports no web framework and nothing of ``webapp.web``.
- No module imports a private name (``_x``) from another module of the app.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parent.parent / "webapp"
CORE = PACKAGE / "core"
FORBIDDEN = ("flask", "werkzeug", "jinja2", "htmx_flask", "webapp.web")
# The core as it must at least be: a module that is renamed or dropped fails here instead of silently leaving the
# walk below (the walk finds every module; this list only proves the walk sees the ones the README names).
EXPECTED = {"items", "gate", "journal", "format", "diff", "json/pointer", "json/text", "schema/__init__",
            "responses/models", "responses/testmodel", "responses/sse", "responses/chat_completions",
            "examples", "tree", "inspection", "format_page", "schema_check", "align", "blockers", "diff_page",
            "json/locate"}


def module_name(path: Path) -> str:
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def imports(path: Path) -> list[tuple[str, str | None]]:
    """(module, imported name or None) for each import in ``path``, relative imports made absolute."""
    found: list[tuple[str, str | None]] = []
    package = module_name(path) if path.name == "__init__.py" else module_name(path).rpartition(".")[0]
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            found.extend((alias.name, None) for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join([*anchor, base] if base else anchor)
            found.extend((base, alias.name) for alias in node.names)
    return found


CORE_MODULES = sorted(CORE.rglob("*.py"))
ALL_MODULES = sorted(PACKAGE.rglob("*.py"))


def test_the_core_has_the_modules_the_readme_names():
    present = {str(p.relative_to(CORE).with_suffix("")) for p in CORE_MODULES}
    assert EXPECTED <= present, f"missing from webapp/core: {sorted(EXPECTED - present)}"


@pytest.mark.parametrize("path", CORE_MODULES, ids=lambda p: str(p.relative_to(PACKAGE)))
def test_core_module_imports_no_web_framework(path):
    bad = sorted({f"{m}.{n}" if n else m for m, n in imports(path)
                  if any(m == f or m.startswith(f + ".") for f in FORBIDDEN)})
    assert bad == [], f"{path.relative_to(PACKAGE)} is in the pure core but imports {bad}"


@pytest.mark.parametrize("path", ALL_MODULES, ids=lambda p: str(p.relative_to(PACKAGE)))
def test_no_private_name_is_imported_from_another_module(path):
    bad = sorted(f"{m}.{n}" for m, n in imports(path)
                 if m.startswith("webapp") and n and n.startswith("_") and not n.startswith("__"))
    assert bad == [], f"{path.relative_to(PACKAGE)} imports private names {bad}"

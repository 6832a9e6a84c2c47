"""The house rules, checked on the source with ``ast`` (standard library only).

- Every module under ``webapp/core`` is pure: it imports no web framework and nothing of ``webapp.web``.
- No module imports a private name (``_x``) from another module of the app.
- The JSON layer is imported from its package, ``webapp.core.json`` (its ``__init__.py`` says where each name
  lives): no module of the app outside it imports one of its modules' names, and no test or benchmark imports
  from a module of it a name the package exports.
- Domain code never imports a page model: only the page views (``webapp/web/pages/``) and the models themselves
  import ``webapp.core.pages``; the CLI, the ``/api`` and ``/v1`` routes and the rest of the core use the domain.
- The deprecated ``/v1/chat/completions`` layer (``webapp/core/responses/legacy_chat/``) takes no request or
  response model from the ``/v1/responses`` core: only functions, settings and the field error cross over.
- The page views read their fields through ``webapp.web.forms`` only (never ``request.form``, ``.args``,
  ``.files`` or ``.values``), so every page reads a text field's line breaks as typed.
- ``docs/layout.md`` names every module there is and none that is gone (a renamed module fails here); README's
  short Layout names every package of ``webapp/`` and every top-level folder, and none that is gone; every page in
  ``PAGES`` has its view module, its model (``webapp/core/pages/<page>.py``) and its templates; every page in
  ``OTHER_PAGES`` (outside the nav) its view module and its template.
"""

from __future__ import annotations

import ast
import functools
import importlib
import re
from pathlib import Path

import pytest
from support import REPO

PACKAGE = REPO / "webapp"
CORE = PACKAGE / "core"
FORBIDDEN = ("flask", "werkzeug", "jinja2", "htmx_flask", "webapp.web")
README = PACKAGE.parent / "README.md"
LAYOUT = PACKAGE.parent / "docs" / "layout.md"


def layout_block(path: Path, heading: str = "") -> str:
    """The first fenced block of ``path`` after ``heading`` (the whole text when empty).

    :raises AssertionError: the heading or the block is not there (the layout moved, say where to)."""
    text = path.read_text(encoding="utf-8")
    assert heading in text, f"{path.name} has no {heading!r}"
    parts = (text.split(heading, 1)[1] if heading else text).split("```", 2)
    assert len(parts) == 3, f"{path.name}: no fenced layout block after {heading!r}"
    return parts[1]


def layout_modules() -> set[str]:
    """The modules ``docs/layout.md`` names, as paths under ``webapp/`` (``core/json/parser.py``).

    The layout block nests folders by indentation (``core/``, ``  json/``); a line may name several modules, and a
    folder's own line or its continuation lines may name modules inside it."""
    block = layout_block(LAYOUT)
    folders: list[tuple[int, str]] = []  # (indent, path) of the open folders
    last_entry: tuple[int, str] | None = None
    found: set[str] = set()
    for line in block.splitlines():
        if not line.strip():
            continue
        indent = len(line) - len(line.lstrip())
        head = line.split()[0]
        continuation = last_entry is not None and indent > last_entry[0] + 12  # the description column
        if not continuation:
            while folders and folders[-1][0] >= indent:
                folders.pop()
            if head.endswith("/") and not head.startswith(
                ("templates", "static", "tests", "benchmarks", "docs", "scripts")
            ):
                base = folders[-1][1] if folders else ""
                folders.append((indent, base + head))
            last_entry = (indent, head)
        where = folders[-1][1] if folders else ""
        if not where.startswith("webapp/"):
            continue
        for name in re.findall(r"(?<![\w/.])(\w+\.py)\b", line):
            found.add(where.removeprefix("webapp/") + name)
    return found


def test_the_module_map_names_every_module_and_only_modules_that_exist():
    named = layout_modules()
    present = {str(p.relative_to(PACKAGE)) for p in PACKAGE.rglob("*.py") if "web/pages" not in str(p)}
    present -= {
        "core/responses/__init__.py",
        "core/convert/__init__.py",
        "core/diff/__init__.py",
        "core/json/__init__.py",
        "core/pages/__init__.py",
        "core/schema/__init__.py",
        "web/api/__init__.py",
        "web/pages/__init__.py",
    }  # packages' markers
    assert sorted(named - {str(p.relative_to(PACKAGE)) for p in PACKAGE.rglob("*.py")}) == [], "named, missing"
    assert sorted(present - named) == [], "modules docs/layout.md does not name"


def readme_folders() -> set[str]:
    """The folders README's short Layout names, as paths from the repository's root (``webapp/core/gate``).

    One folder a line, nested by indentation; the first word of a line is its folder."""
    folders: list[tuple[int, str]] = []  # (indent, path) of the open folders
    found: set[str] = set()
    for line in layout_block(README, "## Layout").splitlines():
        if not line.strip():
            continue
        indent = len(line) - len(line.lstrip())
        head = line.split()[0]
        assert head.endswith("/"), f"README's Layout: {line.strip()!r} is not a folder's line"
        while folders and folders[-1][0] >= indent:
            folders.pop()
        path = (folders[-1][1] + "/" if folders else "") + head.rstrip("/")
        folders.append((indent, path))
        found.add(path)
    return found


#: Top-level folders that are never the repository's own (tools' output, the ignored ones of .gitignore).
NOT_THE_REPOS = ("instance", "build", "test-results", "node_modules", "__pycache__")


def test_the_readme_layout_names_every_package_and_top_level_folder_and_only_those():
    named = readme_folders()
    root = PACKAGE.parent
    top = {
        p.name
        for p in root.iterdir()
        if p.is_dir()
        and not p.name.startswith((".", "_"))
        and p.name not in NOT_THE_REPOS
        and not p.name.endswith(".egg-info")
    }
    packages = {str(p.parent.relative_to(root)) for p in PACKAGE.rglob("__init__.py")}
    packages |= {str(p.relative_to(root)) for p in PACKAGE.iterdir() if p.is_dir() and p.name != "__pycache__"}
    present = top | packages
    assert sorted(present - named) == [], "folders README's Layout does not name"
    assert sorted(name for name in named if not (root / name).is_dir()) == [], "named in README's Layout, missing"


def test_every_page_has_its_view_its_model_and_its_templates():
    from webapp.web import OTHER_PAGES, PAGES

    for page in PAGES:
        assert (PACKAGE / "web" / "pages" / f"{page.blueprint}.py").is_file(), f"{page.blueprint}: no view module"
        assert (CORE / "pages" / f"{page.blueprint}.py").is_file(), f"{page.blueprint}: no model in core/pages/"
        for template in ("page.html", "_landing.html"):
            assert (PACKAGE.parent / "templates" / page.blueprint / template).is_file()
    for name in OTHER_PAGES:  # outside the nav: no panel on the landing page
        assert (PACKAGE / "web" / "pages" / f"{name}.py").is_file()
        assert (PACKAGE.parent / "templates" / name / "page.html").is_file()


def module_name(path: Path) -> str:
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


@functools.cache  # each module is read by several rules: parse it once
def imports(path: Path) -> tuple[tuple[str, str | None], ...]:
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
    return tuple(found)


CORE_MODULES = sorted(CORE.rglob("*.py"))
ALL_MODULES = sorted(PACKAGE.rglob("*.py"))


@pytest.mark.parametrize("path", CORE_MODULES, ids=lambda p: str(p.relative_to(PACKAGE)))
def test_core_module_imports_no_web_framework(path):
    bad = sorted(
        {f"{m}.{n}" if n else m for m, n in imports(path) if any(m == f or m.startswith(f + ".") for f in FORBIDDEN)}
    )
    assert bad == [], f"{path.relative_to(PACKAGE)} is in the pure core but imports {bad}"


@pytest.mark.parametrize("path", ALL_MODULES, ids=lambda p: str(p.relative_to(PACKAGE)))
def test_no_private_name_is_imported_from_another_module(path):
    bad = sorted(
        f"{m}.{n}"
        for m, n in imports(path)
        if m.startswith("webapp") and n and n.startswith("_") and not n.startswith("__")
    )
    assert bad == [], f"{path.relative_to(PACKAGE)} imports private names {bad}"


JSON_PACKAGE = "webapp.core.json"


@pytest.mark.parametrize("path", ALL_MODULES, ids=lambda p: str(p.relative_to(PACKAGE)))
def test_the_json_layer_is_imported_from_its_package(path):
    where = str(path.relative_to(PACKAGE))
    if where.startswith("core/json/"):
        return
    bad = sorted({f"{m}.{n}" if n else m for m, n in imports(path) if m.startswith(JSON_PACKAGE + ".")})
    assert bad == [], f"{where} imports {bad}: import them from {JSON_PACKAGE}"


OUTSIDE_MODULES = sorted(
    p
    for folder in ("tests", "benchmarks")
    for p in (PACKAGE.parent / folder).rglob("*.py")
    if "node_modules" not in str(p) and ".cache" not in str(p)
)


@pytest.mark.parametrize("path", OUTSIDE_MODULES, ids=lambda p: str(p.relative_to(PACKAGE.parent)))
def test_tests_and_benchmarks_take_the_json_layers_public_names_from_its_package(path):
    import webapp.core.json as package

    bad = sorted(f"{m}.{n}" for m, n in imports(path) if m.startswith(JSON_PACKAGE + ".") and n in package.__all__)
    assert bad == [], f"{path.relative_to(PACKAGE.parent)} imports {bad}: import them from {JSON_PACKAGE}"


PAGE_MODULES = sorted((PACKAGE / "web" / "pages").glob("*.py"))


@pytest.mark.parametrize("path", PAGE_MODULES, ids=lambda p: str(p.relative_to(PACKAGE)))
def test_page_views_read_their_fields_through_forms(path):
    bad = sorted(
        {
            f"request.{node.attr}"
            for node in ast.walk(ast.parse(path.read_text(), str(path)))
            if isinstance(node, ast.Attribute)
            and node.attr in ("form", "args", "files", "values")
            and isinstance(node.value, ast.Name)
            and node.value.id == "request"
        }
    )
    assert bad == [], f"{path.relative_to(PACKAGE)} reads {bad}: use webapp.web.forms (text, flag, choice, upload)"


PAGES_PACKAGE = "webapp.core.pages"


@pytest.mark.parametrize("path", ALL_MODULES, ids=lambda p: str(p.relative_to(PACKAGE)))
def test_only_the_page_views_import_a_page_model(path):
    where = str(path.relative_to(PACKAGE))
    if where.startswith(("core/pages/", "web/pages/")):
        return
    bad = sorted(
        {
            f"{m}.{n}" if n else m
            for m, n in imports(path)
            if m == PAGES_PACKAGE or m.startswith(PAGES_PACKAGE + ".") or (m == "webapp.core" and n == "pages")
        }
    )
    assert bad == [], f"{where} imports the page models {bad}: domain code uses the domain"


LEGACY_CHAT = CORE / "responses" / "legacy_chat"
RESPONSES_PACKAGE = "webapp.core.responses"
#: The classes the deprecated layer may take from the /v1/responses core: the attachment limits (settings), the
#: field error it extends, and the test model's result (its items are plain JSON), never a request/response model.
LEGACY_MAY_SHARE = {"Limits", "RequestError", "Generation"}


def classes_from_responses(pairs: list[tuple[str, str | None]], inner: str) -> dict[str, str]:
    """Of ``pairs`` (module, imported name) as :func:`imports` gives them, the classes imported from
    ``webapp.core.responses`` outside the package ``inner`` itself: name -> the module it came from."""
    found: dict[str, str] = {}
    for module, name in pairs:
        if name is None or not (module == RESPONSES_PACKAGE or module.startswith(RESPONSES_PACKAGE + ".")):
            continue
        if module == inner or module.startswith(inner + "."):
            continue
        if isinstance(getattr(importlib.import_module(module), name, None), type):
            found[name] = module
    return found


def test_the_legacy_module_shares_no_schema_types_with_the_responses_models():
    """Gateway plan, deprecation path: only functions cross over (the wire format is plain JSON)."""
    sources = sorted(LEGACY_CHAT.glob("*.py"))
    assert len(sources) > 1, f"{LEGACY_CHAT.relative_to(PACKAGE)} is gone: point this rule at where it moved"
    pairs = [pair for source in sources for pair in imports(source)]
    inner = module_name(LEGACY_CHAT / "__init__.py")
    outside = sorted({m for m, _ in pairs if m.startswith(RESPONSES_PACKAGE + ".") and not m.startswith(inner)})
    assert outside, "the layer imports nothing of the responses core: this rule checks nothing"
    classes = classes_from_responses(pairs, inner)
    assert set(classes) <= LEGACY_MAY_SHARE, classes  # settings, the error, the model's result: never a model


def test_a_request_model_taken_by_the_legacy_layer_is_found():
    pairs = [
        ("webapp.core.responses.request", "CreateRequest"),
        ("webapp.core.responses.request", "parse_create_request"),
        ("webapp.core.responses.fields", "RequestError"),
        ("webapp.core.responses.legacy_chat.request", "ChatRequest"),
        ("webapp.core.json", "Document"),
    ]
    found = classes_from_responses(pairs, "webapp.core.responses.legacy_chat")
    assert found == {"CreateRequest": "webapp.core.responses.request", "RequestError": "webapp.core.responses.fields"}

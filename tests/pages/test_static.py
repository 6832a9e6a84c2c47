"""The scripts of ``static/`` as a browser gets them: each one served as JavaScript (a module script of any other
type is refused, and under ``nosniff`` a classic one too), whatever the host's MIME tables say, and the ES modules
``templates/base.html`` loads (``static/state/``) a complete graph: every import names a module that is served."""

from __future__ import annotations

import mimetypes
import re
from urllib.parse import urljoin

import pytest
from support import REPO

from webapp import create_app

STATIC = REPO / "static"
SCRIPTS = sorted(path.relative_to(STATIC).as_posix() for path in STATIC.rglob("*.js"))
# A static import's module specifier: `import { a } from "./x.js";` (perhaps over several lines) or `import "./x.js";`.
IMPORT = re.compile(r"""^import\s(?:[^"';]*?\sfrom\s)?["']([^"']+)["']""", re.M)


@pytest.mark.parametrize("name", SCRIPTS)
def test_every_script_is_served_as_javascript(client, name):
    response = client.get(f"/static/{name}")
    assert response.status_code == 200
    assert response.mimetype == "text/javascript"
    assert response.headers["X-Content-Type-Options"] == "nosniff"


def test_scripts_are_javascript_whatever_the_hosts_mime_table_says(monkeypatch, tmp_path):
    mimetypes.guess_type("x.js")  # the tables read, so the one in use is the one changed below
    monkeypatch.setitem(mimetypes.types_map, ".js", "text/plain")  # as a Windows registry may say
    assert mimetypes.guess_type("x.js")[0] == "text/plain"
    app = create_app({"TESTING": True, "API_TOKEN": "t", "RESPONSES_DATABASE": str(tmp_path / "r.sqlite3")})
    assert app.test_client().get("/static/state/main.js").mimetype == "text/javascript"


def test_the_pages_load_the_state_modules_as_one_complete_graph(client):
    page = client.get("/format").get_data(as_text=True)
    entries = re.findall(r'<script type="module" src="([^"]+)"', page)
    assert entries == ["/static/state/main.js"]
    seen: set[str] = set()
    todo = list(entries)
    while todo:
        url = todo.pop()
        if url in seen:
            continue
        seen.add(url)
        response = client.get(url)
        assert response.status_code == 200 and response.mimetype == "text/javascript", url
        for specifier in IMPORT.findall(response.get_data(as_text=True)):
            # Relative to the importing module: a bare name ("htmx") would need an import map, which the page has not.
            assert specifier.startswith("./"), (url, specifier)
            todo.append(urljoin(url, specifier))
    # Every module of static/state/ is reached from the entry: none is dead or loaded some other way.
    assert seen == {f"/static/{name}" for name in SCRIPTS if name.startswith("state/")}

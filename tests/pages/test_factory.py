from webapp import create_app


def test_config_defaults_and_override():
    assert not create_app({"API_TOKEN": "x"}).testing
    app = create_app({"TESTING": True, "API_TOKEN": "x"})
    assert app.testing
    assert app.config["MAX_CONTENT_LENGTH"] == 20 * 1024 * 1024


def test_prefixed_environment_is_read(monkeypatch):
    monkeypatch.setenv("FLASK_CHAT_COMPLETIONS_ENABLED", "true")
    monkeypatch.setenv("FLASK_API_TOKEN", '"from-env"')
    app = create_app({"TESTING": True})
    assert app.config["CHAT_COMPLETIONS_ENABLED"] is True
    assert app.config["API_TOKEN"] == "from-env"


def test_token_is_generated_when_unset():
    app = create_app({"TESTING": True})
    assert app.config["API_TOKEN"].startswith("sk-local-")


def test_landing_page_lists_the_three_steps(client):
    html = client.get("/").get_data(as_text=True)
    for step in ("JSON Format", "JSON Schema", "JSON Diff"):
        assert step in html
    assert client.get("/").headers["Vary"] == "HX-Request"


def test_landing_page_shows_the_gates_reasons_in_its_order(client):
    """Rendered from webapp.core.gate.REASONS: a rule added to the gate's table shows here without a template edit."""
    from webapp.core.gate import REASONS

    html = client.get("/").get_data(as_text=True)
    assert " → ".join(f"<code>{reason}</code>" for reason in REASONS) + "." in html
    assert REASONS[0] == "namespaced" and REASONS[-1] == "ok"

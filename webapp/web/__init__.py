"""The Flask side: blueprints, the JSON error shape, htmx, the response store and the configured limits.

Everything here may import Flask; everything it decides is delegated to :mod:`webapp.core`, and templates get the
gate's policy from here (:data:`GATE_GLOBALS`) rather than spelling it. The app factory registers the landing page,
every page in :data:`PAGES` (module ``pages/<blueprint>.py``), the pages outside the nav (:data:`OTHER_PAGES`) and
:data:`APIS`; the nav bar and the landing page are rendered from :data:`PAGES` (each page's
``templates/<blueprint>/_landing.html`` is its panel there), so a new page is one module, its templates and one line
in :data:`PAGES`.
"""

from __future__ import annotations

from dataclasses import dataclass
from importlib import import_module
from types import ModuleType

from flask import Flask

from webapp.core import gate


@dataclass(frozen=True)
class Page:
    """A workflow page as the nav bar and the landing page show it.

    :param blueprint: the blueprint's name; its page view is ``<blueprint>.page``.
    :param title: the nav label, e.g. ``"JSON Format"``.
    :param step: the number shown before the title, or ``None`` for a page outside the numbered steps.
    """

    blueprint: str
    title: str
    step: int | None = None

    @property
    def endpoint(self) -> str:
        return f"{self.blueprint}.page"


PAGES: tuple[Page, ...] = (
    Page("format", "JSON Format", 1),
    Page("schema", "JSON Schema", 2),
    Page("diff", "JSON Diff", 3),
    Page("journal", "Journal"),
    Page("stream", "Stream"),
)

#: Pages outside the nav, reached by links: their blueprint names (module ``pages/<name>.py``, templates
#: ``templates/<name>/``). The sessions page is linked from ``/v1/sessions/{key}/items``.
OTHER_PAGES: tuple[str, ...] = ("sessions",)

# The machine APIs: module paths under webapp.web, registered after the pages.
APIS: tuple[str, ...] = (
    "api.gate",
    "api.export",
    "api.convert",
    "api.tools",
    "api.responses",
    "api.websocket",
    "api.legacy_chat",
)


def blueprint_modules() -> list[ModuleType]:
    """The landing page, the pages of :data:`PAGES` and :data:`OTHER_PAGES`, and the :data:`APIS`, imported in
    registration order.

    Each module has ``bp`` (a :class:`flask.Blueprint`) and may have ``init_app(app)``.
    """
    names = ("pages.index", *(f"pages.{page.blueprint}" for page in PAGES), *(f"pages.{n}" for n in OTHER_PAGES), *APIS)
    return [import_module(f"{__name__}.{name}") for name in names]


#: What templates get of the gate's policy, once, so that none decides it itself: ``gate_badge(label)`` (the badge
#: class of a label: ``ok``, ``info``, ``bad``), ``is_refusal(label)`` and ``GATE_REASONS`` (the reasons in the order
#: the gate tries them). See :mod:`webapp.core.gate.labels`.
GATE_GLOBALS = {"gate_badge": gate.badge, "is_refusal": gate.is_refusal, "GATE_REASONS": gate.REASONS}


def init_app(app: Flask) -> None:
    """Set the request class (htmx-flask's, its form fields read with their bytes kept:
    :func:`webapp.web.forms.init_app`), open the ``/v1`` store, register every blueprint, run each module's
    ``init_app``, and give templates :data:`PAGES` and :data:`GATE_GLOBALS`."""
    from webapp.web import errors, forms, htmx, limits
    from webapp.web.api import v1

    htmx.init_app(app)
    forms.init_app(app)  # after htmx-flask, whose request class it extends
    limits.init_app(app)
    errors.init_app(app)
    v1.init_app(app)
    for module in blueprint_modules():
        app.register_blueprint(module.bp)
        init = getattr(module, "init_app", None)
        if init is not None:
            init(app)
    app.jinja_env.globals["PAGES"] = PAGES
    app.jinja_env.globals.update(GATE_GLOBALS)

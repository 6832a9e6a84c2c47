"""The pages' models, one module per page, named as the page is: ``pages/<page>.py`` mirrors the view
``webapp/web/pages/<page>.py`` and the templates ``templates/<page>/``.

Each model has one entry point, ``build(...)``, answering everything its page shows for one submission
(``FormatPage``, ``SchemaPage``, ``DiffPage``, ``StreamPage``, ``JournalPage``); bad input is part of the answer,
never an exception.
A model goes one way through a pasted text: read by the parse layer (:mod:`webapp.core.json`; a journal once, by
:func:`webapp.core.journal.read_text`), its shape and provider found by the domain (:mod:`webapp.core.journal`,
:mod:`webapp.core.convert`), then the gate (:mod:`webapp.core.gate`), then the page's own layout of the answer.
Domain code never imports a page model (``tests/unit/test_architecture.py``).
"""

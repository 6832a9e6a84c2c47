"""The pages' models, one module per page, named as the page is: ``pages/<page>.py`` mirrors the view
``webapp/web/pages/<page>.py`` and the templates ``templates/<page>/``.

Each model has one entry point, ``build(...)``, answering everything its page shows for one submission
(``FormatPage``, ``SchemaPage``, ``DiffPage``, ``JournalPage``); bad input is part of the answer, never an exception.
A model reads the pasted text once (:mod:`webapp.core.json`), takes its shape and provider from the domain
(:mod:`webapp.core.journal`, :mod:`webapp.core.convert`), asks the gate (:mod:`webapp.core.gate`), and lays out the
answer. Domain code never imports a page model.
"""

"""The pages' models, one module per page, named as the page is: ``pages/<page>.py`` mirrors the view
``webapp/web/pages/<page>.py`` and the templates ``templates/<page>/``. Each model has one entry point,
``build(...)``, answering everything its page shows for one submission; bad input is part of the answer, never an
exception. Domain code never imports a page model.
"""

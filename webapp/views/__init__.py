"""Flask blueprints, one module per feature: ``index``, ``format``, ``schema``, ``diff`` (pages),
``api`` (``/api/gate``), ``responses`` (``/v1/responses``), ``chat_completions`` (legacy)."""

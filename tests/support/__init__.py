"""What the tests share besides fixtures (those are in the conftest.py files): importable as ``support`` from
every test folder (pyproject.toml puts ``tests/`` on the path)."""

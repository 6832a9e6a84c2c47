"""The browser tests' settings for pytest-playwright: Debian's Chromium, and the app served for the session as
every context's base URL (``page.goto("/format")``)."""

from __future__ import annotations

import os

import pytest


@pytest.fixture(scope="session")
def base_url(live_server: str) -> str:
    # pytest-playwright hands base_url to every browser context, so page.goto("/format") works.
    return live_server


@pytest.fixture(scope="session")
def browser_type_launch_args(browser_type_launch_args):
    """Launch Debian's Chromium: playwright cannot download its own browser on these machines."""
    if browser_type_launch_args.get("channel"):
        return browser_type_launch_args
    return {
        **browser_type_launch_args,
        "executable_path": os.environ.get("CHROMIUM", "/usr/bin/chromium"),
        # No DNS lookups for Google's hosts from a closed network; loopback only.
        "args": ["--host-resolver-rules=MAP * ~NOTFOUND , EXCLUDE 127.0.0.1"],
    }

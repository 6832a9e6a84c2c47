from playwright.sync_api import Page, expect


def test_landing_page_loads_vendored_htmx_and_links_the_steps(page: Page):
    page.goto("/")
    expect(page.get_by_role("heading", level=1)).to_contain_text("replayed")
    assert page.evaluate("htmx.version") == "2.0.11"  # served from static/, no CDN
    page.get_by_role("link", name="1 JSON Format").click()
    expect(page).to_have_url(f"{page.url.split('/format')[0]}/format")

from playwright.sync_api import Page, expect


def test_landing_page_loads_vendored_htmx_and_links_the_steps(page: Page):
    page.goto("/")
    expect(page.get_by_role("heading", level=1)).to_contain_text("replayed")
    assert page.evaluate("htmx.version") == "2.0.11"  # served from static/, no CDN
    page.get_by_role("link", name="1 JSON Format").click()
    expect(page).to_have_url(f"{page.url.split('/format')[0]}/format")


def test_the_landing_pages_privacy_sentence_says_what_happens(page: Page):
    # Issue 20, §3: "sent anywhere" was not so: the text goes to this local server, which keeps nothing.
    page.goto("/")
    intro = page.locator("main > p").first
    expect(intro).to_contain_text("What you paste goes to this local server to be checked and is not stored there")
    expect(intro).to_contain_text("this browser keeps your input")  # the kept input: JavaScript is on here


def test_the_nav_numbers_the_steps_of_one_item_only(page: Page):
    # 1-3 are the steps for one stored call; the Journal (a whole conversation) and the Stream are no fourth step.
    page.goto("/stream")
    expect(page.locator("nav.steps a")).to_have_text(
        ["1 JSON Format", "2 JSON Schema", "3 JSON Diff", "Journal", "Stream"]
    )
    expect(page.get_by_role("heading", level=1)).to_have_text("Stream")

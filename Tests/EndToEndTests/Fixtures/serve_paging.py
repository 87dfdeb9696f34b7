"""Clicks `bowties serve`'s first- and last-page buttons in a real Chromium.

    python3 serve_paging.py PORT BOWTIES_BINARY STORE SCREENSHOT_FOLDER

Run by ServeBrowserPagingTests on a catalog of more ties than one page
holds. For each window (a desktop's, then a phone's) and each order it
tries, it chooses the order, clicks the last-page button and expects the
order's last ties, as `bowties list sort:FIELD --json` lists them, then
the first-page button and the first ties. Prints one `ok: ...` line per
step and exits 0, or fails with an AssertionError naming the step.
Screenshots of each window on its last page go to SCREENSHOT_FOLDER.
"""
import json
import os
import subprocess
import sys
import tempfile

from selenium import webdriver
from selenium.webdriver.chrome.options import Options
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import Select, WebDriverWait

port, bowties, store, shots = sys.argv[1:5]
origin = f"http://127.0.0.1:{port}"
profile = tempfile.mkdtemp(prefix="bowties-chromium-")
environment = dict(os.environ, BOWTIES_STORE=store)
LIMIT = 50  # the page's length (PageJS: state.limit)

options = Options()
options.binary_location = "/usr/bin/chromium"
for argument in ["--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                 f"--user-data-dir={profile}", "--hide-scrollbars", "--force-device-scale-factor=1"]:
    options.add_argument(argument)
driver = webdriver.Chrome(service=Service("/usr/bin/chromedriver"), options=options)
driver.set_page_load_timeout(20)


def wait(condition, what, seconds=10.0):
    try:
        return WebDriverWait(driver, seconds, poll_frequency=0.05).until(lambda _: condition())
    except Exception as error:
        raise AssertionError(f"{what}: not seen within {seconds} s; the page shows {shown()} "
                             f"({text('range')!r})") from error


def shown():
    """The ties the segmented control shows, by name, in order (read in
    one script: the buttons are replaced whenever a page loads)."""
    return driver.execute_script(
        "return Array.from(document.querySelectorAll('#segments button'), (b) => b.getAttribute('aria-label'));")


def text(element_id):
    return driver.execute_script(f"return document.getElementById('{element_id}').textContent;")


def listed(term):
    """Every tie's name in the order of `bowties list TERM`."""
    output = subprocess.run([bowties, "list", "--json", term], env=environment, check=True,
                            capture_output=True, text=True).stdout
    return [tie["name"] for tie in json.loads(output)]


def click(button_id):
    button = driver.find_element(By.ID, button_id)
    assert button.is_displayed(), f"the {button_id} button is hidden"
    assert button.is_enabled(), f"the {button_id} button is disabled"
    button.click()


try:
    for window, (width, height) in [("desktop", (1280, 900)), ("phone", (390, 844))]:
        driver.set_window_size(width, height)
        driver.get(origin + "/")
        wait(lambda: len(shown()) == LIMIT, "the first page")
        for sort, term in [("name", "sort:name"), ("rating", "sort:rating"), ("lastWorn", "sort:lastWorn")]:
            names = listed(term)
            total = len(names)
            assert total > 2 * LIMIT, f"{total} ties: fewer than two pages and a bit"
            Select(driver.find_element(By.ID, "sort")).select_by_value(sort)
            wait(lambda: shown() == names[:LIMIT], f"{window}, {sort}: the first page after choosing the order")
            click("last")
            last = names[-LIMIT:]
            wait(lambda: shown() == last, f"{window}, {sort}: the last {LIMIT} ties after Last page")
            wait(lambda: text("range") == f"{total - LIMIT + 1}–{total} of {total}",
                 f"{window}, {sort}: the last page's range")
            wait(lambda: text("name") == last[0], f"{window}, {sort}: the tie shown")
            assert not driver.find_element(By.ID, "last").is_enabled(), "Last page stays enabled on the last page"
            print(f"ok: {window}, {sort}: Last page shows ties {total - LIMIT + 1}–{total}: "
                  f"{last[0]!r} … {last[-1]!r}")
            if sort == "name":
                driver.save_screenshot(os.path.join(shots, f"serve-last-page-{window}.png"))
            click("first")
            wait(lambda: shown() == names[:LIMIT], f"{window}, {sort}: the first {LIMIT} ties after First page")
            wait(lambda: text("range") == f"1–{LIMIT} of {total}",
                 f"{window}, {sort}: the first page's range")
            assert not driver.find_element(By.ID, "first").is_enabled(), "First page stays enabled on the first page"
            print(f"ok: {window}, {sort}: First page shows ties 1–{LIMIT}: {names[0]!r} … {names[LIMIT - 1]!r}")
finally:
    driver.quit()
    subprocess.run(["rm", "-rf", profile])

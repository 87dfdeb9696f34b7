"""Drives `bowties serve`'s page in a real Chromium (Selenium, chromedriver).

    python3 serve_page.py PORT BOWTIES_BINARY STORE SCREENSHOT_FOLDER

Run by ServeBrowserTests. Prints one `ok: ...` line per step and exits 0,
or fails with an AssertionError naming the step. `evil.example` resolves
to 127.0.0.1 inside this browser only (--host-resolver-rules): a page of
another site whose name was rebound to this machine, as in a DNS
rebinding attack.
"""
import json
import os
import subprocess
import sys
import tempfile
import time

from selenium import webdriver
from selenium.webdriver.chrome.options import Options
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import WebDriverWait

port, bowties, store, shots = sys.argv[1:5]
origin = f"http://127.0.0.1:{port}"
profile = tempfile.mkdtemp(prefix="bowties-chromium-")

options = Options()
options.binary_location = "/usr/bin/chromium"
for argument in ["--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                 f"--user-data-dir={profile}", "--host-resolver-rules=MAP evil.example 127.0.0.1",
                 "--hide-scrollbars", "--force-device-scale-factor=1"]:
    options.add_argument(argument)
driver = webdriver.Chrome(service=Service("/usr/bin/chromedriver"), options=options)
driver.set_page_load_timeout(20)


def wait(condition, what, seconds=5.0):
    try:
        return WebDriverWait(driver, seconds, poll_frequency=0.05).until(lambda _: condition())
    except Exception as error:
        raise AssertionError(f"{what}: not seen within {seconds} s") from error


def text(element_id):
    return driver.find_element(By.ID, element_id).text


def choose(key):
    driver.find_element(By.CSS_SELECTOR, f'#segments button[data-key="{key}"]').click()
    wait(lambda: text("key") == key, f"tie {key} shown")


try:
    driver.set_window_size(1280, 900)
    driver.get(origin + "/")
    wait(lambda: text("name") != "", "the first tie")
    choose("R")
    wait(lambda: text("name") == "Classic Red Bow Tie", "R's name")
    before = int(text("times-worn"))
    driver.execute_script("window.__sameDocument = true;")

    driver.find_element(By.ID, "wear").click()
    wait(lambda: text("times-worn") == str(before + 1), "the count after Wear")
    wait(lambda: text("undo").startswith('Undo "Wear'), "Undo naming the wear")
    print(f"ok: Wear counted ({before} -> {before + 1}); the button says {text('undo')}")

    started = time.monotonic()
    environment = dict(os.environ, BOWTIES_STORE=store)
    subprocess.run([bowties, "wear", "R"], env=environment, check=True, stdout=subprocess.DEVNULL)
    wait(lambda: text("times-worn") == str(before + 2), "the CLI's wear on the page", seconds=3)
    delay = time.monotonic() - started
    assert driver.execute_script("return window.__sameDocument === true;"), "the page was reloaded"
    assert delay < 1.5, f"the CLI's wear showed after {delay:.2f} s"
    print(f"ok: bowties wear from another process showed in {delay:.2f} s without a reload")

    rating = driver.find_element(By.ID, "rating")
    rating.clear()
    rating.send_keys("6\n")
    wait(lambda: text("rating-error").startswith("rating is too large."), "the rating's error next to its field")
    print(f"ok: rating 6 refused next to the field: {text('rating-error').splitlines()[0]}")

    choose("X")
    hostile = '<img src=x onerror="window.__pwned=1">'
    wait(lambda: text("name") == hostile, "the hostile name as text")
    assert not driver.find_elements(By.CSS_SELECTOR, "#name img, #segments img"), "the name became markup"
    time.sleep(0.3)
    assert driver.execute_script("return window.__pwned === undefined;"), "the hostile name ran"
    print("ok: a hostile name stays text")

    choose("R")
    time.sleep(0.3)
    driver.save_screenshot(os.path.join(shots, "serve-desktop.png"))
    driver.set_window_size(390, 844)
    time.sleep(0.3)
    driver.save_screenshot(os.path.join(shots, "serve-phone.png"))
    print("ok: screenshots")

    # Keyboard alone: Tab to the ties, arrows to choose, Enter on Wear.
    segment = driver.find_element(By.CSS_SELECTOR, '#segments button[aria-selected="true"]')
    segment.send_keys("\ue014")  # ArrowRight
    wait(lambda: text("key") != "R", "the next tie by keyboard")
    print(f"ok: ArrowRight chose {text('key')}")

    # A cross-site POST: a form on another site's page (a data: URL).
    def times_worn():
        shown = subprocess.run([bowties, "show", "R", "--json"], env=environment, check=True,
                               capture_output=True, text=True).stdout
        return json.loads(shown)["timesWorn"]

    worn = times_worn()
    driver.get("data:text/html,<form method=post enctype=text/plain action='" + origin
               + "/api/ties/R/wear'><input name=x value=y></form>")
    driver.execute_script("document.forms[0].submit();")
    wait(lambda: "crossSite" in driver.page_source or "notJSON" in driver.page_source, "the refusal")
    after = times_worn()
    assert after == worn, f"the cross-site POST wore R ({worn} -> {after})"
    print("ok: a cross-site POST was refused")

    driver.get(f"http://evil.example:{port}/")
    wait(lambda: "foreignHost" in driver.page_source, "the foreign Host's refusal")
    print("ok: a foreign Host was refused")
finally:
    driver.quit()
    subprocess.run(["rm", "-rf", profile])

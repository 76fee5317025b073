"""Drives `recorder serve`'s page in headless Chromium (Debian's chromium and chromium-driver, Selenium):
what a person with a phone does. Prints one JSON object of what it saw; the Swift test judges it.

    python3 browser_session.py URL DOWNLOADS SCREENSHOT SOURCE MARKER [--close-mid-take]

1. Opens URL; waits until the page is live and channel 1 shows a level; reads what the page shows (the
   value, its data-db, the bar's width) while an independent client reads /api/events (the JSON levels).
2. Chooses SOURCE and wav in the take sheet, scene "web", presses Record; waits (the page's clock) for 2 s;
   names a marker MARKER and presses Marker; takes a screenshot; at 4 s presses Stop.
3. Waits for the take in the list, measured, and clicks its download link: the file lands in DOWNLOADS.
With --close-mid-take: the browser is closed (its process ended) 1 s into the take, which must go on.
Every wait is for a state, with a ceiling only a hang reaches (60 s).
"""
import json
import os
import sys
import threading
import time
import urllib.request

from selenium import webdriver
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By
from selenium.common.exceptions import StaleElementReferenceException
from selenium.webdriver.support.ui import Select, WebDriverWait

url, downloads, screenshot, source, marker = sys.argv[1:6]
close_mid_take = sys.argv[6:] == ["--close-mid-take"]
CEILING = 60


def sse_levels(stop, seen):
    """Reads /api/events as a second client: the JSON levels messages, as sent."""
    with urllib.request.urlopen(url + "api/events", timeout=CEILING) as response:
        event = None
        for raw in response:
            if stop.is_set():
                return
            line = raw.decode().rstrip("\n")
            if line.startswith("event: "):
                event = line[7:]
            elif line.startswith("data: ") and event == "levels":
                seen.append(json.loads(line[6:]))


options = webdriver.ChromeOptions()
options.binary_location = "/usr/bin/chromium"
for flag in ("--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--window-size=420,1400",
             "--user-data-dir=" + os.path.join(downloads, ".profile")):
    options.add_argument(flag)
options.add_experimental_option("prefs", {"download.default_directory": downloads,
                                          "download.prompt_for_download": False})
driver = webdriver.Chrome(service=Service("/usr/bin/chromedriver"), options=options)
result = {}


def settled(action):
    """`action` retried until it returns something true, and while the page rebuilds what it touches (the
    take list is redrawn on each event)."""
    def attempt(_):
        try:
            return action()
        except StaleElementReferenceException:
            return False
    return WebDriverWait(driver, CEILING, poll_frequency=0.05).until(attempt)


try:
    wait = WebDriverWait(driver, CEILING, poll_frequency=0.05)
    stop, seen = threading.Event(), []
    reader = threading.Thread(target=sse_levels, args=(stop, seen), daemon=True)
    reader.start()
    driver.get(url)
    wait.until(lambda d: d.find_element(By.ID, "connection").text == "live")
    value = lambda: driver.find_element(By.CSS_SELECTOR, '.channel[data-channel="0"] .value')
    wait.until(lambda d: value().get_attribute("data-db") not in (None, ""))
    # Three readings of the page, each against the JSON levels the second client got.
    result["page"] = []
    for _ in range(3):
        time.sleep(0.3)
        bar = driver.find_element(By.CSS_SELECTOR, '.channel[data-channel="0"] .bar')
        result["page"].append({"text": value().text, "db": value().get_attribute("data-db"),
                               "width": bar.value_of_css_property("width"),
                               "track": driver.find_element(By.CSS_SELECTOR, '.channel[data-channel="0"] .track')
                               .value_of_css_property("width")})
    wait.until(lambda d: len(seen) >= 3)
    result["json"] = [message["peak_since_last_db"] for message in seen]
    result["integrated_text"] = driver.find_element(By.ID, "integrated").text
    result["loudness_note_shown"] = driver.find_element(By.ID, "loudness-note").is_displayed()

    driver.find_element(By.CSS_SELECTOR, "#sheet summary").click()
    wait.until(lambda d: any(o.get_attribute("value") == source for o in d.find_elements(By.CSS_SELECTOR, "#source option")))
    Select(driver.find_element(By.ID, "source")).select_by_value(source)
    Select(driver.find_element(By.ID, "type")).select_by_visible_text("wav")
    driver.find_element(By.ID, "scene").send_keys("web")
    driver.find_element(By.ID, "record").click()
    wait.until(lambda d: d.find_element(By.ID, "status").text == "REC")
    elapsed = lambda: sum(int(part) * factor for part, factor in
                          zip(driver.find_element(By.ID, "elapsed").text.split(":"), (3600, 60, 1)))
    if close_mid_take:
        wait.until(lambda d: elapsed() >= 1)
        result["file"] = driver.find_element(By.ID, "file").text
        result["closed"] = True
        stop.set()
        raise SystemExit(0)
    wait.until(lambda d: elapsed() >= 2)
    driver.find_element(By.ID, "marker-name").send_keys(marker)
    driver.find_element(By.ID, "marker").click()
    wait.until(lambda d: marker in d.find_element(By.ID, "reply").text)
    result["marker_reply"] = driver.find_element(By.ID, "reply").text
    result["file"] = driver.find_element(By.ID, "file").text
    time.sleep(0.5)  # a level message or two after the marker, for the picture
    driver.save_screenshot(screenshot)
    wait.until(lambda d: elapsed() >= 4)
    driver.find_element(By.ID, "stop").click()
    wait.until(lambda d: d.find_element(By.ID, "status").text == "STOPPED")
    row = '#takes tr[data-name="%s"]' % result["file"]
    cell = lambda column: driver.find_element(By.CSS_SELECTOR, row + " td:nth-child(%d)" % column).text
    settled(lambda: driver.find_elements(By.CSS_SELECTOR, row) and cell(2) not in ("", "…", "recording")
            and cell(4) != "…" and [result.update(listed_length=cell(2), listed_loudness=cell(4))])
    settled(lambda: driver.find_element(By.CSS_SELECTOR, row + " a.download").click() or True)
    target = os.path.join(downloads, result["file"])
    wait.until(lambda d: os.path.exists(target) and not os.path.exists(target + ".crdownload"))
    result["downloaded"] = target
    stop.set()
finally:
    driver.quit()
    print(json.dumps(result))

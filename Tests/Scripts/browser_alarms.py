"""Watches `record --serve`'s page in headless Chromium (Debian's chromium and chromium-driver, Selenium) while
the take's `--alarm-silence` goes on and off: what someone minding a logger from a phone sees. Prints one JSON
object of what it saw; the Swift test judges it against the alarms the take printed.

    python3 browser_alarms.py URL SCREENSHOT

1. Opens URL; waits until the page is live.
2. Waits until the alarm box shows an alarm; reads its line and the alarm's kind; takes a screenshot.
3. Waits until the box is hidden again (the alarm over), then until the event list holds an alarm that ended
   (and reads whether it lists the alarms' markers too, which it must not: the alarm's own line says it).
Every wait is for a state, with a ceiling only a hang reaches (60 s).
"""
import json
import os
import sys

from selenium import webdriver
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By
from selenium.common.exceptions import StaleElementReferenceException
from selenium.webdriver.support.ui import WebDriverWait

url, screenshot = sys.argv[1:3]
CEILING = 60

options = webdriver.ChromeOptions()
options.binary_location = "/usr/bin/chromium"
for flag in ("--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--window-size=420,900",
             "--user-data-dir=" + os.path.join(os.path.dirname(screenshot), ".profile-alarms")):
    options.add_argument(flag)
driver = webdriver.Chrome(service=Service("/usr/bin/chromedriver"), options=options)
result = {}


def settled(action):
    """`action` retried until it returns something true, and while the page redraws what it reads."""
    def attempt(_):
        try:
            return action()
        except StaleElementReferenceException:
            return False
    return WebDriverWait(driver, CEILING, poll_frequency=0.02).until(attempt)


def shown_alarm():
    box = driver.find_element(By.ID, "alarms")
    lines = box.find_elements(By.CSS_SELECTOR, ".alarm")
    if not box.is_displayed() or not lines:
        return None
    return {"text": lines[0].text, "kind": lines[0].get_attribute("data-alarm"), "count": len(lines),
            "background": lines[0].value_of_css_property("background-color")}


try:
    driver.get(url)
    settled(lambda: driver.find_element(By.ID, "connection").text == "live")
    result["shown"] = settled(shown_alarm)
    driver.save_screenshot(screenshot)
    result["cleared"] = settled(lambda: not driver.find_element(By.ID, "alarms").is_displayed())
    result["ended_in_list"] = settled(lambda: [item.text for item in driver.find_elements(By.CSS_SELECTOR, "#events li")
                                               if item.text.startswith("alarm at ") and " over: " in item.text][:1])
    result["alarm_markers_listed"] = len([item for item in driver.find_elements(By.CSS_SELECTOR, "#events li")
                                          if item.text.startswith("marker “alarm")])
finally:
    driver.quit()
    print(json.dumps(result))

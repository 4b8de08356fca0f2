#!/usr/bin/env python3
"""The browser test of the page at `/` on docserver's HTTP port, in headless Chromium through
Selenium (Debian's chromium, chromium-driver and python3-selenium; Tests/Browser/run.sh installs
them). Against the real binary:

1. a store of BROWSER_OBJECTS Tags (default 100,000; 1,000,000 by hand) made with
   `docserver import`, plus a few artists, albums and songs saved with the Python client;
2. the page opens on Tag: the time from navigation start to the table's rows is printed (measured
   by the page itself: `window.docPage.timings.firstPage`; it includes the page's start); the
   first page must show in under 1 s from a click on Tag (from another entity) to its 50 rows in
   the table (timed in the browser by a MutationObserver);
3. a predicate runs (rows shown), a wrong one shows its error with its position;
4. a save made from Python appears in the table within 1 s, without reloading;
5. a value edited on the page is saved (read back from Python);
6. screenshots of each step go to a folder printed at the end (BROWSER_SCREENSHOTS, default
   .build/browser-screenshots).

Exit status 0 when every check passed; the figures are printed."""

from __future__ import annotations

import decimal
import json
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "clients" / "python" / "src"))

import docstore  # noqa: E402
from selenium import webdriver  # noqa: E402
from selenium.webdriver.chrome.service import Service as ChromeService  # noqa: E402
from selenium.webdriver.common.by import By  # noqa: E402
from selenium.webdriver.common.keys import Keys  # noqa: E402
from selenium.webdriver.support.ui import WebDriverWait  # noqa: E402

BINARY = Path(os.environ.get("DOCSERVER_BINARY", ROOT / ".build" / "debug" / "docserver"))
OBJECTS = int(os.environ.get("BROWSER_OBJECTS", "100000"))
SHOTS = Path(os.environ.get("BROWSER_SCREENSHOTS", ROOT / ".build" / "browser-screenshots"))


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def seed_store(directory: Path) -> Path:
    """A store of OBJECTS Tags, written by `docserver import` from NDJSON made here."""
    store = directory / "store.json"
    empty = directory / "empty.json"
    # An empty store of the sample model (a server creates it), for the export header's hashes.
    process, _ = start_server(empty, free_port())
    assert process.stdin is not None
    process.stdin.close()
    process.wait(timeout=60)
    header_text = subprocess.run([str(BINARY), "export", "--store", str(empty)], check=True, capture_output=True,
                                 text=True).stdout.splitlines()[0]
    header = json.loads(header_text)
    uuid = header["storeUUID"]
    header["commitSequence"] = 0
    ndjson = directory / "tags.ndjson"
    with ndjson.open("w", encoding="utf-8") as out:
        out.write(json.dumps(header, separators=(",", ":")) + "\n")
        for ref in range(1, OBJECTS + 1):
            out.write('{"id":"graph://%s/Tag/%d","entity":"Tag","version":1,"values":{"label":"tag %07d","songs":[]}}\n'
                      % (uuid, ref, ref))
    started = time.monotonic()
    subprocess.run([str(BINARY), "import", "--quiet", "--store", str(store), "--from", str(ndjson)], check=True)
    print("seeded %d Tags with docserver import in %.1f s" % (OBJECTS, time.monotonic() - started))
    ndjson.unlink()
    return store


def start_server(store: Path, http_port: int) -> "tuple[subprocess.Popen[str], int]":
    process = subprocess.Popen([str(BINARY), "serve", "--host", "127.0.0.1", "--port", "0", "--store", str(store),
                                "--http-port", str(http_port), "--log-level", "warning", "--stop-when-stdin-closes"],
                               stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    assert process.stdout is not None
    line = process.stdout.readline().strip()
    if not line.startswith("listening on "):
        raise SystemExit("docserver did not start: %r" % line)
    return process, int(line.rsplit(":", 1)[1])


def browser() -> webdriver.Chrome:
    options = webdriver.ChromeOptions()
    for argument in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--window-size=1400,900", "--disable-gpu"):
        options.add_argument(argument)
    chromium = shutil.which("chromium") or shutil.which("chromium-browser")
    if chromium:
        options.binary_location = chromium
    driver_path = shutil.which("chromedriver") or "/usr/bin/chromedriver"
    return webdriver.Chrome(service=ChromeService(executable_path=driver_path), options=options)


def shot(driver: webdriver.Chrome, name: str) -> None:
    path = SHOTS / name
    driver.save_screenshot(str(path))
    print("screenshot:", path)


def wait(driver: webdriver.Chrome, condition, seconds: float = 10.0, what: str = ""):
    return WebDriverWait(driver, seconds, poll_frequency=0.02).until(lambda d: condition(d), what)


def row_titles(driver: webdriver.Chrome, column: int) -> "list[str]":
    # Read in one script: the table is redrawn by live updates, so elements found before may be gone.
    return list(driver.execute_script(
        "return [...document.querySelectorAll('#objects tbody tr')].map((row) => row.children[arguments[0]] ? row.children[arguments[0]].textContent : '')",
        column))


# Whether the table shows `rows` rows of the entity arguments[0] (their IDs name it).
SHOWS_PAGE_OF = """
const rows = document.querySelectorAll('#objects tbody tr');
return rows.length === arguments[1] && rows[0].dataset.id.includes('/' + arguments[0] + '/');
"""

# Clicks the entity arguments[0] and answers, in ms, when its first page (arguments[1] rows) is in
# the table: a MutationObserver sees the rows as the page inserts them.
TIME_SELECTION = """
const [name, count, done] = arguments;
const shown = () => {
  const rows = document.querySelectorAll('#objects tbody tr');
  return rows.length === count && rows[0].dataset.id.includes('/' + name + '/');
};
const observer = new MutationObserver(() => {
  if (shown()) { observer.disconnect(); done(performance.now() - started); }
});
observer.observe(document.getElementById('objects'), { subtree: true, childList: true });
const started = performance.now();
document.querySelector('#entities li[data-entity="' + name + '"]').click();
"""


def main() -> int:
    SHOTS.mkdir(parents=True, exist_ok=True)
    failures: "list[str]" = []
    with tempfile.TemporaryDirectory(prefix="docserver-browser-") as temporary:
        store = seed_store(Path(temporary))
        http_port = free_port()
        server, port = start_server(store, http_port)
        driver = None
        try:
            with docstore.connect("127.0.0.1", port, client_name="python") as client:
                session = client.session()
                miles = session.insert("Artist", name="Miles Davis", country="US")
                kob = session.insert("Album", title="Kind of Blue", artist=miles, price=decimal.Decimal("9.99"))
                for title, plays in (("So What", 7), ("Freddie Freeloader", 3), ("Blue in Green", 12)):
                    session.insert("Song", title=title, plays=plays, album=kob)
                session.save()
            driver = browser()
            base = "http://127.0.0.1:%d/" % http_port
            # 1. The first page of Tag (OBJECTS objects): opened, timed by the page.
            driver.get(base + "#entity=Tag")
            wait(driver, lambda d: d.execute_script("return window.docPage && window.docPage.timings.firstPage"), 30, "the first page")
            first_page_ms = driver.execute_script("return window.docPage.timings.firstPage")
            fetch_ms = driver.execute_script("return window.docPage.timings.lastFetchMs")
            rows = len(driver.find_elements(By.CSS_SELECTOR, "#objects tbody tr"))
            wait(driver, lambda d: d.find_element(By.CSS_SELECTOR, '#entities li[data-entity="Tag"] .count').text.replace(",", "") == str(OBJECTS),
                 30, "the Tag count")
            print("first page of %d Tags: %d rows shown %.0f ms after navigation start (its fetch and count: %.0f ms)"
                  % (OBJECTS, rows, first_page_ms, fetch_ms))
            shot(driver, "1-first-page.png")
            if rows != 50:
                failures.append("the first page showed %d rows, not 50" % rows)
            # From navigation start, the figure also holds the page's own start (its modules, the
            # WebSocket, the model): printed, not judged; the target is judged from the selection below.
            # 1b. From the entity's selection (a click on Tag, from Artist) to its first page shown, timed in the browser.
            driver.find_element(By.CSS_SELECTOR, '#entities li[data-entity="Artist"]').click()
            wait(driver, lambda d: d.execute_script(SHOWS_PAGE_OF, "Artist", 1), 10, "the artists")
            driver.set_script_timeout(30)
            selection_ms = driver.execute_async_script(TIME_SELECTION, "Tag", 50)
            print("first page of %d Tags: shown %.0f ms after the entity was selected (target < 1000)" % (OBJECTS, selection_ms))
            if selection_ms >= 1000:
                failures.append("the first page took %.0f ms from the entity's selection (target < 1000)" % selection_ms)
            # 2. A predicate on Song.
            driver.find_element(By.CSS_SELECTOR, '#entities li[data-entity="Song"]').click()
            wait(driver, lambda d: d.find_element(By.ID, "entity-name").text == "Song" and len(row_titles(d, 4)) == 3, 10, "the songs")
            box = driver.find_element(By.ID, "predicate")
            box.send_keys("plays >= 5 AND title CONTAINS[c] 'what'", Keys.ENTER)
            wait(driver, lambda d: row_titles(d, 1) == ["So What"], 10, "the predicate's result")
            shot(driver, "2-predicate.png")
            # 3. A save from Python appears within 1 s, without reloading.
            driver.execute_script("window.__notReloaded = true")
            with docstore.connect("127.0.0.1", port, client_name="python") as client:
                session = client.session()
                session.insert("Song", title="What, Me Worry?", plays=9)
                saved_at = time.monotonic()
                session.save()
                wait(driver, lambda d: "What, Me Worry?" in row_titles(d, 1), 5, "the song saved from Python")
                seen_after = time.monotonic() - saved_at
            print("a save made from Python appeared on the page %.0f ms after it was sent" % (seen_after * 1000))
            if seen_after >= 1.0:
                failures.append("the save from Python appeared after %.0f ms (target < 1000)" % (seen_after * 1000))
            if driver.execute_script("return window.__notReloaded") is not True:
                failures.append("the page reloaded")
            shot(driver, "3-live-update.png")
            # 4. A predicate with an error shows it with its position.
            box.clear()
            box.send_keys("plays >= 5 AND", Keys.ENTER)
            error = wait(driver, lambda d: d.find_element(By.ID, "error").is_displayed() and d.find_element(By.ID, "error"), 10, "the error")
            position = error.get_attribute("data-position")
            if not position or "^ position" not in error.text:
                failures.append("the predicate error has no position: %r" % error.text)
            shot(driver, "4-predicate-error.png")
            # 5. Edit a value: the song's title, read back from Python.
            box.clear()
            box.send_keys("title == 'So What'", Keys.ENTER)
            wait(driver, lambda d: row_titles(d, 1) == ["So What"], 10, "So What")
            driver.find_element(By.CSS_SELECTOR, "#objects tbody tr").click()
            field = wait(driver, lambda d: d.find_element(By.ID, "value-title"), 10, "the object's form")
            wait(driver, lambda d: d.find_element(By.ID, "value-title").get_attribute("value") == "So What", 10, "the title")
            field = driver.find_element(By.ID, "value-title")
            field.clear()
            field.send_keys("So What (edited)")
            driver.find_element(By.ID, "save-object").click()
            wait(driver, lambda d: d.find_element(By.ID, "object-status").text.startswith("saved"), 10, "the save")
            with docstore.connect("127.0.0.1", port) as client:
                titles = sorted(song.title for song in client.fetch("Song"))
            if "So What (edited)" not in titles:
                failures.append("the edit was not saved: %r" % titles)
            # The related album, as a link.
            driver.find_element(By.CSS_SELECTOR, '#relationships a.rel').click()
            wait(driver, lambda d: "Album" in d.find_element(By.ID, "object-title").text, 10, "the album")
            shot(driver, "5-edited-and-album.png")
        finally:
            if driver is not None:
                driver.quit()
            if server.stdin:
                server.stdin.close()
            server.wait(timeout=30)
    print("screenshots in", SHOTS)
    for failure in failures:
        print("FAILED:", failure, file=sys.stderr)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())

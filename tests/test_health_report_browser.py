"""The ``fray health`` HTML report opened in a real browser (headless Chromium driven by
Selenium through the system's chromedriver): its figures load, its title and headings state
the scenario, and the page logs no error.

Debian's ``chromium`` and ``chromium-driver`` packages provide both programs
(``scripts/install-system-deps.sh`` installs them). Without them the test is skipped with the
reason, except under CI (the ``CI`` environment variable set), where it fails.
"""

import os
import shutil
from pathlib import Path

import pytest
from fray.cli import main
from fray.health import DEFAULT_WORKLOADS

DATA = Path(__file__).parent.parent / "examples/data"
X5 = DATA / "x5.topofile"
COUNTERS = DATA / "x5_counters.csv"
DOWN = DATA / "x5_down.txt"


def _missing(what: str) -> None:
    """Fails under CI, skips elsewhere, saying what is missing and how to get it."""
    reason = f"{what}: run `sh scripts/install-system-deps.sh` (Debian) to install it"
    if os.environ.get("CI"):
        pytest.fail(reason)
    pytest.skip(reason)


def _chromium(profile: Path, log: Path, attempts: int = 3):
    """A headless Chromium driven through the system chromedriver, with its own profile
    folder. A browser that exits while starting is started again, up to ``attempts`` times in
    all; when every attempt fails, the failure quotes the end of chromedriver's log (the browser's
    own messages included), less its JSON dumps."""
    try:
        from selenium import webdriver
        from selenium.common.exceptions import SessionNotCreatedException
        from selenium.webdriver.chrome.service import Service
    except ImportError:
        _missing("the selenium package is not installed (pip install '.[test]')")
    browser = shutil.which("chromium") or shutil.which("chromium-browser")
    driver = shutil.which("chromedriver")
    if browser is None or driver is None:
        _missing("chromium or chromedriver is not on PATH")
    options = webdriver.ChromeOptions()
    options.binary_location = browser
    for flag in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--disable-gpu",
                 "--window-size=1200,900", "--remote-debugging-pipe",
                 f"--user-data-dir={profile}"):
        options.add_argument(flag)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    for attempt in range(1, attempts + 1):
        service = Service(driver, service_args=["--verbose"], log_output=str(log))
        try:
            return webdriver.Chrome(service=service, options=options)
        except SessionNotCreatedException as error:
            if attempt == attempts:
                lines = log.read_text(errors="replace").splitlines()
                tail = [line for line in lines if line[:1] not in (" ", "}")][-20:]
                pytest.fail(f"Chromium did not start in {attempts} attempts: {error.msg}\n"
                            + "\n".join(tail))


@pytest.fixture(scope="module")
def report(tmp_path_factory):
    """The report of ``fray health`` on X5 with its sample counters and one cable down (as
    docs/health.md runs it, with two seeds), and its JSON."""
    folder = tmp_path_factory.mktemp("report")
    page, out = folder / "health.html", folder / "health.json"
    assert main(["health", str(X5), "--counters", str(COUNTERS), "--down", str(DOWN),
                 "--seeds", "2", "--report", str(page), "--out", str(out)]) == 0
    return page


@pytest.fixture(scope="module")
def browser(tmp_path_factory):
    """A headless Chromium, found (or skipped, or failed under CI) before any report runs."""
    folder = tmp_path_factory.mktemp("chromium")
    driver = _chromium(folder / "profile", folder / "chromedriver.log")
    yield driver
    driver.quit()


def test_health_report_loads_in_chromium(browser, report):
    browser.get(report.as_uri())
    # Every figure decoded: complete, with a width (a broken image has naturalWidth 0).
    images = browser.execute_script(
        "return Array.from(document.images, i => [i.alt, i.complete, i.naturalWidth,"
        " i.naturalHeight]);")
    assert [alt for alt, *_ in images] == ["loss.png", "repairs.png"]
    for alt, complete, width, height in images:
        assert complete and width > 0 and height > 0, alt
    # The title and headings say which machine, how many cables down, and what ran.
    assert browser.title == "fray health: x5.topofile, 1 cable(s) down"
    headings = browser.execute_script(
        "return Array.from(document.querySelectorAll('h1, h2, h3'), h => h.textContent);")
    assert headings[0] == browser.title
    assert {"Cable classes", "Critical failures", "What the down cables cost now",
            "Repairs, in order"} <= set(headings)
    scenario = browser.execute_script(
        "return Array.from(document.querySelector('table').rows,"
        " r => [r.cells[0].textContent, r.cells[1].textContent]);")
    rows = dict(scenario[1:])
    assert rows["fabric"] == str(X5) and rows["counters"] == str(COUNTERS)
    assert rows["down cables"] == str(DOWN)
    workloads = rows["workloads"].split(", ")
    assert workloads == list(DEFAULT_WORKLOADS)
    assert [h for h in headings if h in workloads] == workloads  # one repair table each
    assert rows["engine"] == "flow, 2 seeds from seed 1"
    # No error in the page's console (a figure that fails to load logs one).
    errors = [e for e in browser.get_log("browser") if e["level"] == "SEVERE"]
    assert errors == []

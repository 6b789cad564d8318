"""`make report` on a tiny study, opened in a real browser: Snakemake's report of every table and
figure (rules/report.smk, report/*.rst), driven in headless Chromium through Selenium and
Debian's chromedriver, with screenshots under the test's tmp folder."""

import re
import shutil
import tempfile
from pathlib import Path

import pytest

from helpers import PROJECT_ROOT, engine_unavailable
from helpers import run_snakemake as snakemake

CHROMIUM_FLAGS = [
    "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
    "--disable-background-networking", "--disable-component-update", "--disable-sync", "--window-size=1400,900",
]


def make_report_command() -> list[str]:
    """The snakemake arguments of the Makefile's report target, read from the Makefile itself."""
    text = (PROJECT_ROOT / "Makefile").read_text().replace("\\\n", " ")
    line = re.search(r"^report:.*\n\t(.*)$", text, re.M).group(1)
    args = line.split("snakemake", 1)[1].split()
    return [a for a in args if a not in ("--cores", "$(CORES)")]


def chromium_driver():
    """Headless Debian Chromium under Selenium, with the driver of the same package source (no
    driver download: the path is given, so Selenium Manager is not asked)."""
    webdriver = pytest.importorskip("selenium.webdriver")
    from selenium.webdriver.chrome.options import Options
    from selenium.webdriver.chrome.service import Service

    chromium, driver = shutil.which("chromium"), shutil.which("chromedriver")
    if not chromium or not driver:
        engine_unavailable("no headless Chromium here (apt-get install chromium chromium-driver; .ci/run does)")
    options = Options()
    options.binary_location = chromium
    for flag in [*CHROMIUM_FLAGS, f"--user-data-dir={tempfile.mkdtemp(prefix='swevis-chromium-')}"]:
        options.add_argument(flag)
    return webdriver.Chrome(service=Service(driver), options=options)


def open_result(browser, category: str, item: str):
    """Click from the report's home to `category`, then the eye button of the row `item`."""
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support import expected_conditions as ec
    from selenium.webdriver.support.ui import WebDriverWait

    wait = WebDriverWait(browser, 20)
    wait.until(ec.element_to_be_clickable((By.XPATH, f"//a[normalize-space()='{category}']"))).click()
    row = wait.until(ec.presence_of_element_located((By.XPATH, f"//tr[td[normalize-space()='{item}']]")))
    row.find_element(By.CSS_SELECTOR, "a[iconname='eye']").click()
    return row


@pytest.mark.slow
@pytest.mark.browser
@pytest.mark.xdist_group("tiny_study")
def test_make_report_opens_in_chromium_with_table_1_and_figure_3(tiny_study, tmp_path: Path):
    browser = chromium_driver()  # skips (or fails under SWEVIS_REQUIRE_ENGINES=1) where there is none
    try:
        study = tiny_study[0]  # the tiny study with Tables 1 and 3 made (conftest.py): make report does the rest
        run = snakemake(study, *make_report_command())
        assert run.returncode == 0, (run.stdout + run.stderr)[-4000:]
        report = study / "results" / "report.html"
        html = report.read_text(errors="replace")
        assert "System Message" not in html  # every caption rendered without an RST error
        for csv in (study / "results").rglob("*.csv"):
            assert not re.search(r"\d\.\d{7,}", csv.read_text()), f"{csv} carries unrounded floats"

        from selenium.webdriver.common.by import By
        from selenium.webdriver.support import expected_conditions as ec
        from selenium.webdriver.support.ui import WebDriverWait

        wait = WebDriverWait(browser, 20)
        browser.get(report.as_uri())
        wait.until(ec.presence_of_element_located((By.XPATH, "//a[normalize-space()='Table 1']")))  # landing page
        browser.save_screenshot(str(tmp_path / "report-home.png"))
        home = browser.find_element(By.TAG_NAME, "body").text
        # the landing page lists the paper's tables first (the menu above it names the categories)
        assert home.index("Table 1") < home.rindex("Statistics and measurements") < home.index("McNemar tests")

        row = open_result(browser, "Tables", "Table 1")
        frame = wait.until(ec.presence_of_element_located((By.TAG_NAME, "iframe")))
        browser.switch_to.frame(frame)
        assert browser.find_element(By.TAG_NAME, "h1").text == "Table 1"
        headers = [th.text for th in browser.find_elements(By.TAG_NAME, "th")]
        assert {"agent", "acc_text", "acc_r3", "tok_r3", "reduction_text"} <= set(headers)
        assert "plb" in browser.find_element(By.TAG_NAME, "tbody").text
        browser.switch_to.default_content()
        browser.save_screenshot(str(tmp_path / "report-table1.png"))
        row.find_element(By.CSS_SELECTOR, "a[iconname='information-circle']").click()
        # the caption says what the table shows, from what data and which backend made it
        wait.until(lambda b: "Backend: qwen3.5 = playback" in b.find_element(By.TAG_NAME, "body").text)
        body = browser.find_element(By.TAG_NAME, "body").text
        assert "accuracy" in body and "condition summaries" in body

        browser.get(report.as_uri())  # back home, then Figures
        open_result(browser, "Figures", "Figure 3")
        image = wait.until(ec.presence_of_element_located((By.CSS_SELECTOR, "img[src^='data:image/png']")))
        assert browser.execute_script("return arguments[0].naturalWidth", image) > 300
        browser.save_screenshot(str(tmp_path / "report-figure3.png"))
        for name in ("report-home.png", "report-table1.png", "report-figure3.png"):
            assert (tmp_path / name).read_bytes()[:4] == b"\x89PNG"
    finally:
        browser.quit()

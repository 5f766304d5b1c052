"""The height in CSS px of an HTML page as headless Chromium lays it out at
a given width (the page as opened: folded sections stay folded), and a
screenshot of it.  The page itself has no script: a copy of it with one
line of script (setting the title to the document's height) is what
Chromium dumps; the page is never changed.

    python tests/tools/page_height.py PAGE.html [--width 1300] [--png OUT.png]
"""

from __future__ import annotations

import argparse
import re
import shutil
import subprocess
import tempfile
from pathlib import Path

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync",
         "--hide-scrollbars"]
PROBE = ("<script>window.addEventListener('load',function(){document.title='HEIGHT='+"
         "Math.ceil(document.documentElement.scrollHeight)})</script>")


def page_height(page: Path, width: int = 1300) -> int:
    """The page's laid-out height in px at ``width`` px wide."""
    html = Path(page).read_text(encoding="utf-8")
    with tempfile.TemporaryDirectory() as tmp:
        probe = Path(tmp) / "probe.html"
        probe.write_text(html.replace("</body>", PROBE + "</body>", 1), encoding="utf-8")
        dom = subprocess.run([CHROMIUM, *FLAGS, f"--user-data-dir={tmp}/profile", f"--window-size={width},1000",
                              "--virtual-time-budget=5000", "--dump-dom", probe.as_uri()],
                             capture_output=True, text=True, timeout=180).stdout
    found = re.search(r"<title>HEIGHT=(\d+)</title>", dom)
    if not found:
        raise RuntimeError(f"{page}: Chromium gave no height")
    return int(found.group(1))


def screenshot(page: Path, png: Path, width: int = 1300, height: int | None = None) -> None:
    """A PNG of the whole page (its measured height) at ``width`` px."""
    height = height or page_height(page, width)
    with tempfile.TemporaryDirectory() as tmp:
        subprocess.run([CHROMIUM, *FLAGS, f"--user-data-dir={tmp}/profile", f"--window-size={width},{height}",
                        f"--screenshot={Path(png).resolve()}", Path(page).resolve().as_uri()],
                       capture_output=True, timeout=180)


if __name__ == "__main__":
    ap = argparse.ArgumentParser()
    ap.add_argument("page")
    ap.add_argument("--width", type=int, default=1300)
    ap.add_argument("--png")
    a = ap.parse_args()
    h = page_height(Path(a.page), a.width)
    print(f"{a.page}: {h} px tall at {a.width} px wide")
    if a.png:
        screenshot(Path(a.page), Path(a.png), a.width, h)
        print(f"screenshot: {a.png}")

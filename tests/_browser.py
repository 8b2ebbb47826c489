"""Headless Chromium for the report tests (CI installs it: ``apt-get install chromium``)."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

CHROMIUM = next((p for p in (shutil.which("chromium"), shutil.which("chromium-browser"),
                             "/usr/bin/chromium") if p and Path(p).exists()), None)

needs_chromium = pytest.mark.skipif(
    CHROMIUM is None, reason="chromium is not installed (CI installs it: apt-get install chromium)")


def chromium(args: list[str], tmp_path: Path) -> subprocess.CompletedProcess:
    """Run headless Chromium with a throw-away profile and no network services."""
    profile = tmp_path / "profile"
    profile.mkdir(exist_ok=True)
    cmd = [CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic",
           "--no-first-run", "--disable-background-networking", "--disable-component-update",
           "--disable-sync", "--disable-dev-shm-usage", f"--user-data-dir={profile}", *args]
    return subprocess.run(cmd, capture_output=True, text=True, timeout=180)


PROBE = (
    "<script>window.addEventListener('load',function(){var im=document.images,ok=0;"
    "for(var i=0;i<im.length;i++){if(im[i].complete&&im[i].naturalWidth>0)ok++;}"
    "document.body.setAttribute('data-images',im.length);"
    "document.body.setAttribute('data-loaded',ok);});</script>"
)


def images_loaded(html_text: str, tmp_path: Path) -> tuple[int, int]:
    """(images on the page, images decoded) after Chromium's 'load' event."""
    import re

    probe = tmp_path / "probe.html"
    probe.write_text(html_text.replace("</body>", PROBE + "</body>"))
    done = chromium(["--virtual-time-budget=10000", "--dump-dom", probe.as_uri()], tmp_path)
    found = re.search(r'data-images="(\d+)" data-loaded="(\d+)"', done.stdout)
    assert found, done.stderr[-2000:]
    images, loaded = map(int, found.groups())
    return images, loaded

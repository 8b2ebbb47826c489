"""The documentation site: complete, rendered, and every example in it runs.

* every name in ``idrisk.__all__`` and in the ``__all__`` of each public module below
  ``idrisk`` has a generated reference page, linked from its module's page, that documents
  that very object;
* every ``{doctest}`` block of the site's Markdown pages runs and prints what the page shows
  (one namespace per page, blocks in order, in an empty working directory);
* Chromium renders the entry page and the ``identification_risk`` reference page, and every
  ``<img>`` of the built site points to a file that exists and loads.

The site is built once per session with warnings as errors (``sphinx -W``), unless
``IDRISK_DOCS_HTML`` names a site that ``bash scripts/dev.sh docs`` has already built.
"""

from __future__ import annotations

import doctest
import importlib
import inspect
import os
import re
import subprocess
import sys
from html.parser import HTMLParser
from pathlib import Path

import pytest
from _browser import PROBE, chromium, needs_chromium
from _shared import REPO_ROOT, public_modules

DOCS = REPO_ROOT / "docs"
DOCTEST = re.compile(r"^```\{doctest\}[^\n]*\n(.*?)^```\s*$", re.M | re.S)

pytest.importorskip("sphinx", reason="the docs extra is not installed (pip install idrisk[docs])")


# ------------------------------------------------------------------ the built site
@pytest.fixture(scope="session")
def site(tmp_path_factory) -> Path:
    given = os.environ.get("IDRISK_DOCS_HTML")
    if given:
        path = Path(given)
        assert (path / "index.html").is_file(), f"IDRISK_DOCS_HTML={given} holds no built site"
        return path
    out = tmp_path_factory.mktemp("docs") / "html"
    env = {**os.environ, "PYTHONPATH": str(REPO_ROOT), "MPLBACKEND": "Agg"}
    done = subprocess.run(
        [sys.executable, "-m", "sphinx", "-b", "html", "-W", "--keep-going", "-q",
         "-d", str(out.parent / "doctrees"), str(DOCS), str(out)],
        capture_output=True, text=True, timeout=900, env=env, cwd=REPO_ROOT,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr[-5000:]
    return out


class Links(HTMLParser):
    """(href, text) of every link, the src of every image, the id of every element."""

    def __init__(self) -> None:
        super().__init__()
        self.links: list[tuple[str, str]] = []
        self.images: list[str] = []
        self.ids: set[str] = set()
        self._href: str | None = None
        self._text: list[str] = []

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if attrs.get("id"):
            self.ids.add(attrs["id"])
        if tag == "a" and "href" in attrs:
            self._href, self._text = attrs["href"], []
        if tag == "img" and attrs.get("src"):
            self.images.append(attrs["src"])

    def handle_data(self, data):
        if self._href is not None:
            self._text.append(data)

    def handle_endtag(self, tag):
        if tag == "a" and self._href is not None:
            self.links.append((self._href, "".join(self._text).strip()))
            self._href = None


def parse(path: Path) -> Links:
    parser = Links()
    parser.feed(path.read_text(encoding="utf-8"))
    return parser


def public_exports() -> list[tuple[str, str]]:
    """(module, name) for ``idrisk.__all__`` and each public module's ``__all__`` below it."""
    return [(m, name) for m in public_modules() for name in importlib.import_module(m).__all__]


def exported(module: str, name: str) -> object:
    """``module.name`` as a user gets it (``from module import name``)."""
    obj = getattr(importlib.import_module(module), name)
    if inspect.ismodule(obj) and hasattr(obj, name):  # a submodule shadowing the attribute
        obj = getattr(obj, name)
    return obj


def documented(path: str) -> object:
    """The object a reference page documents, by importing its dotted name."""
    parts = path.split(".")
    for cut in range(len(parts), 0, -1):
        try:
            obj = importlib.import_module(".".join(parts[:cut]))
        except ImportError:
            continue
        for part in parts[cut:]:
            obj = getattr(obj, part)
        return obj
    raise ImportError(path)


# ------------------------------------------------------------------ reference coverage
@pytest.mark.parametrize(("module", "name"), public_exports())
def test_every_public_name_has_a_reference_page(site, module, name):
    page = site / "api" / f"{module}.html"
    assert page.is_file(), f"no reference page for the module {module}"
    hrefs = [h for h, text in parse(page).links if text == name and "generated/" in h]
    assert hrefs, f"{module}.html lists no reference page for {name!r}"
    target, _, anchor = hrefs[0].partition("#")
    target_page = (page.parent / target).resolve()
    assert target_page.is_file(), f"{module}.{name}: {target} was not generated"
    assert anchor in parse(target_page).ids, f"{target} does not document {anchor}"
    obj = exported(module, name)
    if inspect.isclass(obj) or inspect.isroutine(obj):
        assert documented(anchor) is obj, f"{target} documents another object than {module}.{name}"


# ------------------------------------------------------------------ examples run
def doc_pages() -> list[Path]:
    pages = [p for p in sorted(DOCS.rglob("*.md")) if "_build" not in p.parts]
    return [p for p in pages if "generated" not in p.parts and DOCTEST.search(p.read_text())]


@pytest.mark.parametrize("page", doc_pages(), ids=lambda p: str(p.relative_to(DOCS)))
def test_docs_examples_run(page, tmp_path, monkeypatch):
    text = page.read_text(encoding="utf-8")
    if "import dask" in text:
        pytest.importorskip("dask.dataframe", reason="the dask extra is not installed")
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("MPLBACKEND", "Agg")
    parser = doctest.DocTestParser()
    flags = doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE
    runner = doctest.DocTestRunner(optionflags=flags)
    namespace: dict = {"__name__": "__docs__"}
    rel = page.relative_to(DOCS)
    for match in DOCTEST.finditer(text):
        line = text[: match.start()].count("\n") + 2
        test = parser.get_doctest(match.group(1), namespace, f"{rel}:{line}", str(page), line)
        out: list[str] = []
        runner.run(test, out=out.append, clear_globs=False)
        namespace = test.globs  # the page's later blocks see what this one defined
        assert not out, f"docs/{rel}, block at line {line}:\n" + "".join(out)


def test_doctest_blocks_are_found():
    """The pattern finds the guide's examples (an empty match would make the test above moot)."""
    pages = {p.relative_to(DOCS).as_posix() for p in doc_pages()}
    assert {"getting-started/quickstart.md", "guide/identification-risk.md"} <= pages


# ------------------------------------------------------------------ rendering
def test_every_image_of_the_site_exists(site):
    checked = 0
    for page in site.rglob("*.html"):
        for src in parse(page).images:
            if src.startswith(("data:", "http:", "https:")):
                continue
            assert (page.parent / src.split("#")[0]).resolve().is_file(), f"{page}: {src}"
            checked += 1
    assert checked >= 10  # the examples' figures at least


#: besides the images (``_browser.PROBE``): how many stylesheets loaded, and the body's font
STYLE_PROBE = (
    "<script>window.addEventListener('load',function(){"
    "document.body.setAttribute('data-sheets',document.styleSheets.length);"
    "document.body.setAttribute('data-font',"
    "getComputedStyle(document.body).fontFamily.replace(/\"/g,''));});</script>"
)


@needs_chromium
@pytest.mark.parametrize(
    ("page", "heading", "min_images"),
    [
        ("index.html", "idrisk", 0),
        ("api/generated/idrisk.identification_risk.html", "identification_risk", 0),
        ("guide/report.html", "The report", 1),
    ],
)
def test_chromium_renders_the_page(site, tmp_path, page, heading, min_images):
    path = site / page
    # 1. in the browser: the theme's stylesheets apply and every <img> decodes
    probe = path.with_name(f"_probe_{path.name}")
    probe.write_text(
        path.read_text(encoding="utf-8").replace("</body>", PROBE + STYLE_PROBE + "</body>")
    )
    try:
        done = chromium(["--virtual-time-budget=10000", "--dump-dom", probe.as_uri()], tmp_path)
    finally:
        probe.unlink()
    got = dict(re.findall(r'data-(images|loaded|sheets|font)="([^"]*)"', done.stdout))
    assert len(got) == 4, done.stderr[-2000:]
    images, loaded, sheets = int(got["images"]), int(got["loaded"]), int(got["sheets"])
    assert images >= min_images and loaded == images, f"{page}: {loaded} of {images} images"
    # the theme's stylesheets loaded and apply (the browser's default font is a serif)
    assert sheets >= 2 and "Times" not in got["font"], f"{page}: unstyled ({got})"
    assert heading in done.stdout
    # 2. the page renders to a PNG that is not blank
    png = tmp_path / "page.png"
    chromium([f"--screenshot={png}", "--window-size=1280,1000", path.as_uri()], tmp_path)
    assert png.is_file(), f"no screenshot of {page}"
    from PIL import Image

    with Image.open(png) as im:
        assert im.size == (1280, 1000)
        colours = im.convert("RGB").resize((128, 100)).getcolors(maxcolors=100_000)
        assert colours is not None and len(colours) > 20, f"{page} renders blank"


# ------------------------------------------------------------------ release hygiene
def _pyproject() -> dict:
    tomllib = pytest.importorskip("tomllib", reason="Python 3.11+ reads pyproject.toml")
    return tomllib.loads((REPO_ROOT / "pyproject.toml").read_text(encoding="utf-8"))


def test_wheel_metadata_has_licence_and_typing_marker():
    project = _pyproject()["project"]
    assert project["license"] == "MIT"
    for name in project["license-files"]:
        assert "MIT License" in (REPO_ROOT / name).read_text(encoding="utf-8")
    assert (REPO_ROOT / "idrisk" / "py.typed").is_file()  # the wheel ships the whole package
    assert _pyproject()["tool"]["hatch"]["build"]["targets"]["wheel"]["packages"] == ["idrisk"]
    assert {"Documentation", "Source", "Issues", "Changelog"} <= set(project["urls"])


def test_package_description_links_only_to_the_web():
    """The package page shows the readme outside the repository: no relative links or images."""
    readme = REPO_ROOT / _pyproject()["project"]["readme"]
    text = readme.read_text(encoding="utf-8")
    targets = re.findall(r"\]\(([^)\s]+)", text) + re.findall(r'src="([^"]+)"', text)
    relative = [t for t in targets if not t.startswith(("http://", "https://", "mailto:", "#"))]
    assert not relative, f"{readme.name} links into the repository: {relative}"

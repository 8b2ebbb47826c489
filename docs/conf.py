"""Sphinx configuration of the idrisk documentation (see docs/README.md)."""

from __future__ import annotations

import os
import re
import sys
from pathlib import Path

DOCS = Path(__file__).resolve().parent
ROOT = DOCS.parent
sys.path.insert(0, str(DOCS / "_ext"))
# the checkout's package, not whatever idrisk is installed
sys.path.insert(0, str(ROOT))
os.environ.setdefault("MPLBACKEND", "Agg")

from apigen import names  # noqa: E402

import idrisk  # noqa: E402

#: the repository's address, from pyproject.toml's [project.urls] (one place to change it)
_source = re.search(
    r'^Source\s*=\s*"([^"]+)"', (ROOT / "pyproject.toml").read_text(encoding="utf-8"), re.M
)

project = "idrisk"
author = "idrisk developers"
copyright = "idrisk developers, MIT licence"  # noqa: A001 - Sphinx's name
release = idrisk.__version__
version = ".".join(release.split(".")[:2])

extensions = [
    "sphinx.ext.autodoc",
    "sphinx.ext.autosummary",
    "sphinx.ext.intersphinx",
    "sphinx.ext.doctest",
    "numpydoc",
    "myst_parser",
    "apigen",
    "examples",
]

source_suffix = {".rst": "restructuredtext", ".md": "markdown"}
root_doc = "index"
exclude_patterns = [
    "_build", "README.md", "pypi-description.md", "_intersphinx", "_ext", "_templates"
]
templates_path = ["_templates"]

# -- warnings: the build runs with -W --keep-going, every reference is checked ----------------
nitpicky = True
#: references that cannot resolve, each for a stated reason
nitpick_ignore = [
    # numpydoc type words that are prose, not objects
    ("py:class", "optional"),
    ("py:class", "array-like"),
    ("py:class", "array_like"),
    ("py:class", "scalar"),
    ("py:class", "callable"),
    ("py:class", "file-like"),
    ("py:class", "path-like"),
]
nitpick_ignore_regex = [
    # docstrings may name idrisk's private modules and helpers (``idrisk._align``); they have
    # no page, so the name is shown as code without a link
    (r"py:.*", r"idrisk\.(\w+\.)*_\w+(\.\w+)*"),
]
suppress_warnings = [
    # the vignettes use #### under ## for their table groups (Examples are copied unchanged)
    "myst.header",
]

# -- autodoc / autosummary / numpydoc ---------------------------------------------------------
autosummary_generate = True
autosummary_generate_overwrite = True
autosummary_imported_members = True
# members and inheritance are set on the class pages (docs/_templates/autosummary/class.rst)
autodoc_default_options: dict[str, object] = {}
autodoc_typehints = "none"  # the numpydoc sections carry the types
autodoc_member_order = "bysource"
autodoc_inherit_docstrings = True
numpydoc_show_class_members = False
numpydoc_class_members_toctree = False
numpydoc_xref_param_type = True
numpydoc_xref_aliases = {
    "DataFrame": "pandas.DataFrame",
    "Series": "pandas.Series",
    "Index": "pandas.Index",
    "ndarray": "numpy.ndarray",
    "Generator": "numpy.random.Generator",
    "Axes": "matplotlib.axes.Axes",
    "Figure": "matplotlib.figure.Figure",
    "Path": "pathlib.Path",
    "path": "pathlib.Path",
    "sequence": "collections.abc.Sequence",
    "Sequence": "collections.abc.Sequence",
    "mapping": "collections.abc.Mapping",
    "Mapping": "collections.abc.Mapping",
    "iterable": "collections.abc.Iterable",
}
numpydoc_xref_aliases.update(names().type_aliases())  # idrisk's classes by their short name
numpydoc_xref_ignore = "all"  # link only the words above; the rest of a type line is prose

# -- intersphinx: inventories stored in docs/_intersphinx (written by make_inventories.py) ----
_INV = DOCS / "_intersphinx"
sys.path.insert(0, str(_INV))
from make_inventories import URLS  # noqa: E402  (one list of the projects and their sites)

intersphinx_mapping = {name: (url, str(_INV / f"{name}.inv")) for name, url in URLS.items()}
intersphinx_timeout = 1

# -- MyST ---------------------------------------------------------------------------------------
myst_enable_extensions = ["colon_fence", "deflist"]
myst_heading_anchors = 3

# -- doctest (sphinx -b doctest runs the guide's {doctest} blocks; the docstrings run in pytest)
doctest_test_doctest_blocks = ""
doctest_global_setup = "import os\nos.environ.setdefault('MPLBACKEND', 'Agg')\n"

# -- HTML ---------------------------------------------------------------------------------------
html_theme = "furo"
html_title = f"idrisk {release}"
html_static_path: list[str] = []
html_show_sourcelink = False
html_copy_source = False
html_theme_options = {"source_repository": _source.group(1)} if _source else {}

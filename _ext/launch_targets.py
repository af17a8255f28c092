"""Colab and Binder buttons that open the clean notebooks in ``launch/``.

sphinx-book-theme builds its launch links from ``repository.url`` and
``repository.branch`` of ``_config.yml`` and the page's source path, so they
open the repository's MyST source (``book/ndcg.ipynb``: glue placeholders,
roles, every solution). Colab and Binder can only open a file of a git ref, so
the clean notebooks that the download button serves are committed by
``tools/launch_notebooks.py`` (``make launch``) as ``launch/<chapter>.ipynb``
(full edition) and ``launch/student/<chapter>.ipynb`` (student edition, where
``hide_solutions`` is on). After the theme has made its links (its
``html-page-context`` handler runs at priority 501), this one swaps the
source path at the end of each Colab/Binder link for the launch notebook's
path; the address and the branch stay the theme's, read from the one
``repository`` entry of ``_config.yml``.

``tools/launch_notebooks.py --check`` checks the built links against the
committed files.
"""

from __future__ import annotations

from pathlib import PurePosixPath

LAUNCH_DIR = "launch"
STUDENT_SUBDIR = "student"
# the theme's launch buttons whose link ends with the notebook's path in the repository
PROVIDERS = ("Colab", "Binder")


def launch_folder(hide_solutions: bool) -> str:
    """The repository folder holding an edition's launch notebooks."""
    return f"{LAUNCH_DIR}/{STUDENT_SUBDIR}" if hide_solutions else LAUNCH_DIR


def launch_path(pagename: str, hide_solutions: bool) -> str:
    """Repository path of the launch notebook of page ``pagename`` (``book/ndcg``)."""
    return f"{launch_folder(hide_solutions)}/{PurePosixPath(pagename).name}.ipynb"


def retarget(url: str, source_path: str, target_path: str) -> str:
    """``url`` with its trailing ``source_path`` replaced by ``target_path``.

    Raises
    ------
    ValueError
        If ``url`` does not end with ``source_path`` (the theme changed how it
        builds links): a link left pointing at the MyST source would be silent.
    """
    if not url.endswith(source_path):
        raise ValueError(f"launch link {url!r} does not end with the page's source path "
                         f"{source_path!r}: sphinx-book-theme builds its links differently")
    return url[: len(url) - len(source_path)] + target_path


def _source_path(app, pagename: str) -> str:
    """The repository path the theme puts in its links (see its header_buttons/launch.py)."""
    relpath = app.config["html_theme_options"].get("path_to_docs", "").strip("/")
    suffix = PurePosixPath(app.env.doc2path(pagename, base=False)).suffix
    return f"{relpath + '/' if relpath else ''}{pagename}{suffix}"


def point_launch_buttons(app, pagename, templatename, context, doctree):
    groups = [b for b in context.get("header_buttons", []) if b.get("label") == "launch-buttons"]
    if not groups:
        return
    hide = bool(getattr(app.config, "hide_solutions", False))
    source, target = _source_path(app, pagename), launch_path(pagename, hide)
    for group in groups:
        for button in group.get("buttons", []):
            if button.get("text") in PROVIDERS and button.get("url"):
                button["url"] = retarget(button["url"], source, target)


def setup(app):
    # after sphinx-book-theme's add_launch_buttons (priority 501)
    app.connect("html-page-context", point_launch_buttons, priority=502)
    return {"parallel_read_safe": True, "parallel_write_safe": True}

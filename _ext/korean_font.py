"""Korean glyphs for every reader, with or without a CJK font installed.

The glossary and a few chapters quote Korean terms from the source posts. A
machine with no CJK font shows them as boxes. At the end of an HTML build
this extension collects every Hangul character of the book's sources, cuts
those glyphs out of NanumGothic (SIL OFL 1.1; taken from the PyPI package
koreanize-matplotlib, byte-identical to Debian's fonts-nanum), renames the
subset (the OFL reserves the name "Nanum") and writes it as a WOFF file with a
stylesheet that uses it for Hangul code points only (``unicode-range``), so
the theme's fonts still draw everything else. The subset is a few tens of
kilobytes; the licence goes next to it.

``tools/check_book.py`` proves on the built pages that the Korean text is
drawn with real glyphs (see its "Korean glyphs" check).
"""

from __future__ import annotations

import hashlib
import json
import re
import shutil
from pathlib import Path

FAMILY = "RM Korean Subset"
FONT_FILE = "rm-korean-subset.woff"
CSS_FILE = "rm-korean.css"
# NanumGothic.ttf of koreanize-matplotlib 0.1.1 = Debian fonts-nanum 20200506-1.
SHA256 = "48a28e97b34fc8e5b157657633670cd1b7de126cfc414da65ce9c3d5bc8be733"
# Hangul syllables, jamo and compatibility jamo.
HANGUL = re.compile(r"[\u1100-\u11ff\u3130-\u318f\uac00-\ud7a3]")
UNICODE_RANGE = "U+1100-11FF, U+3130-318F, U+AC00-D7A3"


def source_font() -> Path:
    """NanumGothic.ttf from the installed koreanize-matplotlib, checked."""
    try:
        from importlib.resources import files

        path = Path(str(files("koreanize_matplotlib") / "fonts" / "NanumGothic.ttf"))
    except ModuleNotFoundError:
        raise RuntimeError("korean_font: the package koreanize-matplotlib (which ships "
                           "NanumGothic) is not installed; run `make book`, which installs "
                           "requirements.txt") from None
    digest = hashlib.sha256(path.read_bytes()).hexdigest()
    if digest != SHA256:
        raise RuntimeError(f"korean_font: {path} is not the expected NanumGothic "
                           f"(sha256 {digest})")
    return path


def hangul_in(srcdir: Path) -> set[str]:
    """Every Hangul character in the book's Markdown pages and notebooks."""
    found = set()
    for path in [p for pattern in ("*.md", "*.ipynb", "*.bib") for p in srcdir.rglob(pattern)]:
        parts = path.relative_to(srcdir).parts
        if any(p.startswith((".", "_build")) for p in parts):
            continue
        text = path.read_text(encoding="utf-8", errors="ignore")
        if path.suffix == ".ipynb":  # \uXXXX escapes in the JSON become characters
            text = json.dumps(json.loads(text), ensure_ascii=False)
        found.update(HANGUL.findall(text))
    return found


def write_subset(chars: set[str], target: Path) -> int:
    """Write the renamed WOFF subset of ``chars``; return its size in bytes."""
    from fontTools import subset
    from fontTools.ttLib import TTFont

    font = TTFont(str(source_font()))
    options = subset.Options()
    options.flavor = "woff"
    options.layout_features = ["*"]
    options.name_IDs = ["*"]
    subsetter = subset.Subsetter(options)
    subsetter.populate(text="".join(sorted(chars)))
    subsetter.subset(font)
    name = font["name"]
    for record in list(name.names):  # drop every name that carries "Nanum"
        if record.nameID in (1, 3, 4, 6, 16, 17, 18, 21, 22):
            name.removeNames(nameID=record.nameID)
    for name_id, value in ((1, FAMILY), (2, "Regular"), (3, f"{FAMILY};subset"),
                           (4, FAMILY), (6, FAMILY.replace(" ", "") + "-Regular")):
        name.setName(value, name_id, 3, 1, 0x409)
        name.setName(value, name_id, 1, 0, 0)
    target.parent.mkdir(parents=True, exist_ok=True)
    font.flavor = "woff"
    font.save(str(target))
    return target.stat().st_size


def _css() -> str:
    return (
        "/* Korean glyphs: a subset of NanumGothic (SIL OFL 1.1), renamed; see "
        "fonts/OFL-NanumGothic.txt */\n"
        f"@font-face {{\n  font-family: \"{FAMILY}\";\n"
        f"  src: url(\"fonts/{FONT_FILE}\") format(\"woff\");\n"
        f"  unicode-range: {UNICODE_RANGE};\n  font-display: block;\n}}\n"
        ":root {\n"
        f"  --pst-font-family-base: \"{FAMILY}\", var(--pst-font-family-base-system);\n"
        f"  --pst-font-family-heading: \"{FAMILY}\", var(--pst-font-family-base-system);\n"
        "}\n"
    )


def build_font(app, exception):
    if exception is not None or app.builder.format != "html":
        return
    static = Path(app.outdir) / "_static"
    chars = hangul_in(Path(app.srcdir))
    size = write_subset(chars or {"\uac00"}, static / "fonts" / FONT_FILE)
    (static / CSS_FILE).write_text(_css(), encoding="utf-8")
    shutil.copyfile(Path(__file__).with_name("fonts") / "OFL-NanumGothic.txt",
                    static / "fonts" / "OFL-NanumGothic.txt")
    from sphinx.util import logging

    logging.getLogger(__name__).info(
        f"korean_font: {len(chars)} Hangul characters, subset {size / 1024:.0f} KiB")


def setup(app):
    app.add_css_file(CSS_FILE)
    app.connect("build-finished", build_font)
    return {"parallel_read_safe": True, "parallel_write_safe": True}

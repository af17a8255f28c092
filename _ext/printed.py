"""The ``{printed}`` role: a number quoted from a source post, as printed.

The book's rule is that every number in its prose comes from code (myst-nb
``glue``), except quotations of what a post printed. Those are written as
``{printed}`0.6372``` so that a reader sees they are quotations and the prose
number check (``tests/test_prose_numbers.py``) can tell them from hand-typed
results. Rendered as the quoted text in typographic quotes, in a span of class
``printed``.
"""

from docutils import nodes


def printed_role(name, rawtext, text, lineno, inliner, options=None, content=None):
    node = nodes.inline(rawtext, f"\u201c{text}\u201d", classes=["printed"])
    return [node], []


def setup(app):
    app.add_role("printed", printed_role)
    return {"parallel_read_safe": True, "parallel_write_safe": True}

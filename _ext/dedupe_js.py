"""Drop duplicated <script> entries from every page.

sphinx-thebe 0.3.1 on Sphinx 7.4 registers its ``const THEBE_JS_URL = ...``
inline script once, but it is emitted twice (once with filename ``None``, once
with ``''``), so every page logs "Identifier 'THEBE_JS_URL' has already been
declared" in the browser console. Keep the first of identical scripts.
"""


def _dedupe(app, pagename, templatename, context, doctree):
    seen, kept = set(), []
    for js in context.get("script_files", []):
        key = (
            getattr(js, "filename", None) or "",
            tuple(sorted(getattr(js, "attributes", {}).items())),
        )
        if key not in seen:
            seen.add(key)
            kept.append(js)
    context["script_files"] = kept


def setup(app):
    app.connect("html-page-context", _dedupe, priority=999)
    return {"parallel_read_safe": True, "parallel_write_safe": True}

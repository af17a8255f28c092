"""``{metric-table}``: the metrics evaluate accepts, read from the metric registry.

book/api.md shows this table under :func:`parse_metric`; a metric declared in
its own module (metrics_lib/ranking/, see CONTRIBUTING.md) appears in it
without any edit of the page. The table is built as docutils nodes, so it
reads the same under MyST and reStructuredText.
"""

from docutils import nodes
from docutils.parsers.rst import Directive
from sphinx import addnodes

_PARAMETER = {"optional": "@k (optional)", "required": "@k", "none": "none",
              "level": "a recall level in [0, 1]", "persistence": "none",
              "params": "trec_eval's list (optional): .x,y,..."}


# the evaluate keywords that hold each kind of item data (registry.Metric.item_data)
_ITEM_DATA = {"popularity": ("item_popularity",), "genres": ("item_genres", "history"),
              "groups": ("item_groups", "exposure_group")}


def _parameters(metric) -> str:
    """The cut-off and the named parameters (registry.Parameter) of ``metric``'s names."""
    named = [f"({p.name}=...)" + (" (optional)" if p.default is not None else "")
             + (f", {p.meaning}: {p.allowed()}" if p.choices  # a word parameter
                else f", {p.meaning} in {p.interval}")
             + ("" if p.default is None else f", default {p.written(p.default)}"
                if p.choices else f", default {p.default:g}")
             for p in metric.parameters]
    cut = _PARAMETER[metric.cutoff]
    if metric.cutoff == "level" and metric.level_max != 1:
        cut = f"a level in [0, {metric.level_max:g}]".replace("inf]", "inf)")
    return "; ".join(named + ([] if cut == "none" and named else [cut]))


def _codes(words) -> list:
    out = []
    for word in words:
        out += [nodes.literal(text=word), nodes.Text(", ")]
    return out[:-1] or [nodes.Text("-")]


def _function(function) -> list:
    if function is None:
        return [nodes.Text("-")]
    name = function.__name__
    ref = addnodes.pending_xref("", refdomain="py", reftype="func", reftarget=name,
                                refexplicit=False, refwarn=False)
    ref["py:module"] = "metrics_lib"  # the page's currentmodule
    ref += nodes.literal(text=f"{name}()")
    return [ref]


def _cells(metric) -> list[list]:
    return [_codes(metric.aliases), [nodes.Text(_parameters(metric))],
            _codes(measure.name for measure in metric.trec_eval),
            _function(metric.per_list),
            # the intent metrics read a column of their own (intent_col=), the
            # popularity-bias ones a table (item_popularity=), miscalibration two
            _codes(metric.keywords + (("intent_col",) if metric.intents else ())
                   + _ITEM_DATA.get(metric.item_data, ()))]


def _row(cells) -> nodes.row:
    row = nodes.row()
    for content in cells:
        entry = nodes.entry()
        entry += nodes.paragraph("", "", *content)
        row += entry
    return row


class MetricTable(Directive):
    has_content = False

    def run(self):
        from metrics_lib.ranking import registry

        header = ["names (any case)", "parameter", "trec_eval measures", "per list",
                  "keywords of its own"]
        group = nodes.tgroup(cols=len(header))
        group += [nodes.colspec(colwidth=1) for _ in header]
        head = nodes.thead()
        head += _row([[nodes.Text(text)] for text in header])
        body = nodes.tbody()
        body += [_row(_cells(metric)) for metric in registry.metrics()]
        group += [head, body]
        table = nodes.table(classes=["metric-table"])
        table += group
        return [table]


def setup(app):
    app.add_directive("metric-table", MetricTable)
    return {"parallel_read_safe": True, "parallel_write_safe": True}

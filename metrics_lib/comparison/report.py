"""The report :func:`compare` returns: a table, and its Markdown, LaTeX and HTML."""

from __future__ import annotations

import html

import pandas as pd

__all__ = ["ComparisonReport", "TEST_NAMES", "CORRECTION_NAMES"]

TEST_NAMES = {
    "t": "paired t-test",
    "wilcoxon": "Wilcoxon signed-rank test",
    "permutation": "paired permutation (sign-flip) test",
    "bootstrap": "paired bootstrap test (shifted differences)",
    "tukey_hsd": "Tukey HSD (two-way ANOVA residual, users as blocks)",
    "randomised_tukey_hsd": "randomised Tukey HSD (range of system means, values "
                            "permuted within each user)",
}
CORRECTION_NAMES = {"holm": "Holm", "bh": "Benjamini-Hochberg",
                    "bonferroni": "Bonferroni", None: "no correction"}
_LATEX_SPECIALS = {"\\": r"\textbackslash{}", "&": r"\&", "%": r"\%", "$": r"\$",
                   "#": r"\#", "_": r"\_", "{": r"\{", "}": r"\}",
                   "~": r"\textasciitilde{}", "^": r"\textasciicircum{}"}


def _latex(text) -> str:
    return "".join(_LATEX_SPECIALS.get(c, c) for c in str(text))


def _p(value: float) -> str:
    return "<0.001" if value < 0.001 else f"{value:.3f}"


def _num(value, spec: str) -> str:
    """``value`` formatted, or empty when it is missing (an online row has no
    wins or no interval of the mean)."""
    return "" if pd.isna(value) else format(value, spec)


def _span(estimate, low, high, spec: str) -> str:
    if pd.isna(estimate):
        return ""
    interval = "" if pd.isna(low) else f" [{format(low, spec)}, {format(high, spec)}]"
    return format(estimate, spec) + interval


def _counts(wins, ties, losses) -> str:
    return "" if pd.isna(wins) else f"{int(wins)}/{int(ties)}/{int(losses)}"


class ComparisonReport:
    """The result of :func:`metrics_lib.compare`.

    Attributes
    ----------
    table : pandas.DataFrame
        One row per comparison (system x metric); columns described in
        :func:`metrics_lib.compare`.
    test, correction : str or None
        The test and the correction used.
    alpha, confidence : float
        Level of the verdicts and of the intervals.
    family_size : int
        Number of comparisons corrected together (the rows of ``table``).
    n_users : int
        Users paired across all systems.

    Examples
    --------
    >>> import pandas as pd
    >>> from metrics_lib import compare
    >>> users = pd.Index([1, 2, 3, 4, 5, 6], name="user")
    >>> a = pd.DataFrame({"ndcg@10": [.2, .3, .1, .4, .3, .2]}, index=users)
    >>> b = pd.DataFrame({"ndcg@10": [.5, .6, .2, .6, .6, .4]}, index=users)
    >>> report = compare({"A": a, "B": b}, baseline="A")
    >>> report.table.loc[0, ["system", "baseline", "verdict"]].tolist()
    ['B', 'A', 'better']
    >>> print(report.to_latex().splitlines()[6])
    ndcg@10 & B & A & 0.4833$^{\\dagger}$ & [0.3152, 0.6515] & +0.2333 & [+0.1476, +0.3190] & +2.86 & 6/0/0 & <0.001 \\\\
    """

    def __init__(self, table: pd.DataFrame, *, test, correction, alpha, confidence,
                 interval, n_users, notes=(), description=None):
        self.table = table
        self.test = test
        self.correction = correction
        self.alpha = alpha
        self.confidence = confidence
        self.interval = interval
        self.family_size = len(table)
        self.n_users = n_users
        self.notes = tuple(notes)
        self.description = description

    # -- text ---------------------------------------------------------------
    def describe(self) -> str:
        """The sentences that say how the table was computed."""
        level = f"{self.confidence:.0%}"
        if self.description is not None:
            return self.description + "".join(" " + note for note in self.notes)
        return (f"{self.n_users} users paired across systems. Mean: {level} Student-t "
                f"interval. Difference: system minus baseline per user, {level} "
                f"{self.interval} interval. Effect size d_z: mean paired difference / "
                f"standard deviation of the paired differences. Test: "
                f"{TEST_NAMES[self.test]}, two-sided; p corrected by "
                f"{CORRECTION_NAMES[self.correction]} across the family of "
                f"{self.family_size} comparisons (every system pair x metric). Verdict "
                f"at alpha = {self.alpha:g}: 'better'/'worse' when the corrected p is "
                "below alpha, else 'no evidence'. Wins/ties/losses: users whose value "
                "is higher/equal/lower than the baseline's." + "".join(
                    " " + note for note in self.notes))

    def _display(self) -> pd.DataFrame:
        t = self.table
        shown = pd.DataFrame({
            "metric": t["metric"], "system": t["system"], "baseline": t["baseline"],
            "mean [CI]": [_span(m, lo, hi, ".4f") for m, lo, hi in
                          zip(t["mean"], t["mean_low"], t["mean_high"])],
            "diff [CI]": [_span(d, lo, hi, "+.4f") for d, lo, hi in
                          zip(t["difference"], t["diff_low"], t["diff_high"])],
            "d_z": [_num(e, "+.2f") for e in t["effect_dz"]],
            "W/T/L": [_counts(w, ti, lo) for w, ti, lo in
                      zip(t["wins"], t["ties"], t["losses"])],
            "p": [_p(p) for p in t["p_value"]],
            "p corr.": [_p(p) for p in t["p_corrected"]],
            "verdict": t["verdict"]})
        if "design" in t.columns:
            shown.insert(1, "design", t["design"])
        if "tie_flip" in t.columns:
            shown["tie orders"] = [
                f"best: {b}; worst: {w}" + (" (FLIPS)" if f else "")
                for b, w, f in zip(t["verdict_best"], t["verdict_worst"], t["tie_flip"])]
        return shown

    def __repr__(self) -> str:
        body = self._display().to_string(index=False)
        return f"ComparisonReport ({TEST_NAMES[self.test]})\n{body}\n\n{self.describe()}"

    def _repr_html_(self) -> str:
        body = self._display().to_html(index=False, escape=True)
        return f"{body}<p><small>{html.escape(self.describe())}</small></p>"

    def to_markdown(self) -> str:
        """The table as GitHub Markdown, with how it was computed under it.

        Returns
        -------
        str
        """
        shown = self._display()
        cells = [list(shown.columns)] + shown.astype(str).to_numpy().tolist()
        escape = [[c.replace("|", "\\|") for c in row] for row in cells]
        lines = ["| " + " | ".join(row) + " |" for row in escape]
        lines.insert(1, "|" + "|".join("---" for _ in shown.columns) + "|")
        return "\n".join(lines) + "\n\n" + self.describe() + "\n"

    def to_latex(self, *, caption=None, label=None) -> str:
        """The table a paper prints (booktabs), with the marks explained under it.

        Parameters
        ----------
        caption, label : str, optional
            ``\\caption`` and ``\\label`` of the table.

        Returns
        -------
        str
            A ``table`` environment; needs ``\\usepackage{booktabs}``. A
            dagger marks a system significantly better than its baseline, a
            double dagger one significantly worse.
        """
        t = self.table
        rows = []
        for r in t.itertuples(index=False):
            mark = {"better": "$^{\\dagger}$", "worse": "$^{\\ddagger}$"}.get(r.verdict, "")
            design = getattr(r, "design", "offline")
            metric = r.metric if design == "offline" else f"{r.metric} ({design})"
            rows.append(" & ".join([
                _latex(metric), _latex(r.system), _latex(r.baseline),
                _num(r.mean, ".4f") + mark,
                "" if pd.isna(r.mean_low) else f"[{r.mean_low:.4f}, {r.mean_high:.4f}]",
                f"{r.difference:+.4f}",
                "" if pd.isna(r.diff_low) else f"[{r.diff_low:+.4f}, {r.diff_high:+.4f}]",
                _num(r.effect_dz, "+.2f"), _counts(r.wins, r.ties, r.losses),
                _latex(_p(r.p_corrected))]) + " \\\\")
        note = (f"$^{{\\dagger}}$ / $^{{\\ddagger}}$: significantly better / worse than "
                f"the baseline at $\\alpha = {self.alpha:g}$. " + _latex(self.describe()))
        head = ("Metric & System & Baseline & Mean & CI & $\\Delta$ & CI of $\\Delta$ & "
                "$d_z$ & W/T/L & $p_{\\mathrm{corr}}$ \\\\")
        parts = ["\\begin{table}", "\\centering"]
        if caption is not None:
            parts.append(f"\\caption{{{_latex(caption)}}}")
        if label is not None:
            parts.append(f"\\label{{{label}}}")
        parts += ["\\begin{tabular}{lllrrrrrrr}", "\\toprule", head, "\\midrule",
                  *rows, "\\bottomrule", "\\end{tabular}",
                  "\\par\\smallskip\\footnotesize " + note, "\\end{table}"]
        return "\n".join(parts) + "\n"

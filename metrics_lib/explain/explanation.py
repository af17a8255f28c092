"""The result of :func:`explain_difference`: numbers, tables and their display."""

from __future__ import annotations

import html
from dataclasses import dataclass

import pandas as pd

METHOD = ("exact Shapley values over the switches from a to b (every combination "
          "evaluated): independent of the order, they add up to the difference")


@dataclass(frozen=True, repr=False)
class Explanation:
    """Two conventions' means of one metric and the share of each convention.

    Attributes
    ----------
    metric, a, b : str
        The metric and the two sides (a peer name or the keywords given).
    value_a, value_b : float
        The means of evaluate's per-user table under each side.
    by_convention : pandas.DataFrame
        ``convention``, ``a``, ``b``, ``contribution`` (summing to
        ``difference``).
    per_user : pandas.DataFrame
        ``value_a``, ``value_b``, ``difference`` by user.
    users : pandas.DataFrame
        The users that differ most: ``user``, ``value_a``, ``value_b``,
        ``difference``, ``reasons``.
    keywords_a, keywords_b : dict
        evaluate's convention keywords of each side (with ``score_dtype``).
    """

    metric: str
    a: str
    b: str
    value_a: float
    value_b: float
    by_convention: pd.DataFrame
    per_user: pd.DataFrame
    users: pd.DataFrame
    keywords_a: dict
    keywords_b: dict
    method: str = METHOD

    @property
    def difference(self) -> float:
        """``value_b - value_a``."""
        return self.value_b - self.value_a

    def __repr__(self) -> str:
        lines = [f"{self.metric}: {self.a} = {self.value_a:.6g}, {self.b} = "
                 f"{self.value_b:.6g}, difference {self.difference:+.6g}"]
        if self.by_convention.empty:
            lines.append("  the two sides use the same conventions")
        order = self.by_convention.reindex(
            self.by_convention["contribution"].abs().sort_values(ascending=False).index)
        for row in order.itertuples(index=False):
            lines.append(f"  {row.convention}: {row.a!r} -> {row.b!r}  {row.contribution:+.6g}")
        for row in self.users.head(3).itertuples(index=False):
            lines.append(f"  user {row.user!r}: {row.value_a:.4g} -> {row.value_b:.4g} "
                         f"({row.reasons})")
        lines.append(f"  ({self.method})")
        return "\n".join(lines)

    def _repr_html_(self) -> str:
        head = (f"<p><b>{html.escape(self.metric)}</b>: {html.escape(self.a)} = "
                f"{self.value_a:.6g}, {html.escape(self.b)} = {self.value_b:.6g}, "
                f"difference {self.difference:+.6g}</p>")
        note = f"<p><small>{html.escape(self.method)}</small></p>"
        return head + self.by_convention.to_html(index=False) + \
            self.users.to_html(index=False) + note

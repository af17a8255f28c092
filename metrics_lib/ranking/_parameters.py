"""Named parameters of metric names: ``rbp(p=0.8)``, ``alpha_ndcg(alpha=0.5)@10``.

A metric declares each parameter its name takes as one :class:`Parameter`
in its registry entry (``Metric(parameters=(Parameter(...),))``); this
module reads the values written in a name, checks them against the
declaration and writes the canonical spelling. The grammar, read after the
whole name is put in lower case and stripped::

    name(key=value, key=value, ...)[@k]

* ``name`` is one of the metric's aliases, with no space before ``(``;
* each ``key`` is a declared parameter, given at most once, in any order;
  spaces around ``=`` and ``,`` are read (``rbp_resid( p = .95 )``);
* ``value`` is a decimal number (``0.8``, ``.8``, ``8e-1``, ``-2``), an
  integer for a parameter declared ``integer=True``; ``nan`` and ``inf`` are
  never values; or, for a parameter declared with ``choices``, one of its
  words (``group_exposure(weights=geometric)@10``; read in lower case);
* ``@k``, the cut-off, follows the parentheses, for a metric that takes one.

A parameter without a default must be written (``rbp`` alone is refused: the
peers disagree on its persistence); one with a default may be left out, and
``alpha_ndcg@10`` is ``alpha_ndcg(alpha=0.5)@10``.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass

from .._validation import did_you_mean, show

# a number as users write it (lower case already): no nan, no inf, no spaces
_NUMBER = re.compile(r"[+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:e[+-]?[0-9]+)?")
_INTEGER = re.compile(r"[+-]?[0-9]+")
_END = r"\s*([+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)|[+-]?inf)\s*"
_INTERVAL = re.compile(r"([\[(])" + _END + "," + _END + r"([\])])")


@dataclass(frozen=True)
class Parameter:
    """One named parameter of a metric's name, declared in its registry entry.

    Parameters
    ----------
    name : str
        The keyword users write, lower case (``"p"`` in ``rbp(p=0.8)``).
    interval : str or None
        The values allowed, as an interval: ``"(0, 1)"``, ``"[0, 1]"``,
        ``"[0, inf)"``, ``"(-inf, inf)"``; an infinite end is open. Messages
        quote it as written here. ``None`` for a word parameter
        (``choices``).
    meaning : str
        What the parameter is, for messages (``"persistence"``).
    default : float, int or None, default=None
        The value when the name leaves it out; ``None``: the name must give it.
    integer : bool, default=False
        Whether the value must be an integer (written without a point).
    example : float, int or None, default=None
        The value that messages suggest; the default, else the middle of the
        interval, when not given.
    note : str, default=""
        Added to the message of a name that leaves out a parameter without
        a default (why there is none).
    choices : tuple of str, default=()
        For a word parameter, the lower-case words allowed
        (``("log", "geometric", "equal")``); its value is then the word as
        written, and ``interval`` and ``integer`` do not apply.

    Raises
    ------
    ValueError
        If ``name`` is not a lower-case identifier, ``interval`` is not an
        interval of that form or is empty, or ``default`` lies outside it;
        for a word parameter, if a word is not a lower-case identifier, an
        interval is given too, or ``default`` is not one of the words.

    Examples
    --------
    >>> from metrics_lib.ranking.registry import Parameter
    >>> Parameter("alpha", "[0, 1]", "redundancy intolerance", default=0.5).read(
    ...     "alpha_ndcg(alpha=.25)@10", "alpha_ndcg", ".25")
    0.25
    >>> Parameter("weights", None, "position weights", default="log",
    ...           choices=("log", "geometric", "equal")).read(
    ...     "group_exposure(weights=equal)", "group_exposure", "equal")
    'equal'
    """

    name: str
    interval: str
    meaning: str
    default: float | int | None = None
    integer: bool = False
    example: float | int | None = None
    note: str = ""
    choices: tuple = ()

    def __post_init__(self):
        if not re.fullmatch(r"[a-z_][a-z0-9_]*", self.name):
            raise ValueError(f"parameter name {show(self.name)} is not a lower-case "
                             "identifier")
        if self.choices or self.interval is None:
            self._check_choices()
            return
        self.bounds()  # refuses a malformed interval at declaration
        if self.default is not None and not self._inside(self.default):
            raise ValueError(f"parameter {show(self.name)}: its default "
                             f"{show(self.default)} lies outside its interval "
                             f"{show(self.interval)}")

    def _check_choices(self) -> None:
        """Refuse a malformed word parameter at declaration."""
        words = self.choices
        if (not words or self.interval is not None or self.integer
                or not all(isinstance(w, str) and re.fullmatch(r"[a-z_][a-z0-9_]*", w)
                           for w in words) or len(set(words)) < len(words)):
            raise ValueError(f"parameter {show(self.name)}: a word parameter takes "
                             "choices, distinct lower-case words, and no interval")
        if self.default is not None and self.default not in words:
            raise ValueError(f"parameter {show(self.name)}: its default "
                             f"{show(self.default)} is not one of {show(words)}")

    def bounds(self) -> tuple[float, float, bool, bool]:
        """``(low, high, low_open, high_open)`` of :attr:`interval`."""
        found = _INTERVAL.fullmatch(self.interval.strip())
        if found is None:
            raise ValueError(f"parameter {show(self.name)}: interval {show(self.interval)} "
                             "is not of the form '(0, 1)', '[0, inf)', ...")
        opening, low, high, closing = found.groups()
        low, high = float(low), float(high)
        if (low == math.inf or high == -math.inf or low >= high
                or (math.isinf(low) and opening == "[")
                or (math.isinf(high) and closing == "]")):
            raise ValueError(f"parameter {show(self.name)}: interval {show(self.interval)} "
                             "is empty, or closed at an infinite end")
        return low, high, opening == "(", closing == ")"

    def allowed(self) -> str:
        """The values allowed, in words and as the interval: for messages."""
        if self.choices:
            return "one of " + ", ".join(repr(word) for word in self.choices)
        low, high, low_open, high_open = self.bounds()
        what = "an integer" if self.integer else (
            "a finite number" if math.isinf(low) or math.isinf(high) else "a number")
        if math.isinf(low) and math.isinf(high):
            words = what
        elif math.isinf(high):
            words = f"{what} {'>' if low_open else '>='} {low:g}"
        elif math.isinf(low):
            words = f"{what} {'<' if high_open else '<='} {high:g}"
        elif low_open and high_open:
            words = f"{what} strictly between {low:g} and {high:g}"
        else:
            words = what
        return f"{words}, in {self.interval}"

    def suggestion(self):
        """The value a message suggests."""
        if self.example is not None:
            return self.example
        if self.default is not None:
            return self.default
        if self.choices:
            return self.choices[0]
        low, high, _, _ = self.bounds()
        if math.isfinite(low) and math.isfinite(high):
            middle = (low + high) / 2
        else:  # one step inside the finite end, if there is one
            middle = low + 1 if math.isfinite(low) else high - 1 if math.isfinite(high) else 0
        return int(middle) if self.integer else middle

    def read(self, name: str, metric: str, text: str):
        """The value written as ``text`` in metric name ``name``; ValueError if not allowed."""
        text = text.strip()
        what = f"metric {show(name)}: {metric}'s {self.meaning} {self.name}"
        if not text:
            raise ValueError(f"{what} has no value; write {self.allowed()}, such as "
                             f"'{self.name}={self.suggestion()}'")
        if self.choices:
            if text in self.choices:
                return text
            hint = did_you_mean(text, self.choices)
            raise ValueError(f"{what} must be {self.allowed()}; got {show(text)}"
                             + (f" ({hint})" if hint else ""))
        pattern = _INTEGER if self.integer else _NUMBER
        value = None
        if pattern.fullmatch(text):
            value = int(text) if self.integer else float(text)
        if value is None or not self._inside(value):
            raise ValueError(f"{what} must be {self.allowed()}; got {show(text)}")
        return value

    def _inside(self, value) -> bool:
        low, high, low_open, high_open = self.bounds()
        if not math.isfinite(value):
            return False
        above = value > low if low_open else value >= low
        below = value < high if high_open else value <= high
        return above and below

    def written(self, value) -> str:
        """``value`` as the canonical name writes it (``0.8``, ``1e-05``, ``3``, ``log``)."""
        if self.choices:
            return str(value)
        return str(int(value)) if self.integer else repr(float(value))


# name(args)rest, in lower case: one pair of parentheses, nothing nested
_CALL = re.compile(r"(?P<name>[a-z0-9_-]+)\((?P<args>[^()]*)\)(?P<rest>.*)", re.S)
_ARG = re.compile(r"\s*(?P<key>[a-z_][a-z0-9_]*)\s*=(?P<value>.*)", re.S)
_CUT = re.compile(r"@(?P<k>[0-9]+)")


def split_call(name: str, lowered: str, example: str):
    """``(alias, [(key, value text)], cut-off text or None)`` of ``name(key=value, ...)[@k]``.

    ``lowered`` is ``name`` stripped and in lower case; ``example`` a
    well-formed name for messages. Only the form is checked here: which
    metric, which keys and which values are the caller's.
    """
    head = lowered.partition("(")[0]
    if "@" in head:  # alpha_ndcg@10(alpha=0.5)
        base, _, cut = head.partition("@")
        raise ValueError(f"metric {show(name)}: write the parameters before the cut-off, "
                         f"such as '{base}{lowered[len(head):]}@{cut}'")
    found = _CALL.fullmatch(lowered)
    if found is None and head != head.rstrip() and _CALL.fullmatch(
            head.rstrip() + lowered[len(head):]):
        raise ValueError(f"metric {show(name)}: no space between the metric and its "
                         f"parameters; write '{head.rstrip()}{lowered[len(head):]}'")
    if found is None:
        raise ValueError(f"metric {show(name)}: write the parameters in one pair of "
                         f"parentheses after the metric, name(key=value, ...), such as "
                         f"{show(example)}")
    rest = found.group("rest")
    cut = _CUT.fullmatch(rest)
    if rest and cut is None:
        raise ValueError(f"metric {show(name)}: only a cut-off '@k' may follow the "
                         f"parameters (no space), such as {show(example)}")
    pairs = []
    if found.group("args").strip():
        for piece in found.group("args").split(","):
            arg = _ARG.fullmatch(piece)
            if arg is None:
                raise ValueError(f"metric {show(name)}: {show(piece.strip())} is not "
                                 f"key=value; write name(key=value, ...), such as "
                                 f"{show(example)}")
            pairs.append((arg.group("key"), arg.group("value")))
    return found.group("name"), pairs, cut.group("k") if cut else None

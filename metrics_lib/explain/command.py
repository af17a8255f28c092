"""The explainer from TREC files: ``python -m metrics_lib explain|find ...``.

``explain`` runs :func:`metrics_lib.explain_difference` and ``find`` runs
:func:`metrics_lib.find_convention` on a qrels and a run file, read as
trec_eval reads them (:func:`metrics_lib.read_trec_qrels`,
:func:`metrics_lib.read_trec_run`). The first word of the command line picks
them; anything else is trec_eval's grammar (:mod:`metrics_lib.cli`), so a
qrels file named ``explain`` or ``find`` is written ``./explain`` there.

Output: a short text for a person, or with ``--json`` one JSON object whose
keys are stable (see :func:`explanation_json` and :func:`matches_json`).
Exit status: 0 done; 1 ``find`` found no setting within the tolerance; 2
bad usage or input (an unknown peer or keyword, a file that cannot be read,
a metric a side does not define), with the message on standard error.
"""

from __future__ import annotations

import argparse
import json
import math
import sys

_PROG = "python -m metrics_lib"

_EPILOG = ("A side is a peer name (trec_eval, pytrec_eval, ir_measures, ranx, recommenders, "
           "rectools, recbole, torchmetrics, sklearn) or a JSON object of evaluate's "
           "convention keywords, such as '{\"gain\": \"exponential\"}'. Ids are read as "
           "text, as trec_eval reads them; qrels rows with a negative grade are left out "
           "(trec_eval counts them neither relevant nor judged). Exit status: 0 done, 1 "
           "find matched nothing, 2 bad usage or input.")


class _Parser(argparse.ArgumentParser):
    def error(self, message):
        self.print_usage(sys.stderr)
        self.exit(2, f"{self.prog}: error: {message}\n")


def build_parser() -> argparse.ArgumentParser:
    """The parser of ``explain`` and ``find`` (one subcommand each)."""
    parser = _Parser(prog=_PROG, description="Why two conventions give two numbers, "
                     "from TREC files.", epilog=_EPILOG)
    commands = parser.add_subparsers(dest="command", required=True, parser_class=_Parser)
    explain = commands.add_parser(
        "explain", help="attribute the difference of two sides' means to conventions",
        description="metrics_lib.explain_difference on a qrels and a run file.",
        epilog=_EPILOG)
    explain.add_argument("--a", required=True, help="side a: a peer name or a JSON object")
    explain.add_argument("--b", required=True, help="side b: a peer name or a JSON object")
    explain.add_argument("--top", type=int, default=5,
                         help="how many users to name (default 5)")
    find = commands.add_parser(
        "find", help="the presets and keyword settings that reproduce a reported number",
        description="metrics_lib.find_convention on a qrels and a run file.", epilog=_EPILOG)
    find.add_argument("--value", required=True, type=float, help="the reported number")
    find.add_argument("--tolerance", type=float, default=5e-5,
                      help="largest accepted |mean - value| (default 5e-5)")
    find.add_argument("--max-evaluations", type=int, default=512,
                      help="grid settings tried at most (default 512)")
    for sub in (explain, find):
        sub.add_argument("--metric", required=True, help="one metric, such as ndcg@10")
        sub.add_argument("--keywords", default="{}",
                         help="JSON object of keywords shared by both sides / the search")
        sub.add_argument("--json", action="store_true", help="print one JSON object")
        sub.add_argument("qrels", help="TREC qrels file (qid iteration docno relevance)")
        sub.add_argument("run", help="TREC run file (qid Q0 docno rank score tag)")
    return parser


def main(argv) -> int:
    """Run ``explain`` or ``find``; return the exit status."""
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        shared = _json_object(args.keywords, "--keywords")
        recommendations, truth = read_files(args.qrels, args.run)
        if args.command == "explain":
            from .difference import explain_difference

            result = explain_difference(recommendations, truth, args.metric,
                                        _side(args.a, "--a"), _side(args.b, "--b"),
                                        top=args.top, **shared)
            text = (json.dumps(explanation_json(result), indent=1) if args.json
                    else repr(result))
            status = 0
        else:
            from .search import find_convention

            found = find_convention(recommendations, truth, args.metric, args.value,
                                    args.tolerance, max_evaluations=args.max_evaluations,
                                    **shared)
            text = (json.dumps(matches_json(found, args), indent=1) if args.json
                    else _matches_text(found, args))
            status = 0 if len(found) else 1
    except (OSError, ValueError, TypeError) as error:
        print(f"{_PROG} {args.command}: error: {error}", file=sys.stderr)
        return 2
    print(text)
    return status


def read_files(qrels_path, run_path):
    """(recommendations, truth) from a run and a qrels file, as trec_eval reads them."""
    from ..trec import read_trec_qrels, read_trec_run

    run = read_trec_run(run_path)
    qrels = read_trec_qrels(qrels_path)
    # evaluate takes grades >= 0; a negative grade is neither relevant nor judged
    # in trec_eval (form_res_rels.c, RELVALUE_UNJUDGED), so the row is left out
    truth = qrels[qrels["relevance"] >= 0].reset_index(drop=True)
    return run[["user", "item", "score"]], truth


def _json_object(text: str, option: str) -> dict:
    try:
        value = json.loads(text)
    except json.JSONDecodeError as error:
        raise ValueError(f"{option} must be a JSON object; {error}") from None
    if not isinstance(value, dict):
        raise ValueError(f"{option} must be a JSON object; got {text!r}")
    return _int_keys(value)


def _int_keys(value):
    """JSON object keys that are integers as ints (a gain mapping's grades)."""
    if isinstance(value, dict):
        return {(int(k) if isinstance(k, str) and k.lstrip("-").isdigit() else k):
                _int_keys(v) for k, v in value.items()}
    return value


def _side(text: str, option: str):
    return _json_object(text, option) if text.lstrip().startswith("{") else text


def _plain(value):
    """A value JSON can hold: NaN and infinities as null, mappings with text keys."""
    if isinstance(value, dict):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    if hasattr(value, "item") and not isinstance(value, (str, bytes)):
        value = value.item()  # numpy scalars
    if isinstance(value, float) and not math.isfinite(value):
        return None
    return value


def _records(frame) -> list:
    return [_plain(row) for row in frame.to_dict(orient="records")]


def explanation_json(result) -> dict:
    """An :class:`~metrics_lib.explain.Explanation` as one JSON-ready object.

    Keys (stable): ``metric``, ``a``, ``b``, ``value_a``, ``value_b``,
    ``difference``, ``method``, ``by_convention`` (a list of ``convention``,
    ``a``, ``b``, ``contribution``), ``users`` (a list of ``user``,
    ``value_a``, ``value_b``, ``difference``, ``reasons``), ``per_user``
    (a list of ``user``, ``value_a``, ``value_b``, ``difference``, in the
    order of ``Explanation.per_user``), ``keywords_a``, ``keywords_b``.
    A missing value (a user on one side only) is ``null``.
    """
    per_user = result.per_user.rename_axis("user").reset_index()
    return {"metric": result.metric, "a": result.a, "b": result.b,
            "value_a": _plain(result.value_a), "value_b": _plain(result.value_b),
            "difference": _plain(result.difference), "method": result.method,
            "by_convention": _records(result.by_convention),
            "users": _records(result.users), "per_user": _records(per_user),
            "keywords_a": _plain(result.keywords_a),
            "keywords_b": _plain(result.keywords_b)}


def matches_json(found, args) -> dict:
    """``find``'s answer: ``metric``, ``value``, ``tolerance`` and ``matches``
    (find_convention's rows: ``source``, ``peer``, ``changes``, ``n_changes``,
    ``value``, ``error``), most plausible first."""
    return {"metric": args.metric, "value": args.value, "tolerance": args.tolerance,
            "matches": _records(found)}


def _matches_text(found, args) -> str:
    head = (f"{args.metric} = {args.value!r} within {args.tolerance:g}: "
            f"{len(found)} match(es), most plausible first")
    lines = [head]
    for row in found.itertuples(index=False):
        who = row.peer if row.source == "preset" else (
            ", ".join(f"{k}={v!r}" for k, v in row.changes.items()) or "trec_eval's keywords")
        lines.append(f"  {row.source:6} {who}: {row.value:.6g} (error {row.error:+.2g})")
    if not len(found):
        lines.append("  no preset or setting tried reproduces it (try a larger "
                     "--tolerance or --max-evaluations)")
    return "\n".join(lines)

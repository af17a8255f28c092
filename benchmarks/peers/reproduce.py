"""metrics_lib with each peer's preset against the committed golden values.

Used by ``tests/test_peer_goldens.py`` (make test) and
``benchmarks/peers/reproduce_counts.py``. Runs in the project's venv (numpy,
pandas, metrics_lib); the peers themselves are not needed.

Every golden group (peer, metric, options, k) becomes one call
``evaluate(recs, truth, [name], convention=<preset>, **keywords)``, where
``name`` is the peer's own metric name and ``keywords`` are the peer's
options translated by :func:`metrics_lib.describe_convention`. The input is
prepared as each peer script prepared it (see their docstrings):

- ``candidates: "recommended+judged"`` (scikit-learn, torchmetrics): the judged
  items a user's list lacks are appended with score ``min(list) - 1`` (tied
  corpus) or ``min(list) - 1, - 2, ...`` in trec_eval's order (untied corpus);
- otherwise scikit-learn and torchmetrics see the recommended items only, which
  their presets say (``candidates="recommended"``);
- the trec_eval golden was computed by pytrec_eval-terrier: preset
  ``"pytrec_eval"`` (float32 score comparison).
"""
from __future__ import annotations

import json
import math
from functools import lru_cache
from pathlib import Path

import numpy as np
import pandas as pd

HERE = Path(__file__).resolve().parent
GOLDEN = HERE / "golden"
CORPUS = HERE / "corpus"
PEER_FILES = ("trec_eval", "ir_measures", "ranx", "recbole", "recommenders", "rectools",
              "sklearn", "torchmetrics")
# golden file -> preset that reproduces it
PRESET_OF = {"trec_eval": "pytrec_eval"}
# peers that compute in float32: values compared to 1e-6, others to 1e-12
FLOAT32 = {"torchmetrics": 1e-6, "recbole": 1e-6}
TOL = 1e-12
# Options that describe how the peer script prepared its input, not a convention.
INPUT_OPTIONS = ("candidates",)


@lru_cache(maxsize=None)
def corpus(scores: str):
    name = "recommendations.csv" if scores == "tied" else "recommendations_untied.csv"
    recs = pd.read_csv(CORPUS / name)
    truth = pd.read_csv(CORPUS / "truth.csv").rename(columns={"grade": "relevance"})
    return recs, truth


@lru_cache(maxsize=None)
def goldens() -> pd.DataFrame:
    frames = [pd.read_csv(GOLDEN / f"{peer}.csv", dtype={"options": str, "k": "Int64"},
                          keep_default_na=False, na_values={"k": [""]})
              for peer in PEER_FILES]
    frame = pd.concat(frames, ignore_index=True)
    frame["value"] = frame["value"].astype(float)
    return frame


def manifest() -> dict:
    """(peer, metric, options JSON, k or None) -> manifest entry."""
    data = json.loads((GOLDEN / "manifest.json").read_text())
    out = {}
    for peer in data["peers"]:
        for entry in peer["entries"]:
            key = (peer["peer"], entry["metric"],
                   json.dumps(entry["options"], sort_keys=True), entry["k"])
            out[key] = entry
    return out


def groups():
    """[(peer, metric, options JSON, k or None, frame of its rows)], sorted."""
    frame = goldens()
    out = []
    for (peer, metric, options, k), rows in frame.groupby(
            ["peer", "metric", "options", frame["k"].fillna(-1)], sort=True):
        k = None if k == -1 else int(k)
        out.append((peer, metric, options, k, rows))
        opts = json.loads(options)
        name = peer_metric_name(peer, metric, k, opts)
        for scores in ("tied", "untied"):
            names = _NAMES.setdefault(_batch_key(peer, opts, scores), [])
            if name not in names:
                names.append(name)
    return out


def _prepare(peer: str, options: dict, scores: str):
    return _prepared(peer, options.get("candidates"), scores)


@lru_cache(maxsize=None)
def _prepared(peer: str, candidates, scores: str):
    recs, truth = corpus(scores)
    if peer in ("sklearn", "torchmetrics"):
        if candidates == "recommended+judged":
            low = recs.groupby("user")["score"].min().rename("low")
            extra = truth.merge(recs[["user", "item"]], how="left", indicator=True,
                                on=["user", "item"])
            extra = extra[(extra["_merge"] == "left_only") & extra["user"].isin(low.index)]
            extra = extra[["user", "item"]].merge(low, left_on="user", right_index=True)
            extra = extra.rename(columns={"low": "score"})
            extra["score"] -= 1.0
            if scores == "untied":
                # distinct scores min - 1, min - 2, ... in trec_eval's order (item id
                # as text, descending), as _common.append_judged gave the peers
                text = extra["item"].astype(str)
                extra = extra.assign(_text=text).sort_values(
                    ["user", "_text"], ascending=[True, False], kind="stable")
                extra["score"] -= extra.groupby("user").cumcount().astype(float)
                extra = extra.drop(columns="_text")
            recs = pd.concat([recs, extra[["user", "item", "score"]]], ignore_index=True)
    return recs, truth


def peer_metric_name(peer: str, metric: str, k, options: dict) -> str:
    """The metric as the preset spells it: the peer's name, its options, the cut-off.

    ``ndcg_at_k(score_type='raw')@10``; ranx's names carry their cut-off and level
    (``ndcg@10-l2``); ir-measures' ``measure`` option is its own spelling of the same.
    """
    params = {key: value for key, value in options.items()
              if key not in INPUT_OPTIONS + ("top_k", "measure", "provider")}
    if peer == "ranx":
        params.pop("rel_lvl", None)  # in the name: ndcg@10-l2
        params.pop("make_comparable", None)  # the preset's default (missing="zero")
    args = ", ".join(f"{key}={value!r}" for key, value in sorted(params.items()))
    if peer == "ranx":
        base, _, rest = metric.partition("@")
        return f"{base}({args})@{rest}" if args and rest else metric
    name = f"{metric}({args})" if args else metric
    return name if k is None else f"{name}@{k}"


_BATCH: dict = {}


def _batch_key(peer: str, opts: dict, scores: str):
    return (peer, opts.get("candidates"), scores)


def compute(peer: str, metric: str, options: str, k, scores: str,
            preset: str | None = None) -> pd.Series:
    """metrics_lib's per-user values for one golden group.

    All groups of a peer that share an input are computed by one ``evaluate`` call
    (their metric names are collected by :func:`groups`); a name the call refuses is
    then computed alone, so that its own error message is reported. ``preset``
    overrides the preset of :data:`PRESET_OF`.
    """
    from metrics_lib import evaluate

    opts = json.loads(options)
    name = peer_metric_name(peer, metric, k, opts)
    recs, truth = _prepare(peer, opts, scores)
    if preset is not None:  # another preset than the one the test uses
        return evaluate(recs, truth, [name], convention=preset)[name]
    key = _batch_key(peer, opts, scores)
    preset = PRESET_OF.get(peer, peer)
    names = _NAMES.get(key, [])
    if key not in _BATCH and len(names) > 1:
        try:
            _BATCH[key] = evaluate(recs, truth, names, convention=preset)
            # pandas deep-copies attrs on every operation: the report is not needed here
            _BATCH[key].attrs = {}
        except (TypeError, ValueError):
            _BATCH[key] = None
    batch = _BATCH.get(key)
    if batch is not None and name in batch.columns:
        return batch[name]
    return evaluate(recs, truth, [name], convention=preset)[name]


_NAMES: dict = {}


def compare(peer, metric, options, k, rows, scores, preset=None) -> tuple[bool, str]:
    """(agrees, message) for the rows of one golden group on ``scores``."""
    expected = rows[rows["scores"] == scores].set_index("user")["value"]
    expected.attrs = {}
    try:
        ours = compute(peer, metric, options, k, scores, preset=preset)
    except (TypeError, ValueError) as error:
        return False, f"{type(error).__name__}: {error}"
    tol = FLOAT32.get(peer, TOL)
    missing = expected.index.difference(ours.index)
    if len(missing):
        return False, f"users missing from metrics_lib's result: {list(missing)[:8]}"
    got = ours.reindex(expected.index).to_numpy(dtype=float)
    want = expected.to_numpy(dtype=float)
    both_nan = np.isnan(got) & np.isnan(want)
    bad = ~both_nan & ~(np.abs(got - want) <= tol)
    known = partial(peer, metric, options)
    if known is not None:
        bad &= ~known[1](want, got)
    if bad.any():
        users = expected.index[bad]
        first = users[0]
        return False, (f"{int(bad.sum())} of {len(want)} users differ, e.g. user {first}: "
                       f"peer {expected[first]!r}, metrics_lib {ours[first]!r}")
    return True, "ok"


def classify(peer, metric, options, k, rows) -> tuple[str, str]:
    """'tied' (exact on tied scores), 'untied' (only without ties) or 'no'."""
    ok_tied, msg_tied = compare(peer, metric, options, k, rows, "tied")
    if ok_tied:
        ok_untied, msg = compare(peer, metric, options, k, rows, "untied")
        return ("tied", "ok") if ok_untied else ("no", "untied: " + msg)
    ok_untied, msg = compare(peer, metric, options, k, rows, "untied")
    if ok_untied:
        return "untied", "tied: " + msg_tied
    return "no", "tied: " + msg_tied + " | untied: " + msg


def _finite(x) -> bool:
    return not (isinstance(x, float) and math.isnan(x))


# Golden groups that metrics_lib does not reproduce, each with its reason.
# A key is (peer, metric, options subset); it covers every k. tests/test_peer_goldens.py
# fails when a listed group is in fact reproduced (the entry is stale) and when a group
# fails that is not listed.
# (None at present: every golden group is reproduced, exactly or on untied scores.)
ALLOWED: dict = {}

# Groups reproduced except for users of a stated kind: (reason, test on the peer's and
# metrics_lib's values of the users that differ). The test checks every other user and
# that each differing user is of that kind.
PARTIAL = {
    ("recommenders", "r_precision_at_k", ()): (
        "called on one user, Recommenders returns 0.0 when the user has no hit in the top k "
        "(the `df_hit.shape[0] == 0` guard of r_precision_at_k), but NaN when the hits lie "
        "below rank |R|; in a call on many users both are NaN and left out of the mean, "
        "which is the preset's no_hit='nan'",
        lambda peer, ours: (peer == 0.0) & np.isnan(ours)),
    **{("recommenders", "ndcg_at_k", (("score_type", score_type),)): (
        "score_type='raw'/'exp' take the rating as the gain: a user whose ratings are all 0 "
        "has an ideal DCG of 0, and 0/0 = NaN leaves it out of ndcg_at_k's mean over many "
        "users (the preset's empty='nan'); called on that user alone, the "
        "`df_hit.shape[0] == 0` guard returns 0.0 when no rated item is in the top k",
        lambda peer, ours: (peer == 0.0) & np.isnan(ours)) for score_type in ("raw", "exp")},
}


def corpus_value_word(peer: str) -> str:
    """The value a PARTIAL entry's peer gives the users the preset leaves nan."""
    return {"sklearn": "1.0", "recommenders": "0.0"}.get(peer, "another value")


def partial(peer: str, metric: str, options: str):
    opts = json.loads(options)
    for (a_peer, a_metric, a_opts), value in PARTIAL.items():
        if a_peer == peer and a_metric == metric and all(
                opts.get(name) == v for name, v in a_opts):
            return value
    return None


def _entry(peer: str, metric: str, options: str):
    opts = json.loads(options)
    for key in ALLOWED:
        a_peer, a_metric, a_opts = key
        if a_peer == peer and a_metric in (None, metric) and all(
                opts.get(name) == value for name, value in a_opts):
            return key
    return None


def allowed(peer: str, metric: str, options: str) -> str | None:
    """The reason a golden group is allowed to differ, or None."""
    key = _entry(peer, metric, options)
    return None if key is None else ALLOWED[key]


def expected_level(peer: str, metric: str, options: str, k) -> str:
    """'tied' when the preset says the peer's tie order is reproducible, else 'untied'."""
    from metrics_lib import describe_convention

    name = peer_metric_name(peer, metric, k, json.loads(options))
    try:
        info = describe_convention(PRESET_OF.get(peer, peer), name)
    except ValueError:
        return "tied"
    return "tied" if info["ties_reproducible"] else "untied"


def check_all(peers=PEER_FILES):
    """Per group: (peer, metric, options, k, level reached, level expected, reason, message)."""
    out = []
    for peer, metric, options, k, rows in groups():
        if peer not in peers:
            continue
        reached, message = classify(peer, metric, options, k, rows)
        out.append((peer, metric, options, k, reached,
                    expected_level(peer, metric, options, k),
                    allowed(peer, metric, options), message))
    return out

"""How many golden groups metrics_lib reproduces, per peer.

    PYTHONPATH=. python benchmarks/peers/reproduce_counts.py [--groups]

A group is one (metric, options, k) of one peer (all its users). Columns:
``exact`` -- every user's value agrees on the tied corpus and on the untied one
(for the groups in ``reproduce.PARTIAL``: every user but those of the kind listed
there, counted in the last column);
``untied only`` -- agrees on the untied corpus only (the peer orders tied
scores in an implementation-defined way); ``not at all`` -- differs on both,
with the reason from the allow-list in ``reproduce.py``. ``--groups`` lists
the groups that are not exact.
"""
from __future__ import annotations

import collections
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import reproduce  # noqa: E402


def main(argv) -> None:
    results = reproduce.check_all()
    counts = collections.defaultdict(collections.Counter)
    for peer, metric, options, _k, reached, *_ in results:
        counts[peer][reached] += 1
        if reached != "no" and reproduce.partial(peer, metric, options) is not None:
            counts[peer]["listed users"] += 1
    print(f"{'peer':<14}{'groups':>8}{'exact':>8}{'untied only':>13}{'not at all':>12}"
          f"{'  (exact/untied but for listed users)':>38}")
    total = collections.Counter()
    for peer in reproduce.PEER_FILES:
        c = counts[peer]
        n = c["tied"] + c["untied"] + c["no"]
        total.update(c)
        print(f"{peer:<14}{n:>8}{c['tied']:>8}{c['untied']:>13}{c['no']:>12}"
              f"{c['listed users']:>38}")
    n = total["tied"] + total["untied"] + total["no"]
    print(f"{'all':<14}{n:>8}{total['tied']:>8}{total['untied']:>13}{total['no']:>12}"
          f"{total['listed users']:>38}")
    if "--groups" in argv:
        for peer, metric, options, k, reached, expected, reason, message in results:
            if reached != "tied":
                print(f"{peer} {metric} {options} k={k}: {reached} (expected {expected})"
                      f"\n    reason: {reason}\n    {message[:300]}")


if __name__ == "__main__":
    main(sys.argv[1:])

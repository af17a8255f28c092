"""How many golden groups metrics_lib reproduces, per peer.

    PYTHONPATH=. python benchmarks/peers/reproduce_counts.py [--groups]

A group is one (metric, options, k) of one peer (all its users). Columns:
``exact`` -- every user's value agrees on the tied corpus and on the untied one;
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
    for peer, _m, _o, _k, reached, *_ in results:
        counts[peer][reached] += 1
    print(f"{'peer':<14}{'groups':>8}{'exact':>8}{'untied only':>13}{'not at all':>12}")
    total = collections.Counter()
    for peer in reproduce.PEER_FILES:
        c = counts[peer]
        n = sum(c.values())
        total.update(c)
        print(f"{peer:<14}{n:>8}{c['tied']:>8}{c['untied']:>13}{c['no']:>12}")
    n = sum(total.values())
    print(f"{'all':<14}{n:>8}{total['tied']:>8}{total['untied']:>13}{total['no']:>12}")
    if "--groups" in argv:
        for peer, metric, options, k, reached, expected, reason, message in results:
            if reached != "tied":
                print(f"{peer} {metric} {options} k={k}: {reached} (expected {expected})"
                      f"\n    reason: {reason}\n    {message[:300]}")


if __name__ == "__main__":
    main(sys.argv[1:])

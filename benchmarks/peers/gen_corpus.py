"""Write the seeded golden corpus (standard library only, so any venv can run it).

Files written into ``corpus/``:

- ``recommendations.csv``: user,item,score (the tied corpus);
- ``recommendations_untied.csv``: the same rows, scores replaced by distinct ones;
- ``truth.csv``: user,item,grade (grades 0-3; 0 = judged, not relevant);
- ``users.json``: which users belong to which edge case.

Users and items are integers. Item ids run from 1 to 150, so their text order
("9" > "10" > "100") differs from their numeric order. Edge cases (by user id):

- 1-150   ordinary users: 5-30 recommended items, 1-12 judged items, grades 0-3;
- 151-165 short lists: 1-4 recommended items (shorter than every k >= 5);
- 166-175 nothing relevant: judged items all have grade 0;
- 176-180 nothing relevant retrieved: relevant items exist, none recommended;
- 181-190 only in the truth table (no recommendations);
- 191-200 only in the predictions (no truth rows).

Ties: in every list with at least 4 items, blocks of items share one score; a
third of the blocks are float32-equal only (scores differ in float64 by a few
ulps of float32 less than half, i.e. ``x`` and ``x + 1e-9``), the rest exactly
equal. Scores are written with ``repr`` (round-trips float64 exactly).

Untied variant: per user, the rows are ordered as trec_eval orders them (score
descending, then item id compared as text, descending) and the score becomes
``n - position`` (n = list length, position 0-based): integers, distinct, so
every library sees the same order.
"""
from __future__ import annotations

import csv
import json
import random
import struct
from pathlib import Path

SEED = 20261123
N_ITEMS = 150
HERE = Path(__file__).resolve().parent


def f32(x: float) -> float:
    return struct.unpack("f", struct.pack("f", x))[0]


def make_scores(rng: random.Random, n: int) -> list[float]:
    """n scores in [0, 1) with tie blocks (exact and float32-equal)."""
    scores = [round(rng.random(), 6) for _ in range(n)]
    if n >= 4:
        n_blocks = rng.randint(1, max(1, n // 5))
        for b in range(n_blocks):
            size = rng.randint(2, min(4, n))
            idx = rng.sample(range(n), size)
            base = f32(rng.random())
            float32_only = b % 3 == 2
            for j, i in enumerate(idx):
                # float32-equal but float64-distinct: base + j * 1e-9 rounds to
                # base in float32 whenever base > ~0.02 (ulp/2 > 3e-9).
                scores[i] = base + j * 1e-9 if float32_only and base > 0.05 else base
    return scores


def main() -> None:
    rng = random.Random(SEED)
    recs: list[tuple[int, int, float]] = []
    truth: list[tuple[int, int, int]] = []
    groups: dict[str, list[int]] = {
        "ordinary": list(range(1, 151)),
        "short_list": list(range(151, 166)),
        "nothing_relevant_judged": list(range(166, 176)),
        "relevant_not_retrieved": list(range(176, 181)),
        "truth_only": list(range(181, 191)),
        "predictions_only": list(range(191, 201)),
    }
    for u in range(1, 201):
        if u <= 150:
            n_rec, n_true = rng.randint(5, 30), rng.randint(1, 12)
        elif u <= 165:
            n_rec, n_true = rng.randint(1, 4), rng.randint(1, 6)
        elif u <= 180:
            n_rec, n_true = rng.randint(5, 25), rng.randint(1, 8)
        elif u <= 190:
            n_rec, n_true = 0, rng.randint(1, 8)
        else:
            n_rec, n_true = rng.randint(3, 25), 0
        items = rng.sample(range(1, N_ITEMS + 1), n_rec)
        for it, s in zip(items, make_scores(rng, n_rec)):
            recs.append((u, it, s))
        if n_true:
            if 176 <= u <= 180:
                pool = [i for i in range(1, N_ITEMS + 1) if i not in items]
                judged = rng.sample(pool, n_true)
            else:
                # about half the judged items come from the list, so there are hits
                from_list = rng.sample(items, min(len(items), rng.randint(0, n_true)))
                pool = [i for i in range(1, N_ITEMS + 1) if i not in from_list]
                judged = from_list + rng.sample(pool, n_true - len(from_list))
            for it in judged:
                if 166 <= u <= 175:
                    g = 0
                else:
                    g = rng.choice([0, 1, 1, 2, 2, 3])
                truth.append((u, it, g))
    out = HERE / "corpus"
    out.mkdir(exist_ok=True)
    with open(out / "recommendations.csv", "w", newline="") as f:
        w = csv.writer(f, lineterminator="\n")
        w.writerow(["user", "item", "score"])
        for u, i, s in recs:
            w.writerow([u, i, repr(s)])
    with open(out / "truth.csv", "w", newline="") as f:
        w = csv.writer(f, lineterminator="\n")
        w.writerow(["user", "item", "grade"])
        w.writerows(truth)
    # untied: trec_eval order (score desc, item text desc), then n - position
    by_user: dict[int, list[tuple[int, float]]] = {}
    for u, i, s in recs:
        by_user.setdefault(u, []).append((i, s))
    with open(out / "recommendations_untied.csv", "w", newline="") as f:
        w = csv.writer(f, lineterminator="\n")
        w.writerow(["user", "item", "score"])
        for u, rows in by_user.items():
            rows = sorted(rows, key=lambda r: str(r[0]).encode(), reverse=True)
            rows = sorted(rows, key=lambda r: r[1], reverse=True)  # stable
            n = len(rows)
            for pos, (i, _s) in enumerate(rows):
                w.writerow([u, i, repr(float(n - pos))])
    with open(out / "users.json", "w") as f:
        json.dump({"seed": SEED, "n_items": N_ITEMS, "groups": groups}, f, indent=1)
        f.write("\n")
    print(f"{len(recs)} recommendation rows, {len(truth)} truth rows")


if __name__ == "__main__":
    main()

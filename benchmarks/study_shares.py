"""The study half's goals measured on a database (issue 25), through the
commands a user runs:

- errors per game plan and per theme (``positions --errors --game-plan P``,
  ``--theme T``): the residual game plan's share of the errors in families
  (counted errors with a theme), and the share of counted errors with a theme;
- under each metric, the share of the plan's recoverable cost held by 1- and
  3-point matches (``plan --length 1 --length 3``, the whole plan's families)
  beside their share of the counted decisions (``stats``).

    python benchmarks/study_shares.py DB [--player NAME] [--residual PLAN]
"""

from __future__ import annotations

import argparse
import io
import json
import os
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
os.environ.setdefault("GNUBG_BLUNDER_NO_PLUGINS", "1")


def run_json(db: str, *args) -> dict:
    from gnubg_blunder.commands import Context, run

    out, err = io.StringIO(), io.StringIO()
    status = run(["--no-config", "--db", db, *args, "--format", "json"], Context(out=out, err=err))
    if status != 0:
        raise SystemExit(f"gnubg-blunder {' '.join(args)}: {err.getvalue().strip()}")
    return json.loads(out.getvalue())


def residual_plan() -> str:
    from gnubg_blunder.board import features

    return getattr(features, "PLAN_RESIDUAL", None) or getattr(features, "PLAN_OTHER", "other")


def error_counts(db: str, who: list) -> dict:
    """{(game plan, theme): counted errors} of the scope."""
    from gnubg_blunder.labels import ALL_GAME_PLANS, THEMES

    out = {}
    for plan in ALL_GAME_PLANS:
        total = run_json(db, "positions", "--errors", "--game-plan", plan, "--limit", "1", *who)["total"]
        if not total:
            continue
        for theme in THEMES:
            n = run_json(db, "positions", "--errors", "--game-plan", plan, "--theme", theme, "--limit", "1",
                         *who)["total"]
            if n:
                out[plan, theme] = n
    return out


def metric_choices() -> list:
    from gnubg_blunder.metrics.vocabulary import CHOICES

    return list(CHOICES)


def plan_cost(db: str, who: list, metric, lengths=()) -> dict:
    args = ["plan", *who, *[a for n in lengths for a in ("--length", str(n))]]
    if metric:
        try:
            return run_json(db, *args, "--metric", metric)
        except SystemExit:
            return {}
    return run_json(db, *args)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("db")
    ap.add_argument("--player")
    ap.add_argument("--residual", help="the residual game plan's name (default: the code's)")
    args = ap.parse_args(argv)
    who = ["--player", args.player] if args.player else []
    from gnubg_blunder.board.features import THEME_NONE

    residual = args.residual or residual_plan()
    counts = error_counts(args.db, who)
    errors = sum(counts.values())
    themed = {k: n for k, n in counts.items() if k[1] != THEME_NONE}
    in_families = sum(themed.values())
    print(f"scope: {args.player or 'both sides'}; {errors} counted errors, {in_families} with a theme "
          f"({100 * in_families / errors:.1f} %)")
    print(f"\n{'game plan':32} {'errors':>7} {'themed':>7} {'share of family errors':>23}")
    plans = sorted({p for p, _ in counts}, key=lambda p: -sum(n for (q, _), n in themed.items() if q == p))
    for p in plans:
        e = sum(n for (q, _), n in counts.items() if q == p)
        t = sum(n for (q, _), n in themed.items() if q == p)
        mark = "  <- residual" if p == residual else ""
        print(f"{p:32} {e:7} {t:7} {100 * t / in_families:22.1f} %{mark}")
    res = sum(n for (q, _), n in themed.items() if q == residual)
    print(f"residual game plan {residual!r}: {100 * res / in_families:.1f} % of the errors in families")
    print(f"\n{'theme':32} {'errors':>7}")
    for theme in sorted({t for _, t in counts}, key=lambda t: -sum(n for (_, u), n in counts.items() if u == t)):
        print(f"{theme:32} {sum(n for (_, u), n in counts.items() if u == theme):7}")

    stats = run_json(args.db, "stats", *who)
    short_stats = run_json(args.db, "stats", *who, "--length", "1", "--length", "3")
    share_decisions = short_stats["decisions"] / stats["decisions"]
    print(f"\n1- and 3-point matches: {100 * share_decisions:.1f} % of the counted decisions")
    for metric in [None] + metric_choices():
        whole = plan_cost(args.db, who, metric)
        if not whole:
            print(f"  --metric {metric}: not taken by plan")
            continue
        in_plan = {f["family"]: f for f in whole["families"] if f["status"] == "plan"}
        short = {f["family"]: f for f in plan_cost(args.db, who, metric, (1, 3))["families"]}
        r_all = sum(f["recoverable"] for f in in_plan.values())
        r_short = sum(short[name]["recoverable"] for name in in_plan if name in short and
                      short[name]["recoverable"] is not None)
        unit = whole.get("unit") or next((f.get("unit") for f in in_plan.values() if f.get("unit")), "")
        ratio = (r_short / r_all) / share_decisions if r_all else float("nan")
        print(f"  {'--metric ' + metric if metric else 'no --metric'}: the plan's {len(in_plan)} families hold R {r_all:.2f} {unit}; "
              f"1-3-point matches {100 * r_short / r_all:.1f} % of it = {ratio:.2f} × their decision share")
    return 0


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/env python3
"""Recomputes one published row's p50 interval and sign test from a day's dataset CSV alone.

An independent implementation of the methodology's uncertainty rules (issue 24) in exact integer
arithmetic, sharing no code with the service: a reader can check a frozen Stat with nothing but
the two files the API serves.

  curl -o day.csv  $BASE/api/dataset/2026-11-26.csv
  curl -o stat.json "$BASE/api/stat/token-trade-coverage?date=2026-11-26"
  python3 scripts/recompute-ci.py day.csv stat.json mobula

Rules, as /methodology states them:
- a row's samples: the benchmark's value metric for the provider in the UTC day, on (cell, cycle)
  pairs at least two of the benchmark's providers were measured on (a cell is the spec's cell
  labels plus region; a provider alone on every pair keeps its own samples);
- the interval: x(l) and x(u) of the n sorted samples, l the largest rank with
  P(Bin(n, 1/2) <= l - 1) <= 0.025, u the smallest with P(Bin(n, 1/2) >= u) <= 0.025;
- the sign test against the leader: one value per (region, cycle), the median over the cells both
  were measured on of leader - row; p = min(1, 2 P(Bin(m, 1/2) <= min(k+, k-))), zeros dropped;
- Δ against the leader (vsLeader.delta): the ranked statistic (p50, or the mean for head lag) of the
  leader's values on the (cell, cycle) pairs both were measured on, minus the row's there;
- reliability (lessReliableThan): a provider whose failure share on the probes both were sent on
  the same (cell, cycle) exceeds another's by more than 1 percentage point, with the sign test on
  per-(region, cycle) failure-count differences at p < 0.05 and most of them against it;
- head lag: beside each lag the dataset stores the provider's block number (rpc_head_block) and our
  node's head it was measured against (rpc_reference_head); a lag is 0 exactly when the block is at
  or past that head.
"""
import csv
import json
import sys
from collections import defaultdict
from fractions import Fraction


def cdf_half(n, k):
    """P(Bin(n, 1/2) <= k), exact."""
    if k < 0:
        return Fraction(0)
    run, c = 0, 1
    for j in range(0, min(k, n) + 1):
        run += c
        c = c * (n - j) // (j + 1)
    return Fraction(run, 2**n)


def ranks(n):
    """(l, u) for the median, or None: one pass of running binomial sums, in exact integers."""
    # P(B <= k) <= 0.025  <=>  40 * sum_{j<=k} C(n, j) <= 2^n; the median's tails are symmetric.
    total = 2**n
    lows = []
    run = 0
    c = 1
    for k in range(0, n):
        run += c
        if 40 * run <= total:
            lows.append(k + 1)
        else:
            break
        c = c * (n - k) // (k + 1)
    if not lows:
        return None
    l = max(lows)
    # By symmetry P(B >= u) = P(B <= n - u): the smallest u is n + 1 - l.
    return l, n + 1 - l


def median(xs):
    """Linear interpolation between closest ranks, as quantileSorted does."""
    xs = sorted(xs)
    pos = (len(xs) - 1) * 0.5
    lo = int(pos)
    hi = min(lo + 1, len(xs) - 1)
    return xs[lo] + (xs[hi] - xs[lo]) * (pos - lo)


def round6(x):
    return float(f"{x:.6g}")


def recall_from_counts(csv_path, provider):
    """Each stored recall of the provider from the counts beside it: |P ∩ T_fin| / (|T_fin| + phantoms) x 100."""
    by = defaultdict(dict)
    with open(csv_path, newline="") as f:
        for r in csv.DictReader(f):
            m = r["metric"]
            if m not in ("token_trade_recall_pct", "token_trade_matched", "token_trade_phantoms", "token_trade_truth_count"):
                continue
            labels = {k.removeprefix("label_"): v for k, v in r.items() if k not in ("metric", "timestamp", "value") and v != ""}
            cell = (labels.get("chain", ""), labels.get("token", ""), labels.get("region", ""), r["timestamp"])
            if m == "token_trade_truth_count":
                by[cell]["truth"] = float(r["value"])
            elif labels.get("provider") == provider:
                by[cell][m] = float(r["value"])
    n = agree = 0
    for v in by.values():
        if "token_trade_recall_pct" not in v or "token_trade_matched" not in v:
            continue
        n += 1
        whole = v["truth"] + v.get("token_trade_phantoms", 0)
        if abs(v["token_trade_matched"] / whole * 100 - v["token_trade_recall_pct"]) < 1e-9:
            agree += 1
    print(f"recall from counts: {agree} of {n} samples are |P ∩ T_fin| / (|T_fin| + phantoms) x 100")


def head_numbers(csv_path, provider):
    """Each head-lag sample against the two block numbers stored beside it."""
    by = defaultdict(dict)
    with open(csv_path, newline="") as f:
        for r in csv.DictReader(f):
            if r.get("provider") != provider or r["metric"] not in ("rpc_head_lag_ms", "rpc_head_block", "rpc_reference_head"):
                continue
            by[(r.get("chain", ""), r.get("region", ""), r["timestamp"])][r["metric"]] = float(r["value"])
    both = [d for d in by.values() if len(d) == 3]
    agree = sum(1 for d in both if (d["rpc_head_lag_ms"] == 0) == (d["rpc_head_block"] >= d["rpc_reference_head"]))
    print(f"head numbers: {agree} of {len(both)} lags agree with their block numbers")


PROBES = {
    # slug: (probe metric, its cell labels, the labels a probe must carry), as each YAML states them
    "token-trade-coverage": ("token_trade_probe_ok", ["chain", "token"], {}),
    "token-trade-recall": ("token_trade_recall_probe_ok", ["chain", "token"], {}),
    "rpc-latency": ("rpc_probe_ok", ["chain", "kind"], {}),
    "rpc-head-lag": ("rpc_probe_ok", ["chain"], {"kind": "block"}),
}
RELIABILITY_MARGIN = 1  # percentage points, every window benchmark's reliabilityMargin


def less_reliable(csv_path, slug, providers):
    """Each provider's more reliable peers: failure share over the probes both were sent on the same
    (cell, cycle) higher by more than the margin, the sign test on per-(region, cycle) failure-count
    differences at p < 0.05, and most of those differences against it."""
    metric, cell_labels, match = PROBES[slug]
    grid = defaultdict(dict)
    with open(csv_path, newline="") as f:
        for r in csv.DictReader(f):
            if r["metric"] != metric or r.get("provider") not in providers:
                continue
            if any(r.get(k) != v for k, v in match.items()):
                continue
            key = (tuple(r.get(l, "") for l in cell_labels), r.get("region", ""), r["timestamp"])
            ok = float(r["value"]) == 1
            # Two probes of one provider on one cell and cycle: a failure of either counts.
            grid[r["provider"]][key] = grid[r["provider"]].get(key, True) and ok
    out = {p: [] for p in providers}
    names = sorted(providers)
    for i, a in enumerate(names):
        for b in names[i + 1:]:
            shared = grid[a].keys() & grid[b].keys()
            if not shared:
                continue
            per_slot = defaultdict(int)
            for k in shared:
                per_slot[(k[1], k[2])] += (not grid[a][k]) - (not grid[b][k])
            fa = sum(1 for k in shared if not grid[a][k])
            fb = sum(1 for k in shared if not grid[b][k])
            plus = sum(1 for d in per_slot.values() if d > 0)
            minus = sum(1 for d in per_slot.values() if d < 0)
            m = plus + minus
            p = 1 if m == 0 else min(Fraction(1), 2 * cdf_half(m, min(plus, minus)))
            gap = (fa - fb) / len(shared) * 100
            if p < Fraction(5, 100) and abs(gap) > RELIABILITY_MARGIN:
                if gap > 0 and plus > minus:
                    out[a].append(b)
                elif gap < 0 and minus > plus:
                    out[b].append(a)
    return {k: sorted(v) for k, v in out.items()}


def main(csv_path, stat_path, provider):
    stat = json.load(open(stat_path))
    spec_providers = {r["slug"] for r in stat["rankings"]}
    # The Stat does not name its metric or cells; the methodology does. Known window benchmarks:
    metric, cell_labels = {
        "token-trade-coverage": ("token_trade_capture_pct", ["chain", "token"]),
        "token-trade-recall": ("token_trade_recall_pct", ["chain", "token"]),
        "rpc-latency": ("rpc_latency_ms", ["chain", "kind"]),
        "rpc-head-lag": ("rpc_head_lag_ms", ["chain"]),
    }[stat["slug"]]
    rows = []
    with open(csv_path, newline="") as f:
        for r in csv.DictReader(f):
            if r["metric"] != metric:
                continue
            labels = {k.removeprefix("label_"): v for k, v in r.items() if k not in ("metric", "timestamp", "value") and v != ""}
            if labels.get("provider") not in spec_providers:
                continue
            cell = tuple(labels.get(l, "") for l in cell_labels) + (labels.get("region", ""),)
            rows.append((labels["provider"], cell, r["timestamp"], float(r["value"])))
    if stat["slug"] == "token-trade-recall":
        recall_from_counts(csv_path, provider)
    who = defaultdict(set)
    for p, cell, t, _ in rows:
        who[(cell, t)].add(p)
    own = [(cell, t, v) for p, cell, t, v in rows if p == provider]
    shared = [v for cell, t, v in own if len(who[(cell, t)]) >= 2]
    used = sorted(shared if shared else [v for _, _, v in own])
    n = len(used)
    published = next(r for r in stat["rankings"] if r["slug"] == provider)
    print(f"{stat['slug']} {provider}: n = {n} (published sampleSize {published['sampleSize']})")
    print(f"p50 = {round6(median(used))} (published {published['ms']['p50']})")
    rk = ranks(n)
    if rk:
        l, u = rk
        print(
            f"ranks l = {l}, u = {u}: P(B <= {l - 1}) = {float(cdf_half(n, l - 1)):.6f}, "
            f"P(B >= {u}) = {float(1 - cdf_half(n, u - 1)):.6f}"
        )
        print(f"ci95.p50 = [{round6(used[l - 1])}, {round6(used[u - 1])}] (published {published['ci95']['p50']})")
    else:
        print(f"no interval for n = {n} (published {published['ci95']['p50']})")
    print(f"mean = {round6(sum(used) / n) if n else None} (published {published['ms']['mean']})")
    if stat["slug"] == "rpc-head-lag":
        head_numbers(csv_path, provider)
    peers = less_reliable(csv_path, stat["slug"], spec_providers)[provider]
    print(f"less reliable than {peers} (published {published.get('lessReliableThan', [])})")
    leader = stat["rankings"][0]["slug"]
    if "vsLeader" in published:
        rank_by_mean = stat["slug"] == "rpc-head-lag"
        stat_of = (lambda xs: sum(xs) / len(xs)) if rank_by_mean else (lambda xs: median(sorted(xs)))
        lead_all = {(cell, t): v for p, cell, t, v in rows if p == leader}
        pairs = [(lead_all[(cell, t)], v) for cell, t, v in own if (cell, t) in lead_all]
        if pairs:
            delta = stat_of([a for a, _ in pairs]) - stat_of([b for _, b in pairs])
            print(
                f"delta vs {leader} = {round6(delta)} over {len(pairs)} shared pairs "
                f"(published {published['vsLeader'].get('delta')})"
            )
        lead = {(cell, t): v for p, cell, t, v in rows if p == leader}
        per_cycle = defaultdict(list)
        for cell, t, v in own:
            if (cell, t) in lead:
                per_cycle[(cell[-1], t)].append(lead[(cell, t)] - v)
        diffs = [median(ds) for ds in per_cycle.values()]
        plus = sum(1 for d in diffs if d > 0)
        minus = sum(1 for d in diffs if d < 0)
        m = plus + minus
        p = 1 if m == 0 else min(Fraction(1), 2 * cdf_half(m, min(plus, minus)))
        print(
            f"sign test vs {leader}: {m} non-zero cycles ({plus} +, {minus} -), p = {float(p):.6g} "
            f"(published pairs {published['vsLeader']['pairs']}, pValue {published['vsLeader']['pValue']})"
        )


if __name__ == "__main__":
    if len(sys.argv) != 4:
        sys.exit(__doc__)
    main(*sys.argv[1:])

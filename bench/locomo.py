"""LoCoMo memory retrieval: ``find`` over session messages, turn and session level, beside plain BM25.

Each LoCoMo conversation (sample) becomes one user's memory in a throw-away
``OV_HOME`` (user id = the sanitised ``sample_id``, e.g. ``conv-26``): one ov
session per ``session_N`` (``session_N`` keys are iterated, not the date keys),
every turn one message added with ``ov.sessions.session.add_messages`` (one call per
session): role ``user``, ``peer`` = the speaker's name as a peer id
(``caroline``), ``created_at`` = the session's ``date_time`` plus one second per
turn, ``id`` = the ``dia_id`` (``D1:3``), text = the turn's text plus
`` [image: CAPTION]`` when it carries a ``blip_caption``. Then each session is
committed with ``ov.sessions.commit.commit_session`` (archived to
``history/archive_001/messages.jsonl``, still indexed) unless ``--no-commit``.

Every question (category 5 left out; questions without a ``D<n>:<m>`` evidence id
skipped) is asked as its own conversation's user with
``find(store, question, FindOptions(types=("session",), limit=DEPTH))``:

* turn level: R@1/R@5/R@10 and MRR: a hit counts when its message id is an
  evidence turn;
* session level: R@1/R@5 and MRR: sessions ranked by their first appearance in
  the ``--depth`` (50) results, a session counts when it holds an evidence turn.

``FindOptions.limit`` only cuts the ranked list (the candidate pool is
``max(retrieval.candidates, 3 * limit)`` = 200 for both 10 and 50), so the top 10
of one limit-50 query is the limit-10 answer; the script checks that on the
first ``--check-limit`` questions.

The BM25 baseline is computed in the same run: plain tantivy with the ``en_stem``
tokenizer, the question through ``index.parse_query(question, ["text"])``
(punctuation removed, lower-cased), one document per turn, twice: the turn's
text only, and ``"Speaker: text"``, the shape that reproduces the reference
figures of ``../shared/bench-data/README.md`` (0.546 / 0.636 / 0.425 against
0.547 / 0.636 / 0.427); session level from the turn ranking and from one
``"Speaker: text"`` document per session (reference 0.636 / 0.893 / 0.746).
The by-category table compares with the ``"Speaker: text"`` baseline.

``--set SECTION.KEY=VALUE`` (repeatable) overrides the config; ``--grid
retrieval.KEY=V1,V2,...`` (repeatable) evaluates every combination of
query-time ``retrieval.*`` values on the same store and reports the best.

    .venv/bin/python bench/locomo.py ../shared/bench-data/locomo/locomo-dev.json [--quick] [--no-commit]
        [--set retrieval.context_weight=0.3 ...] [--grid retrieval.parent_weight=0.3,0.5,0.8 ...]
        [--lexical-only] [--embedder auto|none|hash|model2vec:PATH|sentence-transformers:PATH]
"""

from __future__ import annotations

import itertools
import json
import re
import time
from collections import defaultdict
from datetime import datetime, timedelta, timezone
from pathlib import Path

import common

TARGET_TURN_R10 = 0.80
TARGET_TURN_MRR = 0.55
REFERENCE = {
    "turn": {"R@5": 0.547, "R@10": 0.636, "MRR": 0.427},
    "session": {"R@1": 0.636, "R@5": 0.893, "MRR": 0.746},
}
CATEGORIES = {1: "multi-hop", 2: "temporal", 3: "open-domain", 4: "single-hop"}
TURN_KS = (1, 5, 10)
SESSION_KS = (1, 5)
EVIDENCE_RE = re.compile(r"D(\d+):(\d+)")
SESSION_KEY_RE = re.compile(r"^session_(\d+)$")
SESSION_IN_URI_RE = re.compile(r"/sessions/([^/]+)")
KEPT_HITS = 20  # results per question kept in the JSON output


# --- data ---------------------------------------------------------------------------


def sanitize_id(text: str) -> str:
    """A valid ov id (letters, digits, ``_.@-``): lower-cased, anything else becomes ``-``."""
    cleaned = re.sub(r"[^a-z0-9_.@-]+", "-", text.strip().lower()).strip("-.")
    cleaned = cleaned.replace("@", "-")
    return cleaned[:128] or "x"


def norm_dia(text: str) -> str | None:
    match = EVIDENCE_RE.fullmatch(text.strip())
    return f"D{int(match.group(1))}:{int(match.group(2))}" if match else None


def parse_when(text: str) -> datetime:
    """``"1:56 pm on 8 May, 2023"`` -> an aware UTC datetime."""
    cleaned = " ".join(text.replace(",", ", ").split()).replace(" ,", ",")
    for pattern in ("%I:%M %p on %d %B, %Y", "%I:%M %p on %d %b, %Y"):
        try:
            return datetime.strptime(cleaned, pattern).replace(tzinfo=timezone.utc)
        except ValueError:
            continue
    raise ValueError(f"unreadable LoCoMo date {text!r}")


def iso(moment: datetime) -> str:
    return moment.isoformat(timespec="seconds").replace("+00:00", "Z")


def turn_text(turn: dict) -> str:
    text = turn.get("text") or ""
    caption = turn.get("blip_caption")
    return f"{text} [image: {caption}]" if caption else text


def conversation_sessions(sample: dict) -> list[tuple[str, int, datetime | None, list[dict]]]:
    """(session key, number, start time, turns) in session order; only ``session_N`` keys holding turns."""
    conv = sample["conversation"]
    out = []
    for key, turns in conv.items():
        match = SESSION_KEY_RE.match(key)
        if not match or not isinstance(turns, list):
            continue
        when = conv.get(f"{key}_date_time")
        out.append((key, int(match.group(1)), parse_when(when) if when else None, turns))
    return sorted(out, key=lambda s: s[1])


def questions_of(sample: dict, known_dia: dict[str, str]) -> tuple[list[dict], dict[str, int]]:
    """The evaluated questions of a sample and counts of what was left out."""
    kept, skipped = [], {"category_5": 0, "no_evidence_id": 0, "evidence_not_in_conversation": 0}
    for n, qa in enumerate(sample["qa"]):
        if qa.get("category") == 5:
            skipped["category_5"] += 1
            continue
        dias = []
        for item in qa.get("evidence") or []:
            for a, b in EVIDENCE_RE.findall(str(item)):
                dias.append(f"D{int(a)}:{int(b)}")
        dias = list(dict.fromkeys(dias))
        if not dias:
            skipped["no_evidence_id"] += 1
            continue
        missing = [d for d in dias if d not in known_dia]
        if missing:
            skipped["evidence_not_in_conversation"] += len(missing)
        kept.append(
            {
                "sample_id": sample["sample_id"],
                "qa_index": n,
                "question": qa["question"],
                "answer": qa.get("answer"),
                "category": qa.get("category"),
                "evidence": dias,
                "gold_messages": sorted({known_dia[d] for d in dias if d in known_dia}),
                "gold_sessions": sorted({f"session_{d[1:].split(':')[0]}" for d in dias}),
            }
        )
    return kept, skipped


# --- building the ov store -------------------------------------------------------------


def build_store(home: Path, samples: list[dict], config, *, commit: bool) -> dict:
    """Every sample into its own user's sessions; returns timings, the dia_id -> message id maps and counts."""
    from ov.sessions import session as ov_session
    from ov.sessions.commit import commit_session

    stats = {"users": {}, "dia_to_message": {}, "sessions": 0, "messages": 0, "add_s": 0.0, "commit_s": 0.0, "memories": 0, "commit_failures": []}
    for sample in samples:
        user = sanitize_id(sample["sample_id"])
        store = common.open_store_as(home, user, config)
        stats["users"][sample["sample_id"]] = user
        mapping: dict[str, str] = {}
        for key, number, start, turns in conversation_sessions(sample):
            start = start or datetime(2000, 1, 1, tzinfo=timezone.utc) + timedelta(days=number)
            messages = []
            for j, turn in enumerate(turns):
                dia = norm_dia(str(turn.get("dia_id", ""))) or f"D{number}:x{j}"
                mid = dia
                k = 2
                while mid in mapping.values():
                    mid = f"{dia}~{k}"
                    k += 1
                mapping.setdefault(dia, mid)
                messages.append(
                    {
                        "role": "user",
                        "text": turn_text(turn),
                        "created_at": iso(start + timedelta(seconds=j)),
                        "peer": sanitize_id(turn.get("speaker") or "unknown"),
                        "id": mid,
                    }
                )
            sid = sanitize_id(key)
            elapsed, result = common.time_call(lambda: ov_session.add_messages(store, sid, messages))
            if len(result.added) != len(messages):
                raise RuntimeError(f"{user}/{sid}: {len(result.added)} of {len(messages)} messages added ({result.duplicates[:3]})")
            stats["add_s"] += elapsed
            stats["messages"] += len(messages)
            stats["sessions"] += 1
            if commit:
                elapsed, report = common.time_call(lambda: commit_session(store, sid))
                stats["commit_s"] += elapsed
                if report.status != "committed":
                    raise RuntimeError(f"{user}/{sid}: commit {report.status}")
                if report.failed:
                    stats["commit_failures"].append(f"{user}/{sid}: {report.failed}")
                stats["memories"] += sum(report.memories.values()) if report.memories else 0
        stats["dia_to_message"][sample["sample_id"]] = mapping
    return stats


def session_of_uri(uri: str) -> str:
    match = SESSION_IN_URI_RE.search(uri)
    return match.group(1) if match else ""


def run_ov(stores: dict, indices, questions: list[dict], depth: int, lexical_only: bool, check_limit: int = 0, levels: tuple[int, ...] | None = None) -> tuple[list[dict], dict]:
    """Ask every question through ``find``; per-question outputs and a few counts."""
    from ov.retrieval.find import FindOptions, find

    out = []
    info = {"mode": None, "non_message_hits_in_top10": 0, "limit10_mismatches": 0, "limit10_checked": 0, "seconds": 0.0}
    start = time.perf_counter()
    for n, q in enumerate(questions):
        store = stores[q["sample_id"]]
        result = find(store, q["question"], FindOptions(types=("session",), limit=depth, lexical_only=lexical_only, levels=levels), indices=indices)
        info["mode"] = result.mode
        hits = result.hits
        if n < check_limit:
            small = find(store, q["question"], FindOptions(types=("session",), limit=10, lexical_only=lexical_only, levels=levels), indices=indices)
            info["limit10_checked"] += 1
            if [h.uri + "#" + h.message_id for h in small.hits] != [h.uri + "#" + h.message_id for h in hits[:10]]:
                info["limit10_mismatches"] += 1
        info["non_message_hits_in_top10"] += sum(1 for h in hits[:10] if h.kind != "message")
        turn_ids = [h.message_id if h.kind == "message" else None for h in hits]
        sessions = list(dict.fromkeys(s for s in (session_of_uri(h.uri) for h in hits) if s))
        out.append(
            {
                "turn_rank": common.first_rank(turn_ids, set(q["gold_messages"])),
                "session_rank": common.first_rank(sessions, set(q["gold_sessions"])),
                "turn_recall@10": common.recall_at([t for t in turn_ids[:10] if t], q["gold_messages"], 10),
                "returned": [
                    {"id": h.message_id or h.uri, "session": session_of_uri(h.uri), "kind": h.kind, "score": round(h.score, 4)}
                    for h in hits[:KEPT_HITS]
                ],
                "sessions": sessions[:10],
            }
        )
    info["seconds"] = time.perf_counter() - start
    return out, info


# --- the BM25 baseline -------------------------------------------------------------------


def clean_query(text: str) -> str:
    """A question tantivy's query parser always accepts: words only, lower case (no AND/OR/NOT operators)."""
    return " ".join(re.findall(r"[^\W_]+", text.lower()))


class Bm25:
    """Plain tantivy, ``en_stem``: one document per unit (turn or session) of one conversation."""

    def __init__(self, docs: list[tuple[str, str]]) -> None:
        import tantivy

        builder = tantivy.SchemaBuilder()
        builder.add_text_field("text", tokenizer_name="en_stem")
        builder.add_text_field("id", stored=True, tokenizer_name="raw")
        self.index = tantivy.Index(builder.build())
        writer = self.index.writer(50_000_000, 1)
        for doc_id, text in docs:
            writer.add_document(tantivy.Document(id=doc_id, text=text))
        writer.commit()
        writer.wait_merging_threads()
        self.index.reload()
        self.searcher = self.index.searcher()

    def search(self, question: str, limit: int) -> list[tuple[str, float]]:
        text = clean_query(question)
        if not text:
            return []
        query = self.index.parse_query(text, ["text"])
        return [(self.searcher.doc(addr)["id"][0], float(score)) for score, addr in self.searcher.search(query, limit).hits]


def bm25_doc(turn: dict, with_speaker: bool) -> str:
    text = turn.get("text") or ""
    return f"{turn.get('speaker', '')}: {text}" if with_speaker else text


def run_bm25(samples: list[dict], stats: dict, questions: list[dict], depth: int) -> dict[str, list[dict]]:
    """Per-question BM25 outputs for three document shapes: turn text only, ``speaker: text`` per turn
    (the shape that reproduces the reference figures), and one ``speaker: text`` document per session."""
    indexes: dict[str, dict[str, Bm25]] = {}
    for sample in samples:
        mapping = stats["dia_to_message"][sample["sample_id"]]
        turns, speaker_turns, sessions = [], [], []
        for key, number, _, items in conversation_sessions(sample):
            for j, turn in enumerate(items):
                dia = norm_dia(str(turn.get("dia_id", ""))) or f"D{number}:x{j}"
                turns.append((mapping.get(dia, dia), bm25_doc(turn, False)))
                speaker_turns.append((mapping.get(dia, dia), bm25_doc(turn, True)))
            sessions.append((sanitize_id(key), "\n".join(bm25_doc(t, True) for t in items)))
        indexes[sample["sample_id"]] = {"text": Bm25(turns), "speaker_text": Bm25(speaker_turns), "session_docs": Bm25(sessions)}
    out: dict[str, list[dict]] = {"text": [], "speaker_text": [], "session_docs": []}
    for q in questions:
        own = indexes[q["sample_id"]]
        for shape in ("text", "speaker_text"):
            hits = own[shape].search(q["question"], depth)
            ids = [h[0] for h in hits]
            sessions = list(dict.fromkeys(f"session_{i[1:].split(':')[0]}" for i in ids))
            out[shape].append(
                {
                    "turn_rank": common.first_rank(ids, set(q["gold_messages"])),
                    "session_rank": common.first_rank(sessions, set(q["gold_sessions"])),
                    "turn_recall@10": common.recall_at(ids[:10], q["gold_messages"], 10),
                    "returned": [{"id": i, "score": round(s, 4)} for i, s in hits[:KEPT_HITS]],
                }
            )
        hits = own["session_docs"].search(q["question"], depth)
        out["session_docs"].append(
            {
                "turn_rank": None,
                "turn_recall@10": 0.0,
                "session_rank": common.first_rank([h[0] for h in hits], set(q["gold_sessions"])),
                "returned": [{"id": i, "score": round(s, 4)} for i, s in hits[:10]],
            }
        )
    return out


# --- metrics ------------------------------------------------------------------------------


# Conversations held back from tuning (``--holdout``): each figure is also reported on the
# others ("tune") and on these ("held"), so a weight that only fits the tuning conversations shows.
HOLDOUT: set[str] = set()


def metrics(questions: list[dict], outputs: list[dict], session_key: str = "session_rank") -> dict:
    def block(rows):
        turn = common.hit_rates([o["turn_rank"] for o in rows], TURN_KS)
        turn["recall_all@10"] = sum(o["turn_recall@10"] for o in rows) / (len(rows) or 1)
        return {"turn": turn, "session": common.hit_rates([o[session_key] for o in rows], SESSION_KS)}

    out = {"all": block(outputs), "by_category": {}, "by_conversation": {}}
    held = [o for q, o in zip(questions, outputs) if q["sample_id"] in HOLDOUT]
    tune = [o for q, o in zip(questions, outputs) if q["sample_id"] not in HOLDOUT]
    if held and tune:
        out["tune"], out["held"] = block(tune), block(held)
    for cat, name in CATEGORIES.items():
        rows = [o for q, o in zip(questions, outputs) if q["category"] == cat]
        if rows:
            out["by_category"][f"{cat} {name}"] = block(rows)
    for sample_id in dict.fromkeys(q["sample_id"] for q in questions):
        out["by_conversation"][sample_id] = block([o for q, o in zip(questions, outputs) if q["sample_id"] == sample_id])
    return out


def grid_configs(base, grid: list[str]) -> list[tuple[dict, object]]:
    axes = []
    for item in grid:
        key, values = common.parse_assignment(item)
        if not key.startswith("retrieval.") or key in ("retrieval.language",):
            raise SystemExit(f"--grid takes query-time retrieval.* keys only, not {key}")
        axes.append([(key, v) for v in values.split(",") if v])
    out = []
    for combo in itertools.product(*axes):
        out.append((dict(combo), common.config_with(base, list(combo))))
    return out


def main(argv: list[str] | None = None) -> int:
    parser = common.base_parser(__doc__.splitlines()[0])
    parser.add_argument("data", type=Path, help="locomo-dev.json")
    parser.add_argument("--quick", action="store_true", help="one conversation, at most 60 questions")
    parser.add_argument("--samples", default=None, help="comma-separated sample ids to use (default: all)")
    parser.add_argument("--no-commit", action="store_true", help="keep the messages live instead of committing each session")
    parser.add_argument("--set", dest="sets", action="append", default=[], metavar="SECTION.KEY=VALUE", help="config override (repeatable)")
    parser.add_argument("--grid", action="append", default=[], metavar="retrieval.KEY=V1,V2", help="query-time values to try on the same store (repeatable)")
    parser.add_argument("--lexical-only", action="store_true", help="FindOptions(lexical_only=True)")
    parser.add_argument("--embedder", default="auto", help="auto (config default), none, hash, model2vec:PATH, sentence-transformers:PATH")
    parser.add_argument("--depth", type=int, default=50, help="results per question (session ranking, MRR depth); default 50")
    parser.add_argument("--check-limit", type=int, default=20, help="questions also asked with limit 10 to check the top 10 is unchanged")
    parser.add_argument("--levels", default=None, help="FindOptions.levels, e.g. 2 (messages only, no session summaries); default all")
    parser.add_argument("--no-baseline", action="store_true", help="skip the BM25 baseline")
    parser.add_argument("--holdout", default="conv-43", help="comma-separated conversations held back from tuning: figures on the rest and on these (default conv-43; '' for none)")
    args = parser.parse_args(argv)

    HOLDOUT.update(x for x in args.holdout.split(",") if x)
    common.preload_retrieval()
    from ov.config import Config
    from ov.index.sync import Indices

    common.header("locomo: memory retrieval over session messages (turn and session level)")
    assignments = common.embedder_assignments(args.embedder) + [common.parse_assignment(s) for s in args.sets]
    config = common.config_with(Config(), assignments)
    samples = json.loads(args.data.read_text(encoding="utf-8"))
    if args.samples:
        wanted = set(args.samples.split(","))
        samples = [s for s in samples if s["sample_id"] in wanted]
    if args.quick:
        samples = samples[:1]
    commit = not args.no_commit
    levels = tuple(int(x) for x in args.levels.split(",")) if args.levels else None
    report = common.Report("locomo" + ("-quick" if args.quick else ""), params={k: str(v) if isinstance(v, Path) else v for k, v in vars(args).items()})
    report.params["config_overrides"] = assignments
    report.params["sessions_committed"] = commit
    report.params["git"] = common.git_state()
    report.params["retrieval_config"] = {k: v for k, v in config.retrieval.__dict__.items()}

    with common.temp_home("ov-bench-locomo", keep=args.keep) as home:
        build_start = time.perf_counter()
        stats = build_store(home, samples, config, commit=commit)
        questions, skipped = [], defaultdict(int)
        for sample in samples:
            kept, skip = questions_of(sample, stats["dia_to_message"][sample["sample_id"]])
            questions.extend(kept)
            for k, v in skip.items():
                skipped[k] += v
        if args.quick:
            questions = questions[:60]
        stores = {s["sample_id"]: common.open_store_as(home, stats["users"][s["sample_id"]], config) for s in samples}
        indices = Indices(next(iter(stores.values())))  # one index per account, shared by its users
        index_s, opened = common.time_call(indices.open)
        build_s = time.perf_counter() - build_start
        print(
            f"built {len(samples)} conversations: {stats['sessions']} sessions, {stats['messages']} messages "
            f"({'committed' if commit else 'live, not committed'}); add {stats['add_s']:.1f} s, commit {stats['commit_s']:.1f} s, "
            f"index {index_s:.1f} s ({opened.meta.records} records), mode {opened.mode}; {len(questions)} questions "
            f"(left out: {dict(skipped)})"
        )
        report.metrics["build"] = {
            "conversations": len(samples),
            "sessions": stats["sessions"],
            "messages": stats["messages"],
            "committed": commit,
            "add_s": stats["add_s"],
            "commit_s": stats["commit_s"],
            "index_s": index_s,
            "total_s": build_s,
            "records": opened.meta.records,
            "memories_written_by_commit": stats["memories"],
            "commit_failures": stats["commit_failures"],
            "questions": len(questions),
            "left_out": dict(skipped),
        }

        ov_out, info = run_ov(stores, indices, questions, args.depth, args.lexical_only, args.check_limit, levels)
        print(f"ov find: {len(questions)} questions in {info['seconds']:.1f} s ({info['seconds'] / max(len(questions), 1) * 1000:.1f} ms each), mode {info['mode']}")
        ov_metrics = metrics(questions, ov_out)
        report.metrics["ov"] = {**ov_metrics, "run": info}

        grid_rows = []
        if args.grid:
            for combo, grid_config in grid_configs(config, args.grid):
                grid_stores = {sid: common.open_store_as(home, stats["users"][sid], grid_config) for sid in stores}
                outputs, _ = run_ov(grid_stores, indices, questions, args.depth, args.lexical_only, levels=levels)
                m = metrics(questions, outputs)["all"]
                per = {sid: {"R@10": b["turn"]["R@10"], "MRR": b["turn"]["MRR"]} for sid, b in metrics(questions, outputs)["by_conversation"].items()}
                split = metrics(questions, outputs)
                row_ = {"values": combo, "turn": m["turn"], "session": m["session"], "turn_by_conversation": per}
                if "held" in split:
                    row_.update(tune=split["tune"]["turn"], held=split["held"]["turn"])
                grid_rows.append(row_)
            report.metrics["grid"] = grid_rows

        bm25_out = None
        if not args.no_baseline:
            bm25_out = run_bm25(samples, stats, questions, args.depth)
            for shape, outputs in bm25_out.items():
                report.metrics[f"bm25_{shape}"] = metrics(questions, outputs)

    # --- tables -----------------------------------------------------------------------
    label = "ov find" + (" (lexical-only)" if args.lexical_only else f" ({info['mode']})")
    rows = []
    columns = [("turn", "R@1"), ("turn", "R@5"), ("turn", "R@10"), ("turn", "MRR"), ("session", "R@1"), ("session", "R@5"), ("session", "MRR")]

    def row(name, m):
        return [name, *[m[level].get(key, float("nan")) for level, key in columns]]

    rows.append(row(label, ov_metrics["all"]))
    if "held" in ov_metrics:
        rows.append(row("  tuning conversations", ov_metrics["tune"]))
        rows.append(row(f"  held back ({','.join(sorted(HOLDOUT))})", ov_metrics["held"]))
    if bm25_out is not None:
        rows.append(row("BM25 en_stem, turn text (same run)", report.metrics["bm25_text"]["all"]))
        rows.append(row("BM25 en_stem, 'speaker: text' (same run)", report.metrics["bm25_speaker_text"]["all"]))
        m = report.metrics["bm25_session_docs"]["all"]
        rows.append(["BM25 en_stem, session docs (same run)", *(["-"] * 4), m["session"]["R@1"], m["session"]["R@5"], m["session"]["MRR"]])
    rows.append(["BM25 reference (data README)", "-", REFERENCE["turn"]["R@5"], REFERENCE["turn"]["R@10"], REFERENCE["turn"]["MRR"], REFERENCE["session"]["R@1"], REFERENCE["session"]["R@5"], REFERENCE["session"]["MRR"]])
    common.print_table(["system", "turn R@1", "R@5", "R@10", "MRR", "session R@1", "R@5", "MRR"], rows, title=f"LoCoMo, {len(questions)} questions, depth {args.depth}", digits=3)

    cat_rows = []
    for cat in ov_metrics["by_category"]:
        o = ov_metrics["by_category"][cat]
        b = report.metrics["bm25_speaker_text"]["by_category"][cat] if bm25_out is not None else None
        cat_rows.append(
            [cat, o["turn"]["n"], o["turn"]["R@10"], o["turn"]["MRR"], b["turn"]["R@10"] if b else float("nan"), b["turn"]["MRR"] if b else float("nan"), o["session"]["R@1"], o["session"]["R@5"], b["session"]["R@1"] if b else float("nan")]
        )
    common.print_table(["category", "n", "ov R@10", "ov MRR", "BM25 R@10", "BM25 MRR", "ov sess R@1", "ov sess R@5", "BM25 sess R@1"], cat_rows, title="By category", digits=3)

    if grid_rows:
        keys = list(grid_rows[0]["values"])
        nan = {"R@10": float("nan"), "MRR": float("nan")}
        grid_table = [
            [*(g["values"][k] for k in keys), g["turn"]["R@1"], g["turn"]["R@5"], g["turn"]["R@10"], g["turn"]["MRR"], g["session"]["R@1"], g["session"]["MRR"],
             g.get("tune", nan)["R@10"], g.get("tune", nan)["MRR"], g.get("held", nan)["R@10"], g.get("held", nan)["MRR"]]
            for g in grid_rows
        ]
        grid_table.sort(key=lambda r: (-r[-3], -r[-4]) if "held" in grid_rows[0] else (-r[-7], -r[-8]))
        common.print_table([*keys, "turn R@1", "R@5", "R@10", "MRR", "sess R@1", "sess MRR", "tune R@10", "tune MRR", "held R@10", "held MRR"], grid_table, title="Grid (sorted by turn MRR on the tuning conversations)", digits=3)
        best = max(grid_rows, key=lambda g: (g.get("tune", g["turn"])["MRR"], g.get("tune", g["turn"])["R@10"]))
        report.metrics["grid_best"] = best
        print(f"best by turn MRR: {best['values']} -> R@10 {best['turn']['R@10']:.3f}, MRR {best['turn']['MRR']:.3f}")

    report.metrics["questions"] = [
        {**q, "ov": o, **({f"bm25_{shape}": bm25_out[shape][n] for shape in bm25_out} if bm25_out is not None else {})}
        for n, (q, o) in enumerate(zip(questions, ov_out))
    ]
    report.targets.append(common.Target("LoCoMo turn R@10", 100 * ov_metrics["all"]["turn"]["R@10"], 100 * TARGET_TURN_R10, unit="%", higher_is_better=True))
    report.targets.append(common.Target("LoCoMo turn MRR (x100)", 100 * ov_metrics["all"]["turn"]["MRR"], 100 * TARGET_TURN_MRR, unit="", higher_is_better=True))
    if info["non_message_hits_in_top10"]:
        report.notes.append(f"{info['non_message_hits_in_top10']} non-message hits (session summaries) took top-10 places across all questions")
    if info["limit10_mismatches"]:
        report.notes.append(f"limit 10 and the top 10 of limit {args.depth} differed on {info['limit10_mismatches']} of {info['limit10_checked']} questions")
    if args.quick:
        report.notes.append("--quick: one conversation, at most 60 questions; not comparable with the reference figures")
    report.finish(args.out)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

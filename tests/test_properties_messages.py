"""Properties of message parsing and redaction, checked with hypothesis.

Whatever JSON a host sends, in any accepted shape or none, ``load_messages`` and
``normalise_messages`` either return messages that are strict JSON (no NaN or Infinity) and
valid UTF-8, or raise an OvError (exit code and hint included): never another exception,
which the CLI would report as an internal error. Stored files, even hand-edited ones, read
back as strict JSON. Redaction never raises and is idempotent.
"""

from __future__ import annotations

import json

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ov.errors import OvError
from ov.redact.engine import redact, redact_value
from ov.sessions.messages import PART_TYPES, ROLES, TOOL_STATUSES, load_messages, normalise_messages, parse_messages

SETTINGS = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])

# Every code point, lone surrogates included: JSON's "\ud800" escape produces one.
any_text = st.text(st.characters(codec=None, exclude_categories=()), max_size=40)
plain_text = st.text(max_size=40)
numbers = st.one_of(st.integers(), st.floats(allow_nan=True, allow_infinity=True))
scalars = st.one_of(st.none(), st.booleans(), numbers, any_text)
json_values = st.recursive(scalars, lambda inner: st.one_of(st.lists(inner, max_size=4), st.dictionaries(any_text, inner, max_size=4)), max_leaves=20)
# Sometimes right, sometimes not: the shapes must hold against near misses too.
roles = st.one_of(st.sampled_from([*ROLES, "developer", "function"]), any_text)
ids = st.one_of(st.none(), plain_text, any_text, st.integers())
tool_ids = st.one_of(st.none(), plain_text, st.integers(), json_values)


def maybe(strategy):
    return st.one_of(st.none(), strategy)


def message(**fields) -> st.SearchStrategy[dict]:
    """A message with these fields (each drawn; a None draw leaves the field out)."""
    return st.fixed_dictionaries({}, optional=fields).map(lambda d: {k: v for k, v in d.items() if v is not None})


ov_parts = st.lists(
    st.one_of(
        st.fixed_dictionaries({"type": st.just("text"), "text": st.one_of(plain_text, any_text, json_values)}),
        st.fixed_dictionaries(
            {"type": st.just("tool"), "tool_name": st.one_of(plain_text, json_values)},
            optional={"tool_status": st.sampled_from([*TOOL_STATUSES, "done"]), "tool_input": json_values, "tool_output": json_values, "tool_id": tool_ids, "duration_ms": numbers},
        ),
        st.fixed_dictionaries({"type": st.just("context"), "uri": st.one_of(st.just("viking://resources/a"), any_text)}, optional={"abstract": any_text}),
        st.fixed_dictionaries({"type": plain_text}),
        json_values,
    ),
    max_size=4,
)
blocks = st.lists(
    st.one_of(
        st.fixed_dictionaries({"type": st.sampled_from(["text", "input_text", "output_text"]), "text": st.one_of(plain_text, any_text)}),
        st.fixed_dictionaries({"type": st.sampled_from(["tool_use", "server_tool_use", "mcp_tool_use"]), "id": tool_ids, "name": st.one_of(plain_text, json_values), "input": json_values}),
        st.fixed_dictionaries(
            {"type": st.sampled_from(["tool_result", "web_search_tool_result"]), "tool_use_id": tool_ids},
            optional={"content": st.one_of(any_text, json_values, st.lists(st.fixed_dictionaries({"type": st.just("text"), "text": any_text}), max_size=3)), "is_error": st.one_of(st.booleans(), json_values)},
        ),
        st.fixed_dictionaries({"type": st.sampled_from(["image", "image_url", "input_image", "thinking", "redacted_thinking", "document"])}, optional={"source": json_values}),
        st.fixed_dictionaries({"type": any_text}),
        json_values,
    ),
    max_size=4,
)
openai_calls = st.lists(
    st.one_of(
        st.fixed_dictionaries({"id": tool_ids, "type": st.just("function"), "function": st.fixed_dictionaries({"name": plain_text, "arguments": st.one_of(json_values.map(json.dumps), any_text, json_values)})}),
        st.fixed_dictionaries({"id": tool_ids, "type": st.just("custom"), "custom": st.fixed_dictionaries({"name": plain_text, "input": any_text})}),
        json_values,
    ),
    max_size=3,
)
# Well-formed messages of every shape, so that the accepting path is exercised as much as the refusing one.
clean_json = st.recursive(
    st.one_of(st.none(), st.booleans(), st.integers(), st.floats(allow_nan=False, allow_infinity=False), plain_text),
    lambda inner: st.one_of(st.lists(inner, max_size=3), st.dictionaries(plain_text, inner, max_size=3)),
    max_leaves=10,
)
call_ids = st.text(st.characters(min_codepoint=48, max_codepoint=122), min_size=1, max_size=8)
good_blocks = st.lists(
    st.one_of(
        st.fixed_dictionaries({"type": st.just("text"), "text": plain_text}),
        st.fixed_dictionaries({"type": st.just("tool_use"), "id": call_ids, "name": st.sampled_from(["Bash", "Read"]), "input": clean_json}),
        st.fixed_dictionaries({"type": st.just("tool_result"), "tool_use_id": call_ids, "content": st.one_of(plain_text, st.lists(st.fixed_dictionaries({"type": st.just("text"), "text": plain_text}), max_size=2)), "is_error": st.booleans()}),
        st.fixed_dictionaries({"type": st.sampled_from(["image", "thinking", "input_image", "document"])}),
    ),
    min_size=1,
    max_size=4,
)
well_formed = st.one_of(
    st.fixed_dictionaries({"role": st.sampled_from(ROLES), "text": plain_text}, optional={"id": call_ids, "created_at": st.just("2026-05-01T10:00:00Z")}),
    st.fixed_dictionaries({"role": st.sampled_from(ROLES), "parts": st.lists(st.fixed_dictionaries({"type": st.just("tool"), "tool_name": st.just("x"), "tool_input": clean_json, "tool_output": clean_json}), min_size=1, max_size=2)}),
    st.fixed_dictionaries({"role": st.sampled_from(["user", "assistant"]), "content": st.one_of(plain_text, good_blocks)}),
    st.fixed_dictionaries({"role": st.just("assistant"), "content": st.none(), "tool_calls": st.lists(st.fixed_dictionaries({"id": call_ids, "type": st.just("function"), "function": st.fixed_dictionaries({"name": st.just("f"), "arguments": st.one_of(clean_json.map(json.dumps), plain_text)})}), min_size=1, max_size=2)}),
    st.fixed_dictionaries({"role": st.just("tool"), "tool_call_id": call_ids, "content": plain_text}),
)
# Right in shape, wrong in value at times: NaN, Infinity, lone surrogates.
not_json = st.sampled_from([float("nan"), float("inf"), float("-inf")])
surrogates = st.sampled_from(["\ud800", "a\udfffb", "\udc80\ud83d"])
dirty_text = st.one_of(any_text, surrogates)
dirty_json = st.one_of(json_values, not_json, surrogates, st.dictionaries(plain_text, st.one_of(not_json, surrogates), min_size=1, max_size=2))
dirty_values = st.one_of(
    st.fixed_dictionaries({"role": st.sampled_from(ROLES), "text": dirty_text}),
    st.fixed_dictionaries({"role": st.sampled_from(ROLES), "parts": st.lists(st.fixed_dictionaries({"type": st.just("tool"), "tool_name": st.just("x"), "tool_input": dirty_json}), min_size=1, max_size=2)}),
    st.fixed_dictionaries({"role": st.just("assistant"), "content": st.lists(st.fixed_dictionaries({"type": st.just("tool_use"), "id": call_ids, "name": st.just("x"), "input": dirty_json}), min_size=1, max_size=2)}),
    st.fixed_dictionaries({"role": st.just("user"), "text": plain_text, "id": dirty_text}),
)
any_message = st.one_of(
    well_formed,
    dirty_values,
    message(role=roles, text=st.one_of(plain_text, any_text), id=ids, created_at=maybe(st.one_of(st.just("2026-05-01T10:00:00Z"), any_text, json_values)), peer=maybe(any_text)),
    message(role=roles, parts=ov_parts, id=ids),
    message(role=roles, content=st.one_of(plain_text, any_text, blocks), id=ids),
    message(role=st.just("assistant"), content=maybe(st.one_of(st.just(""), plain_text)), tool_calls=openai_calls, function_call=maybe(json_values)),
    message(role=st.sampled_from(["tool", "function"]), tool_call_id=tool_ids, name=maybe(plain_text), content=st.one_of(plain_text, blocks, json_values)),
    json_values,
)


def check_stored_form(messages: list[dict]) -> None:
    for m in messages:
        data = json.dumps(m, allow_nan=False, ensure_ascii=False).encode("utf-8")  # strict JSON, valid UTF-8
        assert json.loads(data) == m
        assert isinstance(m["id"], str) and m["role"] in ROLES and m["parts"]
        for part in m["parts"]:
            assert part["type"] in PART_TYPES
            if part["type"] == "tool":
                assert isinstance(part["tool_name"], str) and part["tool_name"] and part["tool_status"] in TOOL_STATUSES
            elif part["type"] == "text":
                assert isinstance(part["text"], str)


def normalised_or_refused(raw: list) -> list[dict] | None:
    try:
        return normalise_messages(raw)
    except OvError as exc:
        assert exc.exit_code == 2 and exc.message  # bad input, said as such
        return None


@SETTINGS
@given(st.one_of(any_message.map(lambda m: [m]), st.lists(any_message, max_size=4)))
def test_any_message_is_normalised_or_refused(raw):
    messages = normalised_or_refused(raw)
    if messages is not None:
        check_stored_form(messages)
        redacted, _ = redact_value([m["parts"] for m in messages])
        json.dumps(redacted, allow_nan=False, ensure_ascii=False).encode("utf-8")


@SETTINGS
@given(st.lists(any_message, max_size=4), st.booleans(), st.booleans())
def test_any_message_text_is_loaded_or_refused(raw, as_lines, ascii_only):
    # As a host sends it: an array, or JSON lines; NaN and Infinity written the way Python writes them.
    if as_lines:
        text = "\n".join(json.dumps(m, ensure_ascii=ascii_only) for m in raw)
    else:
        text = json.dumps(raw, ensure_ascii=ascii_only)
    try:
        loaded = load_messages(text)
    except OvError as exc:
        assert exc.exit_code == 2
        return
    messages = normalised_or_refused(loaded)
    if messages is not None:
        check_stored_form(messages)


@SETTINGS
@given(st.one_of(any_text, st.text(alphabet='[]{}",:0123456789aeflnrstuNIn \n\\', max_size=60)))
def test_any_text_is_loaded_or_refused(text):
    try:
        load_messages(text)
    except OvError as exc:
        assert exc.exit_code == 2


@settings(max_examples=20, deadline=None)
@given(st.integers(min_value=60, max_value=20_000), st.sampled_from(["[", '{"a":']))
def test_deep_nesting_is_refused(depth, opener):
    closer = "]" if opener == "[" else "}"
    inner = opener * depth + ("1" if opener != "[" else "") + closer * depth
    text = json.dumps([{"role": "user", "parts": [{"type": "tool", "tool_name": "x", "tool_input": None}]}]).replace("null", inner)
    try:
        messages = normalise_messages(load_messages(text))
    except OvError as exc:
        assert exc.exit_code == 2
    else:
        assert depth <= 64, "nesting beyond the bound was accepted"
        check_stored_form(messages)


@SETTINGS
@given(st.binary(max_size=200) | st.lists(st.one_of(any_message, st.binary(max_size=30)), max_size=5).map(
    lambda items: b"\n".join(i if isinstance(i, bytes) else json.dumps(i).encode("utf-8", "surrogatepass") for i in items) + b"\n"
))
def test_stored_files_read_back_as_strict_json(data):
    for m in parse_messages(data):
        assert isinstance(m, dict)
        json.dumps(m, allow_nan=False, ensure_ascii=False).encode("utf-8")


# Pieces that make the rules fire, so that redacted text meets the rules again.
fragments = st.sampled_from([
    "sk-", "sk-ant-", "AKIA", "ghp_", "glpat-", "xoxb-", "AIza", "GOCSPX-", "SG.", "key-", ":AA", "eyJ", "hf_", "npm_",
    "password", "Password: ", "password is ", "my password is '", "token=", "api_key: ", '"secret": "', "--password ",
    "--token=", "-p", "mysql -u root -p", "sshpass -p ", "Bearer ", "Authorization: Basic ", "https://u:", "@host/",
    "-----BEGIN RSA PRIVATE KEY-----\n", "-----END RSA PRIVATE KEY-----", "[REDACTED:", "]", " ", "\n", "'", '"', "`",
    "=", ":", "a1B2c3D4e5F6g7H8i9J0", "hunter2", "0123456789abcdef0123456789abcdef", "-us12", "Q~", "&sig=", "$VAR",
])
secretish = st.lists(st.one_of(fragments, st.text(max_size=8)), max_size=12).map("".join)


@SETTINGS
@given(st.one_of(secretish, any_text))
def test_redaction_is_idempotent_and_never_raises(text):
    once, _ = redact(text)
    assert redact(once) == (once, 0)


@SETTINGS
@given(st.recursive(st.one_of(scalars, secretish), lambda inner: st.one_of(st.lists(inner, max_size=3), st.dictionaries(st.one_of(secretish, st.sampled_from(["password", "name", "value", "token"])), inner, max_size=3)), max_leaves=12))
def test_redact_value_is_idempotent_and_never_raises(value):
    once, _ = redact_value(value)
    assert redact_value(once) == (once, 0)

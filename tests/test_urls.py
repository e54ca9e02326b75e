"""The user info of a URL (ov/urls.py): one definition for the config, add-resource and redaction."""

from __future__ import annotations

import pytest

from ov.urls import has_userinfo, replace_userinfo, without_userinfo


@pytest.mark.parametrize(
    ("url", "bare"),
    [
        ("http://bob:pw@h:8080/v1", "http://h:8080/v1"),
        ("https://bob@h/x", "https://h/x"),
        ("http://bob:p@ss@h/x?q=1", "http://h/x?q=1"),  # the host's last `@` ends it
        ("bob:pw@h:8080", "h:8080"),  # no scheme: the authority opens the URL
        (" http://bob:pw@h/", " http://h/"),
    ],
)
def test_a_user_and_password_before_the_host_are_found_and_taken_out(url: str, bare: str):
    assert has_userinfo(url) and without_userinfo(url) == bare and not has_userinfo(bare)


@pytest.mark.parametrize("url", ["http://h/v1?name=a@b", "http://h#a@b", "https://h/a@b", "http://[::1]:80/", "https://h/?next=http://bob:pw@x/"])
def test_an_at_sign_past_the_host_names_no_user(url: str):
    assert not has_userinfo(url) and without_userinfo(url) == url


def test_every_url_in_a_text_loses_its_user_info_and_nothing_else():
    text = "from http://bob:p@ss@h/x and ftp://anon@f.example, mail bob@example.com, see https://h/a@b"
    assert replace_userinfo(text, "[X]") == "from http://[X]@h/x and ftp://[X]@f.example, mail bob@example.com, see https://h/a@b"


def test_a_hash_in_a_password_is_taken_out_with_it_from_a_text():
    # Unescaped, `#` would open the fragment; in a message it is more likely half a password.
    text = "cannot reach redis://:p@ss#w0rd9@cache:6379/0 or postgres://u:Xk9!vR2#pLq7@db:5432/x#top"
    assert replace_userinfo(text, "[X]") == "cannot reach redis://[X]@cache:6379/0 or postgres://[X]@db:5432/x#top"

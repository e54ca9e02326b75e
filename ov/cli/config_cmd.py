"""``ov config``: show, get, set and unset configuration values."""

from __future__ import annotations

from typing import Annotated

import typer

from ov.cli.output import emit, plain, warn
from ov.cli.runtime import OvCommand, OvGroup, runtime
from ov.config import LoadedConfig, config_keys, get_value, set_value, unset_value

app = typer.Typer(cls=OvGroup, help="Show and change settings in $OV_HOME/config.yaml.", no_args_is_help=True)

KeyArg = Annotated[str, typer.Argument(help="A dotted key, e.g. store.lock_timeout.", show_default=False)]


@app.command("show", cls=OvCommand)
def config_show() -> None:
    """Show the effective configuration and where the identity comes from."""
    rt = runtime()
    loaded = rt.loaded_config
    identity = rt.identity
    payload = {
        "path": str(loaded.path),
        "exists": loaded.exists,
        "config": loaded.config.as_dict(),
        "identity": {
            field: {"value": getattr(identity, field), "source": identity.source_of(field)}
            for field in ("account", "user", "peer")
        },
        "warnings": list(loaded.warnings),
        "invalid": [value.as_dict() for value in loaded.invalid],
    }

    def human() -> None:
        plain(f"# {loaded.path}" + ("" if loaded.exists else " (not created yet; defaults shown)"))
        for key in config_keys():
            plain(f"{key} = {_text(get_value(loaded.config, key))}")
        plain("")
        plain("# identity in use")
        for field, info in payload["identity"].items():
            plain(f"{field} = {_text(info['value'])}  ({info['source']})")

    emit(payload, human)


@app.command("get", cls=OvCommand)
def config_get(key: KeyArg) -> None:
    """Print one configuration value."""
    value = get_value(runtime().loaded_config.config, key)
    emit({"key": key, "value": value}, lambda: plain(_text(value)))


# ignore_unknown_options: a negative number such as `-3` is a value here, not an option.
@app.command("set", cls=OvCommand, context_settings={"ignore_unknown_options": True})
def config_set(
    key: KeyArg,
    value: Annotated[str, typer.Argument(help="The new value (YAML scalar: 5, true, null, text).", show_default=False)],
) -> None:
    """Set one configuration value; the file is validated before it is written.

    Values already in the file that ov cannot use (say, one an older ov accepted) do not stop it:
    they are named after the change, each with how to fix it.
    """
    loaded = set_value(runtime().home, key, value)
    _still_wrong(loaded)
    new = get_value(loaded.config, key)
    emit({"key": key, "value": new}, lambda: plain(f"{key} = {_text(new)}"))


@app.command("unset", cls=OvCommand)
def config_unset(key: KeyArg) -> None:
    """Take one value out of the file, so that its default applies (a key ov does not know too).

    A section (`hooks`) takes every value in it out: each is named.
    """
    loaded, removed = unset_value(runtime().home, key)
    _still_wrong(loaded)
    if key in config_keys():
        default = get_value(loaded.config, key)
        emit({"key": key, "value": default}, lambda: plain(f"{key} = {_text(default)} (default)"))
    elif removed and removed != (key,):
        emit({"key": key, "value": None, "removed": list(removed)}, lambda: plain(f"{key} removed: " + ", ".join(removed) + " (each back to its default)"))
    else:
        emit({"key": key, "value": None}, lambda: plain(f"{key} removed"))


def _still_wrong(loaded: LoadedConfig) -> None:
    for warning in loaded.warnings:
        warn(warning)


def _text(value) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)

"""The checks a config value goes through beyond its type: an id, the name of an environment
variable (never the key it holds), a URL without credentials, a bounded number, a name in any case.

Each is an annotation that speaks pydantic's ``__get_pydantic_core_schema__`` protocol, so that
pydantic is imported only when a config file is validated (:mod:`ov.config.loading`), never when
the schema is read.
"""

from dataclasses import dataclass
from typing import Any

from ov.errors import InvalidId
from ov.identity import validate_id
from ov.regex import LazyPattern
from ov.urls import has_userinfo


@dataclass(frozen=True)
class IdCheck:
    """Annotation: the value must be a valid account/user/peer id.

    It speaks pydantic's ``__get_pydantic_core_schema__`` protocol, so pydantic
    is only imported when a config is actually validated.
    """

    kind: str

    def __get_pydantic_core_schema__(self, source: Any, handler: Any) -> Any:
        from pydantic_core import core_schema

        def check(value: str | None) -> str | None:
            if value is None:
                return None
            try:
                return validate_id(value, self.kind)
            except InvalidId as exc:
                raise ValueError(exc.message) from None

        return core_schema.no_info_after_validator_function(check, handler(source))


ENV_NAME = LazyPattern(r"[A-Za-z_][A-Za-z0-9_]*")


@dataclass(frozen=True)
class EnvName:
    """Annotation: the name of an environment variable (``api_key_env``), never the key itself.

    A key pasted here would be written to config.yaml and printed by `ov config show` and
    `ov doctor`; the message does not repeat the value, which may be that key.
    """

    def __get_pydantic_core_schema__(self, source: Any, handler: Any) -> Any:
        from pydantic_core import core_schema

        def check(value: str | None) -> str | None:
            if value is None or ENV_NAME.fullmatch(value):
                return value
            raise ValueError(
                "must be the NAME of the environment variable that holds the API key (letters, digits, _), "
                "not the key: export MY_KEY=... and set this to MY_KEY"
            )

        return core_schema.no_info_after_validator_function(check, handler(source))


@dataclass(frozen=True)
class BaseUrl:
    """Annotation: an ``api_base`` without a user name or password in it (``https://user:pw@host``):
    ov sends no basic auth, and would show the password in every error that names the server."""

    def __get_pydantic_core_schema__(self, source: Any, handler: Any) -> Any:
        from pydantic_core import core_schema

        def check(value: str | None) -> str | None:
            if value is not None and has_userinfo(value):
                raise ValueError("must not hold a user name or password (user:password@): put the key in an environment variable named by api_key_env")
            return value

        return core_schema.no_info_after_validator_function(check, handler(source))


# The largest value a count, a size or a number of seconds may take. Larger ones are accepted by
# nothing ov calls them with: a read of 1e20 bytes overflows an index, a deadline of 1e300 s a
# timestamp (every hook failed, silently, as hooks fail open).
MOST = 1_000_000_000
MOST_BYTES = 2**31  # a read asks for its size up front


def _number(limit: float) -> str:
    """A limit in full (2147483648), never the 2.14748e+09 of ``:g`` that hides the real bound."""
    return str(int(limit)) if float(limit).is_integer() else str(limit)


@dataclass(frozen=True)
class Positive:
    """Annotation: a finite number above zero and at most ``most``, and never a YAML boolean
    (``true`` is not 1 here). ``least=0`` lets 0 through too."""

    most: float = MOST
    least: float | None = None

    def __get_pydantic_core_schema__(self, source: Any, handler: Any) -> Any:
        import math

        from pydantic_core import core_schema

        def no_bool(value: Any) -> Any:
            if isinstance(value, bool):
                raise ValueError("expected a number, not true/false")
            return value

        def bounded(value: float | None) -> float | None:
            if value is None:  # an optional value left unset
                return value
            if not math.isfinite(value):
                raise ValueError("must be a finite number")
            if self.least is None and value <= 0:
                raise ValueError("must be greater than 0")
            if self.least is not None and value < self.least:
                raise ValueError(f"must be at least {_number(self.least)}")
            if value > self.most:
                raise ValueError(f"must be at most {_number(self.most)}")
            return value

        inner = core_schema.no_info_after_validator_function(bounded, handler(source))
        return core_schema.no_info_before_validator_function(no_bool, inner)
class Lowercase:
    """Annotation: a name given in any case is read in lower case (tantivy took "English" too)."""

    def __get_pydantic_core_schema__(self, source: Any, handler: Any) -> Any:
        from pydantic_core import core_schema

        return core_schema.no_info_before_validator_function(lambda value: value.lower() if isinstance(value, str) else value, handler(source))

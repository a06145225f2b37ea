"""Bearer tokens: `mcp-planner token USER` makes one for a quick start; `--token` sends one.

The command signs with the server's own AUTH_JWT_SECRET (read from the environment or `.env`,
as the server reads it) and holds the limits of the server's check (`common.served.tokens`), so
a token it prints is one the server takes. Only the token goes to stdout:
`TOKEN=$(mcp-planner token alice --role ops)`. An identity provider (AUTH_JWKS_URL) issues its
own tokens; the command refuses to sign for one. PyJWT and the settings are imported when the
command runs: `--help` answers at once.
"""

from __future__ import annotations

import asyncio
import re
import sys
import time
from typing import TYPE_CHECKING, Annotated, Any

import typer

from strategies.cli.exits import EXIT_USAGE, CliProblem, one_line
from strategies.cli.render import problem

if TYPE_CHECKING:
    from common.settings import Settings

TokenOption = Annotated[
    str | None,
    typer.Option(
        "--token",
        metavar="TOKEN",
        help="With --server: the bearer token to send (default MCP_PLANNER_TOKEN; an API key "
        "goes in MCP_PLANNER_API_KEY); never printed.",
        show_default=False,
    ),
]
"""The `--token` option of the commands that take `--server`."""

DEFAULT_TTL = "1h"
"""How long a token lives when --ttl is not given."""

MAX_TTL_S = 30 * 24 * 3600
"""Longest --ttl: a token that lives longer is a standing password (scripts take an API key)."""

UNITS = {"s": 1, "m": 60, "h": 3600, "d": 86400}
"""The --ttl units: seconds, minutes, hours, days."""

TTL = re.compile(r"(\d{1,9})([smhd]?)")
"""A --ttl value: a whole number, then an optional unit (none: seconds)."""


def ttl_seconds(value: str) -> int:
    """`--ttl` in seconds (`90s`, `15m`, `8h`, `7d`, `3600`); one line when it is not one."""
    found = TTL.fullmatch(value.strip().lower())
    seconds = int(found.group(1)) * UNITS[found.group(2) or "s"] if found else 0
    if seconds <= 0:
        raise CliProblem(
            f"--ttl {value!r} is not a duration: give a whole number and a unit, e.g. 90s, "
            "15m, 8h or 7d."
        )
    if seconds > MAX_TTL_S:
        raise CliProblem(
            f"--ttl {value!r} is over 30 days: a token that lives that long is a standing "
            "password; give scripts an API key (AUTH_API_KEYS) instead."
        )
    return seconds


def checked_subject(sub: str, settings: Settings) -> str:
    """The token's `sub` as the server will accept it; one line when it will not."""
    from common.served.tokens import MAX_IDENTITY_CHARS, key_names

    if not sub.strip():
        raise CliProblem(
            "The user is empty: name who the token is for, e.g. mcp-planner token alice."
        )
    if len(sub) > MAX_IDENTITY_CHARS or not sub.isprintable():
        raise CliProblem(
            f"The user is over {MAX_IDENTITY_CHARS} characters or holds control characters, "
            "which the server refuses: use a shorter, printable name."
        )
    if sub in key_names(settings):
        raise CliProblem(
            f"{sub!r} is the name of one of the server's API keys (AUTH_API_KEYS), which no "
            "token may take: pick another user name."
        )
    return sub


def checked_roles(roles: list[str]) -> list[str]:
    """The roles as the server will accept them, each once and in order; one line otherwise."""
    from common.served.tokens import MAX_ROLE_CHARS, MAX_ROLES

    kept = list(dict.fromkeys(roles))
    for role in kept:
        if not role.strip() or len(role) > MAX_ROLE_CHARS or not role.isprintable():
            raise CliProblem(
                f"--role {role!r} is not a role the server accepts: give a printable name of "
                f"1 to {MAX_ROLE_CHARS} characters."
            )
    if len(kept) > MAX_ROLES:
        raise CliProblem(f"{len(kept)} roles given: the server accepts at most {MAX_ROLES}.")
    return kept


def signing_secret(settings: Settings) -> str:
    """The HS256 secret the server checks tokens with; one line when it has none."""
    if settings.auth_jwks_url:
        raise CliProblem(
            "AUTH_JWKS_URL is set: the server takes your identity provider's tokens, which "
            "mcp-planner token cannot make (it signs only with an HS256 AUTH_JWT_SECRET); get "
            "one from the provider."
        )
    if settings.auth_jwt_secret is None:
        raise CliProblem(
            "No AUTH_JWT_SECRET is set here: mcp-planner token signs only with the server's "
            "HS256 secret, so set the same AUTH_JWT_SECRET in this environment or .env (with an "
            "identity provider, get tokens from the provider)."
        )
    return settings.auth_jwt_secret.get_secret_value()


def signed(sub: str, roles: list[str], ttl: str, settings: Settings, now: float) -> str:
    """The token for `sub` holding `roles`, valid `ttl` from `now`, as the server checks it."""
    import jwt

    from common.served.tokens import MAX_TOKEN_BYTES, Unauthenticated, principal_of_token

    secret = signing_secret(settings)
    claims: dict[str, Any] = {
        "sub": checked_subject(sub, settings),
        "roles": checked_roles(roles),
        "iat": int(now),
        "exp": int(now) + ttl_seconds(ttl),
    }
    if settings.auth_jwt_issuer:
        claims["iss"] = settings.auth_jwt_issuer
    if settings.auth_jwt_audience:
        claims["aud"] = settings.auth_jwt_audience
    token = jwt.encode(claims, secret, "HS256")
    if len(token.encode()) > MAX_TOKEN_BYTES:
        raise CliProblem(
            f"The token would be over {MAX_TOKEN_BYTES:,} bytes, which the server refuses: "
            "give fewer or shorter roles, or a shorter user name."
        )
    # The server's own check is the last word: a token it would refuse is never printed.
    try:
        asyncio.run(principal_of_token(token, settings))
    except Unauthenticated as exc:
        raise CliProblem(f"The server would refuse this token: {exc}") from None
    return token


def token_cmd(
    sub: Annotated[str, typer.Argument(metavar="USER", help="Who the token names (its sub).")],
    role: Annotated[
        list[str] | None,
        typer.Option("--role", metavar="ROLE", help="A role the token grants; repeat for more."),
    ] = None,
    ttl: Annotated[
        str,
        typer.Option("--ttl", metavar="DURATION", help="How long it is valid: 90s, 15m, 8h, 7d."),
    ] = DEFAULT_TTL,
) -> None:
    """Print a bearer token for a server with AUTH_JWT_SECRET: only the token, on stdout.

    It signs with AUTH_JWT_SECRET from this environment or .env (run it where the server's
    settings are), adding AUTH_JWT_ISSUER and AUTH_JWT_AUDIENCE when set. A server on an
    identity provider (AUTH_JWKS_URL) takes the provider's tokens only. For an API key's
    AUTH_API_KEYS entry: python -m common.served.tokens NAME ROLE+ROLE < keyfile.

    Example: export MCP_PLANNER_TOKEN=$(mcp-planner token alice --role approver --ttl 8h)
    """
    from common.settings import ConfigError, get_settings

    try:
        token = signed(sub, role or [], ttl, get_settings(), time.time())
    except (CliProblem, ConfigError) as exc:
        problem(one_line(exc))
        raise typer.Exit(EXIT_USAGE) from None
    sys.stdout.write(token + "\n")

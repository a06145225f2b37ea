"""Who a served client is: a bearer JWT (PyJWT) or a static API key, checked against the settings.

Tokens are verified by PyJWT (signature, expiry, issuer, audience); nothing here parses a token by
hand. HS256 with AUTH_JWT_SECRET suits small setups and tests; an identity provider's RS256 keys
come from AUTH_JWKS_URL through `jwt.PyJWKClient`, whose fetch is blocking and so runs in a worker
thread. Static API keys (AUTH_API_KEYS) are kept as SHA-256 digests only and compared in
constant time (`hmac.compare_digest`), so the settings never hold a usable key.
"""

from __future__ import annotations

import asyncio
import hashlib
import hmac
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

import jwt

from common.settings import Settings

LEEWAY_S = 30
"""Clock skew tolerated on `exp` / `nbf` between the identity provider and this server."""


MAX_IDENTITY_CHARS = 256
"""Longest `sub` taken as an identity: it is stamped on every thread, run and record."""
MAX_TOKEN_BYTES = 8192
"""Longest token read at all: a larger one is refused before it is decoded (a 1.2 MB token
of 100,000 roles cost every request seconds)."""
MAX_ROLES = 64
"""Most roles a token may grant."""
MAX_ROLE_CHARS = 64
"""Longest role name."""


class Unauthenticated(Exception):
    """A client that could not be identified; the message is one sentence for it (a 401)."""


@dataclass(frozen=True)
class Principal:
    """An authenticated caller: who it is and the roles its credential grants."""

    identity: str
    """The token's `sub`, or the API key's name."""
    roles: tuple[str, ...] = ()
    """The token's `roles` claim, or the API key's roles."""


def hash_key(key: str) -> str:
    """The SHA-256 hex digest an AUTH_API_KEYS entry keeps for `key`."""
    return hashlib.sha256(key.encode()).hexdigest()


def api_key_entry(name: str, roles: tuple[str, ...], key: str) -> str:
    """The AUTH_API_KEYS entry for `key`: `name:role1+role2:sha256hex`."""
    return f"{name}:{'+'.join(roles)}:{hash_key(key)}"


def principal_of_key(key: str, settings: Settings) -> Principal:
    """The caller an API key names, or Unauthenticated."""
    digest = hash_key(key)
    found: Principal | None = None
    for entry in settings.auth_api_keys:
        name, roles, kept = entry.split(":")
        # Every entry is compared, so the time taken does not say which one matched.
        if hmac.compare_digest(digest, kept) and found is None:
            found = Principal(name, tuple(r for r in roles.split("+") if r))
    if found is None:
        raise Unauthenticated("The API key is not known to this server: ask its operator for one.")
    return found


async def principal_of_token(token: str, settings: Settings) -> Principal:
    """The caller a bearer JWT names, verified against the settings, or Unauthenticated."""
    if len(token.encode("utf-8", "replace")) > MAX_TOKEN_BYTES:
        raise Unauthenticated(
            f"The token is over {MAX_TOKEN_BYTES:,} bytes: send one that names you and a few roles."
        )
    try:
        if settings.auth_jwks_url:
            key: Any = await asyncio.to_thread(_signing_key, settings.auth_jwks_url, token)
            algorithms = ["RS256"]
        elif settings.auth_jwt_secret is not None:
            key, algorithms = settings.auth_jwt_secret.get_secret_value(), ["HS256"]
        else:
            raise Unauthenticated("This server takes API keys only: send yours as x-api-key.")
        claims = jwt.decode(
            token,
            key,
            algorithms=algorithms,
            audience=settings.auth_jwt_audience,
            issuer=settings.auth_jwt_issuer,
            leeway=LEEWAY_S,
            options={"require": ["sub", "exp"]},
        )
    except jwt.ExpiredSignatureError:
        raise Unauthenticated("The token has expired: sign in again for a new one.") from None
    except (jwt.InvalidAudienceError, jwt.InvalidIssuerError):
        raise Unauthenticated(
            "The token was issued for another service (issuer or audience): use one issued "
            "for this server."
        ) from None
    except jwt.PyJWKClientError:
        raise Unauthenticated(
            "The token's signing key is not among the identity provider's keys: sign in again."
        ) from None
    except jwt.PyJWTError:
        raise Unauthenticated(
            "The token is not valid (malformed, unsigned or forged): send a token this "
            "server's identity provider signed."
        ) from None
    who = _principal(claims)
    if who.identity in key_names(settings):
        # Keys and tokens name callers from one space: a token may not become a key's caller.
        raise Unauthenticated(
            f"The token names {who.identity!r}, which is the name of an API key of this server: "
            "a token's sub may not be a key's name; ask the operator to rename one of them."
        )
    return who


def key_names(settings: Settings) -> frozenset[str]:
    """The names of the server's API keys (AUTH_API_KEYS), which no token's `sub` may take."""
    return frozenset(entry.split(":", 1)[0] for entry in settings.auth_api_keys)


def _principal(claims: dict[str, Any]) -> Principal:
    """The caller the verified claims name; a `sub` or `roles` of the wrong shape is refused."""
    subject, roles = claims.get("sub"), claims.get("roles", [])
    if not (isinstance(subject, str) and subject.strip()):
        raise Unauthenticated("The token names no one (its sub claim is empty).")
    if len(subject) > MAX_IDENTITY_CHARS or not subject.isprintable():
        raise Unauthenticated(
            f"The token's sub claim is over {MAX_IDENTITY_CHARS} characters or holds control "
            "characters: use a shorter, printable identity."
        )
    if not (isinstance(roles, list) and all(isinstance(r, str) for r in roles)):
        raise Unauthenticated("The token's roles claim is not a list of strings.")
    if len(roles) > MAX_ROLES or any(len(r) > MAX_ROLE_CHARS or not r.isprintable() for r in roles):
        raise Unauthenticated(
            f"The token's roles claim holds over {MAX_ROLES} roles, or a role over "
            f"{MAX_ROLE_CHARS} characters or with control characters."
        )
    return Principal(subject, tuple(roles))


@lru_cache(maxsize=4)
def _jwks(url: str) -> jwt.PyJWKClient:
    """One key client per JWKS URL: it caches the provider's keys between requests."""
    return jwt.PyJWKClient(url, cache_keys=True, lifespan=300)


def _signing_key(url: str, token: str) -> Any:
    """The provider's public key that signed `token` (blocking: fetches the JWKS when needed)."""
    return _jwks(url).get_signing_key_from_jwt(token).key


def main(argv: list[str] | None = None) -> int:
    """`python -m common.served.tokens NAME [ROLE+ROLE]`: the AUTH_API_KEYS entry of stdin's key."""
    import sys

    args = sys.argv[1:] if argv is None else argv
    if not 1 <= len(args) <= 2:
        print("usage: python -m common.served.tokens NAME [ROLE+ROLE] < keyfile", file=sys.stderr)
        return 2
    key = sys.stdin.readline().strip()
    if not key:
        print(
            "No key on standard input: pipe the key in (it is never an argument).", file=sys.stderr
        )
        return 2
    roles = tuple(r for r in (args[1] if len(args) > 1 else "").split("+") if r)
    print(api_key_entry(args[0], roles, key))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

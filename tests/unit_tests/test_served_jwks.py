"""Tokens from an identity provider (AUTH_JWKS_URL, RS256), attacked as an outsider would."""

from __future__ import annotations

import asyncio
import base64
import hashlib
import hmac
import json
import time
from collections.abc import Iterator
from typing import Any

import jwt
import pytest
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import rsa
from jwt.algorithms import RSAAlgorithm
from werkzeug import Request, Response

from common.served.tokens import Principal, Unauthenticated, principal_of_token
from common.settings import Settings
from tests.http_stub import StubServer, json_response

ISSUER, AUDIENCE = "https://idp.test", "planner"
KEY = rsa.generate_private_key(public_exponent=65537, key_size=2048)
OTHER = rsa.generate_private_key(public_exponent=65537, key_size=2048)
PUBLIC_PEM = KEY.public_key().public_bytes(
    serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo
)


def _jwks(_: Request) -> Response:
    """The provider's one public key."""
    jwk = json.loads(RSAAlgorithm.to_jwk(KEY.public_key()))
    return json_response({"keys": [{**jwk, "kid": "k1", "use": "sig", "alg": "RS256"}]})


@pytest.fixture(scope="module")
def provider() -> Iterator[Settings]:
    """Settings naming a loopback identity provider's JWKS."""
    with StubServer(_jwks, methods=("GET",)) as server:
        yield Settings(  # type: ignore[call-arg]
            _env_file=None,
            auth_jwks_url=f"{server.url}/jwks",
            auth_jwt_issuer=ISSUER,
            auth_jwt_audience=AUDIENCE,
        )


def _claims(**extra: Any) -> dict[str, Any]:
    return {"sub": "alice", "exp": int(time.time()) + 60, "iss": ISSUER, "aud": AUDIENCE, **extra}


def _b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def _hs256_with_public_key() -> str:
    """The classic confusion: HS256, its HMAC secret the provider's public key (hand-signed,
    since PyJWT itself refuses to sign with a PEM as an HMAC secret)."""
    head = _b64(json.dumps({"alg": "HS256", "typ": "JWT", "kid": "k1"}).encode())
    body = _b64(json.dumps(_claims()).encode())
    mac = hmac.new(PUBLIC_PEM, f"{head}.{body}".encode(), hashlib.sha256).digest()
    return f"{head}.{body}.{_b64(mac)}"


def test_the_providers_token_names_its_subject(provider: Settings) -> None:
    good = jwt.encode(_claims(roles=["auditor"]), KEY, "RS256", headers={"kid": "k1"})
    who = asyncio.run(principal_of_token(good, provider))
    assert who == Principal("alice", ("auditor",))


@pytest.mark.parametrize(
    ("make", "says"),
    [
        (_hs256_with_public_key, "not valid"),
        (lambda: jwt.encode(_claims(), OTHER, "RS256", headers={"kid": "k1"}), "not valid"),
        (lambda: jwt.encode(_claims(), OTHER, "RS256", headers={"kid": "k9"}), "signing key"),
        (lambda: jwt.encode(_claims(), None, "none", headers={"kid": "k1"}), "not valid"),
        (lambda: jwt.encode(_claims(aud="other"), KEY, "RS256", headers={"kid": "k1"}), "another"),
        (lambda: jwt.encode(_claims(iss="https://evil"), KEY, "RS256", headers={"kid": "k1"}),
         "another"),
    ],
    ids=["hs256-public-key", "other-key-same-kid", "unknown-kid", "alg-none", "aud", "iss"],
)  # fmt: skip
def test_a_token_the_provider_did_not_sign_for_this_server_is_refused(
    provider: Settings, make: Any, says: str
) -> None:
    with pytest.raises(Unauthenticated, match=says):
        asyncio.run(principal_of_token(make(), provider))

"""`mcp-planner token`: a token it prints is one the server accepts, and every mistake is one line.

The server's own check (`common.served.tokens.principal_of_token`) judges the token, with the
settings the command read: the same environment, as when both run where the server's `.env` is.
"""

from __future__ import annotations

import os
import subprocess
import time
from pathlib import Path

import httpx
import jwt
import pytest

from common.served.tokens import Principal, Unauthenticated, hash_key, principal_of_token
from common.settings import Settings
from strategies.cli import remote
from strategies.cli.exits import CliProblem
from tests.unit_tests.helpers import invoke_cli

SECRET = "token-command-secret-" + "s" * 20
KEY_ENTRY = f"ci-bot:ops:{hash_key('the-key')}"


def environment(**settings: str) -> dict[str, str]:
    """The process environment without any auth setting of the machine's, plus `settings`."""
    base = {k: v for k, v in os.environ.items() if not k.startswith(("AUTH_", "MCP_PLANNER_"))}
    return {**base, **settings}


def token(tmp_path: Path, *args: str, **settings: str) -> subprocess.CompletedProcess[str]:
    """`mcp-planner token ARGS` in an empty folder with only `settings` for auth."""
    return invoke_cli(["token", *args], tmp_path, environment(**settings))


def refused(done: subprocess.CompletedProcess[str]) -> str:
    """The one line a refused command printed; nothing on stdout, exit 2."""
    assert done.returncode == 2, (done.stdout, done.stderr)
    assert done.stdout == ""
    assert "Traceback" not in done.stderr
    (line,) = done.stderr.strip().splitlines()
    return line


async def test_the_printed_token_is_one_the_server_accepts(tmp_path: Path) -> None:
    settings = {"AUTH_JWT_SECRET": SECRET, "AUTH_JWT_ISSUER": "me", "AUTH_JWT_AUDIENCE": "planner"}
    before = int(time.time())
    done = token(
        tmp_path, "alice", "--role", "ops", "--role", "approver", "--ttl", "8h", **settings
    )

    assert done.returncode == 0, done.stderr
    (printed,) = done.stdout.splitlines()  # only the token: TOKEN=$(mcp-planner token ...)
    server = Settings(auth_jwt_secret=SECRET, auth_jwt_issuer="me", auth_jwt_audience="planner")
    assert await principal_of_token(printed, server) == Principal("alice", ("ops", "approver"))
    expires = jwt.decode(printed, options={"verify_signature": False})["exp"]
    assert before + 8 * 3600 <= expires <= int(time.time()) + 8 * 3600


async def test_a_token_for_another_secret_or_audience_is_refused_by_the_server(
    tmp_path: Path,
) -> None:
    """The command signs with the secret it reads: a server with another one refuses it."""
    printed = token(tmp_path, "alice", AUTH_JWT_SECRET=SECRET).stdout.strip()

    with pytest.raises(Unauthenticated, match="not valid"):
        await principal_of_token(printed, Settings(auth_jwt_secret="other-" + "o" * 40))
    with pytest.raises(Unauthenticated):  # signed where no AUTH_JWT_AUDIENCE was set
        await principal_of_token(printed, Settings(auth_jwt_secret=SECRET, auth_jwt_audience="x"))


async def test_a_token_without_roles_names_the_user_alone(tmp_path: Path) -> None:
    printed = token(tmp_path, "bob", "--ttl", "90s", AUTH_JWT_SECRET=SECRET).stdout.strip()

    assert await principal_of_token(printed, Settings(auth_jwt_secret=SECRET)) == Principal("bob")


@pytest.mark.parametrize(
    ("args", "settings", "says"),
    [
        (["alice"], {}, "No AUTH_JWT_SECRET is set here: mcp-planner token signs only with"),
        (["alice"], {"AUTH_JWT_SECRET": "short"}, "AUTH_JWT_SECRET=(hidden) is invalid"),
        (
            ["alice"],
            {"AUTH_JWKS_URL": "https://idp.example/jwks", "AUTH_JWT_ISSUER": "i"},
            "get one from the provider",
        ),
        ([""], {"AUTH_JWT_SECRET": SECRET}, "The user is empty"),
        (["  "], {"AUTH_JWT_SECRET": SECRET}, "The user is empty"),
        (["a" * 257], {"AUTH_JWT_SECRET": SECRET}, "over 256 characters"),
        (["al\nice"], {"AUTH_JWT_SECRET": SECRET}, "control characters"),
        (["ci-bot"], {"AUTH_JWT_SECRET": SECRET, "AUTH_API_KEYS": KEY_ENTRY}, "API keys"),
        (["alice", "--role", ""], {"AUTH_JWT_SECRET": SECRET}, "--role '' is not a role"),
        (["alice", "--role", "r" * 65], {"AUTH_JWT_SECRET": SECRET}, "1 to 64 characters"),
        (["alice", "--role", "a\tb"], {"AUTH_JWT_SECRET": SECRET}, "is not a role"),
        (
            ["alice", *[f"--role=r{n}" for n in range(65)]],
            {"AUTH_JWT_SECRET": SECRET},
            "65 roles given: the server accepts at most 64.",
        ),
        (
            ["alice", *[f"--role={n:02}{'é' * 62}" for n in range(64)]],
            {"AUTH_JWT_SECRET": SECRET},
            "over 8,192 bytes",
        ),
        (["alice", "--ttl", "1y"], {"AUTH_JWT_SECRET": SECRET}, "--ttl '1y' is not a duration"),
        (["alice", "--ttl", "0m"], {"AUTH_JWT_SECRET": SECRET}, "--ttl '0m' is not a duration"),
        (["alice", "--ttl", ""], {"AUTH_JWT_SECRET": SECRET}, "--ttl '' is not a duration"),
        (["alice", "--ttl=-5m"], {"AUTH_JWT_SECRET": SECRET}, "--ttl '-5m' is not a duration"),
        (["alice", "--ttl", "31d"], {"AUTH_JWT_SECRET": SECRET}, "is over 30 days"),
    ],
    ids=[
        "no-secret",
        "short-secret",
        "jwks",
        "empty-user",
        "blank-user",
        "long-user",
        "control-user",
        "an-api-key-name",
        "empty-role",
        "long-role",
        "control-role",
        "65-roles",
        "over-8-kb",
        "ttl-unit",
        "ttl-zero",
        "ttl-empty",
        "ttl-negative",
        "ttl-over-30-days",
    ],
)
def test_a_token_the_server_would_refuse_is_one_line_and_exit_2(
    tmp_path: Path, args: list[str], settings: dict[str, str], says: str
) -> None:
    assert says in refused(token(tmp_path, *args, **settings))


def test_the_secret_is_read_from_the_folders_env_file(tmp_path: Path) -> None:
    """Run where the server's `.env` is, the command signs with the server's secret."""
    (tmp_path / ".env").write_text(f"AUTH_JWT_SECRET={SECRET}\n")
    printed = token(tmp_path, "carol").stdout.strip()

    assert jwt.decode(printed, SECRET, algorithms=["HS256"])["sub"] == "carol"
    assert SECRET not in printed


def test_a_token_and_an_api_key_both_given_are_refused_before_anything_is_sent(
    tmp_path: Path,
) -> None:
    env = environment(MCP_PLANNER_TOKEN="t", MCP_PLANNER_API_KEY="k")
    url = "http://127.0.0.1:9"  # nothing listens: the refusal comes first
    done = invoke_cli(["threads", "--server", url], tmp_path, env)

    assert refused(done) == remote.BOTH_GIVEN
    assert "MCP_PLANNER_API_KEY" in remote.BOTH_GIVEN
    flag = invoke_cli(
        ["threads", "--server", url, "--token", "t"], tmp_path, {**env, "MCP_PLANNER_TOKEN": ""}
    )
    assert refused(flag) == remote.BOTH_GIVEN


def test_the_api_key_goes_to_the_sdk_and_a_token_beside_it_is_refused(
    monkeypatch: pytest.MonkeyPatch, chdir_tmp: Path
) -> None:
    from common.settings import get_settings

    monkeypatch.setenv("MCP_PLANNER_API_KEY", "the-key")
    monkeypatch.delenv("MCP_PLANNER_TOKEN", raising=False)
    get_settings.cache_clear()
    try:
        assert remote.credentials(None) == ("the-key", None)
        with pytest.raises(CliProblem):
            remote.credentials("a-token")
    finally:
        get_settings.cache_clear()


def refusal(status: int, body: object, headers: dict[str, str]) -> httpx.HTTPStatusError:
    """A refused request carrying `headers`, answered `status` with the JSON `body`."""
    request = httpx.Request("GET", "http://srv/threads", headers=headers)
    response = httpx.Response(status, json=body, request=request)
    return httpx.HTTPStatusError("refused", request=request, response=response)


EXPIRED = "The token has expired: sign in again for a new one."


@pytest.mark.parametrize(
    "body",
    [{"detail": EXPIRED}, {"error": "unauthorized", "message": EXPIRED, "details": {}}],
    ids=["langgraph-dev", "aegra"],
)
def test_a_401_shows_the_servers_own_sentence(body: dict[str, object]) -> None:
    line = remote.refusal_line("http://srv", refusal(401, body, {"Authorization": "Bearer t"}))

    assert line == f"The server at http://srv refused the token (401): {EXPIRED}"


def test_a_401_without_a_sentence_names_both_settings() -> None:
    unknown = "The API key is not known to this server: ask its operator for one."
    keyed = remote.refusal_line("http://srv", refusal(401, {"detail": unknown}, {"x-api-key": "k"}))
    bare = remote.refusal_line("http://srv", refusal(401, {"detail": "Unauthorized"}, {}))

    assert keyed == f"The server at http://srv refused the API key (401): {unknown}"
    assert "--token or MCP_PLANNER_TOKEN" in bare
    assert "MCP_PLANNER_API_KEY" in bare

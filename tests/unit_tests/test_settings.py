"""Settings: one-line errors naming the setting, empty values meaning the default."""

from __future__ import annotations

import logging
import re
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest

from common.guardrails.config import GuardrailConfig
from common.persistence import backend_of
from common.settings import ConfigError, Settings, get_settings

ROOT = Path(__file__).resolve().parents[2]

# Every setting `.env.example` lists; cleared so the machine's environment cannot leak in.
SETTING_NAMES = [name.upper() for name in Settings.model_fields]


@pytest.fixture
def clean_env(monkeypatch: pytest.MonkeyPatch, chdir_tmp: Path) -> Iterator[Path]:
    """An empty directory (no `.env`) and no setting in the environment; a fresh cache."""
    for name in SETTING_NAMES:
        monkeypatch.delenv(name, raising=False)
    get_settings.cache_clear()
    yield chdir_tmp
    get_settings.cache_clear()


def config_error(monkeypatch: pytest.MonkeyPatch, **env: str) -> str:
    """The ConfigError message get_settings() raises with `env` set."""
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    get_settings.cache_clear()
    with pytest.raises(ConfigError) as info:
        get_settings()
    message = str(info.value)
    assert "\n" not in message
    assert "validation error" not in message.lower()
    return message


@pytest.mark.usefixtures("clean_env")
def test_a_bad_number_names_the_setting_value_and_range(monkeypatch: pytest.MonkeyPatch) -> None:
    message = config_error(monkeypatch, MAX_TASK_ATTEMPTS="abc")
    assert message == (
        "Setting MAX_TASK_ATTEMPTS='abc' is invalid: expected a whole number from 1 to 20."
    )


@pytest.mark.usefixtures("clean_env")
@pytest.mark.parametrize(
    ("name", "value", "expected"),
    [
        ("MAX_TASK_ATTEMPTS", "21", "a whole number from 1 to 20"),
        ("MAX_PLANNER_RETRIES", "-1", "a whole number from 0 to 10"),
        ("MAX_PLAN_TASKS", "1.5", "a whole number from 1 to 50"),
        ("RECURSION_LIMIT", "5", "a whole number of at least 10"),
        ("TOOL_TIMEOUT_S", "0", "a number greater than 0"),
        ("ANALYSIS_TIMEOUT_S", "soon", "a number greater than 0"),
        ("ALLOW_MODEL_REQUESTS", "maybe", "true or false"),
        ("MODEL_TEMPERATURE", "3", "a number from 0 to 2, or empty for the default"),
        ("MODEL_TEMPERATURE", "hot", "a number from 0 to 2, or empty for the default"),
        ("PERSISTENCE", "redis", "one of memory, sqlite, postgres, or empty for the default"),
    ],
)
def test_each_kind_of_setting_says_what_it_takes(
    monkeypatch: pytest.MonkeyPatch, name: str, value: str, expected: str
) -> None:
    message = config_error(monkeypatch, **{name: value})
    assert message == f"Setting {name}={value!r} is invalid: expected {expected}."


@pytest.mark.usefixtures("clean_env")
@pytest.mark.parametrize("value", ["bogus", "Interrupt", "AUTO", " interrupt", "plan-only", "none"])
def test_approval_mode_is_exact(monkeypatch: pytest.MonkeyPatch, value: str) -> None:
    message = config_error(monkeypatch, APPROVAL_MODE=value)
    assert message == (
        f"Setting APPROVAL_MODE={value!r} is invalid: expected one of interrupt, plan_only, auto."
    )


@pytest.mark.usefixtures("clean_env")
@pytest.mark.parametrize("value", ["{bad", "[1, 2]", '"text"', "42", "null"])
def test_guardrails_must_be_a_json_object(monkeypatch: pytest.MonkeyPatch, value: str) -> None:
    message = config_error(monkeypatch, GUARDRAILS=value)
    assert message.startswith("Setting GUARDRAILS=")
    assert message.endswith('is invalid: expected a JSON object like {"banned_words": [...]}.')


@pytest.mark.usefixtures("clean_env")
def test_unknown_guardrail_key_is_named(monkeypatch: pytest.MonkeyPatch) -> None:
    message = config_error(monkeypatch, GUARDRAILS='{"baned_words": ["x"]}')
    assert message.startswith("Setting GUARDRAILS has an unknown key 'baned_words': known keys")
    assert "banned_words" in message.split("known keys are", 1)[1]


@pytest.mark.usefixtures("clean_env")
def test_bad_guardrail_value_names_the_key(monkeypatch: pytest.MonkeyPatch) -> None:
    message = config_error(monkeypatch, GUARDRAILS='{"max_request_chars": 0}')
    assert message.startswith("Setting GUARDRAILS key 'max_request_chars'=0 is invalid: ")


@pytest.mark.usefixtures("clean_env")
def test_several_bad_settings_share_one_line(monkeypatch: pytest.MonkeyPatch) -> None:
    message = config_error(monkeypatch, MAX_TASK_ATTEMPTS="abc", APPROVAL_MODE="bogus")
    parts = message.split("; ")
    assert len(parts) == 2
    assert any(p.startswith("Setting MAX_TASK_ATTEMPTS='abc'") for p in parts)
    assert any(p.startswith("Setting APPROVAL_MODE='bogus'") for p in parts)


def test_a_bad_dotenv_value_is_reported_the_same_way(
    monkeypatch: pytest.MonkeyPatch, clean_env: Path
) -> None:
    (clean_env / ".env").write_text("MAX_TASK_ATTEMPTS=lots\n", encoding="utf-8")
    message = config_error(monkeypatch)
    assert message == (
        "Setting MAX_TASK_ATTEMPTS='lots' is invalid: expected a whole number from 1 to 20."
    )


def test_a_long_value_is_shortened(monkeypatch: pytest.MonkeyPatch, clean_env: Path) -> None:
    message = config_error(monkeypatch, MAX_TASK_ATTEMPTS="9" * 500)
    assert len(message) < 200
    assert "..." in message


@pytest.mark.usefixtures("clean_env")
def test_empty_values_in_the_environment_mean_the_default(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    for name in SETTING_NAMES:
        monkeypatch.setenv(name, "")
    assert Settings().model_dump() == _defaults().model_dump()


def test_empty_values_in_dotenv_mean_the_default(clean_env: Path) -> None:
    (clean_env / ".env").write_text("".join(f"{n}=\n" for n in SETTING_NAMES), encoding="utf-8")
    assert Settings().model_dump() == _defaults().model_dump()


def test_env_example_copied_as_dotenv_loads_the_documented_defaults(clean_env: Path) -> None:
    shutil.copy(ROOT / ".env.example", clean_env / ".env")
    settings = get_settings()
    assert settings.model == "openai:gpt-4o-mini"
    assert settings.planner_model is None
    assert settings.openai_base_url is None
    assert settings.mcp_config == Path("mcp.json")
    assert settings.approval_mode == "interrupt"
    assert settings.max_task_attempts == 3
    assert settings.persistence is None
    assert backend_of(settings) == "sqlite"
    assert settings.database_uri is None
    assert settings.embedding_model is None
    assert settings.guardrails == GuardrailConfig()
    assert settings.allow_model_requests is True


EXAMPLE_LINE = re.compile(r"^(?P<commented># )?(?P<name>[A-Z][A-Z0-9_]*)=(?P<value>.*)$")
"""A setting in `.env.example`: `NAME=value`, or `# NAME=value` commented out."""

HIDDEN_WHEN_SET = ("MODEL", "OPENAI_API_KEY", "OPENAI_BASE_URL", "DATABASE_URI")
"""Settings a user typically exports: a copied `.env` that sets them hides the exported value
(`langgraph dev` lets `.env` override the shell)."""


def example_settings() -> dict[str, tuple[bool, str]]:
    """Each setting `.env.example` shows: (commented out, value)."""
    lines = (ROOT / ".env.example").read_text(encoding="utf-8").splitlines()
    found = [m for m in map(EXAMPLE_LINE.match, lines) if m]
    return {m["name"]: (bool(m["commented"]), m["value"]) for m in found}


def test_env_example_sets_no_empty_value() -> None:
    lines = (ROOT / ".env.example").read_text(encoding="utf-8").splitlines()
    empty = [line for line in lines if not line.startswith("#") and line.strip().endswith("=")]
    assert empty == [], "an empty line in a copied .env blanks what the shell exports"


def test_env_example_leaves_secrets_endpoints_and_the_model_commented_out() -> None:
    shown = example_settings()
    assert {name: shown[name][0] for name in HIDDEN_WHEN_SET} == dict.fromkeys(
        HIDDEN_WHEN_SET, True
    )


def test_env_example_lists_every_setting_with_its_default_or_an_example() -> None:
    shown = example_settings()
    assert set(SETTING_NAMES) <= set(shown)
    defaults = _defaults()
    for name in SETTING_NAMES:
        _, value = shown[name]
        # An init value outranks the environment, so only the example's value is checked.
        single = Settings(**{name.lower(): value})
        if getattr(defaults, name.lower()) is not None:
            assert getattr(single, name.lower()) == getattr(defaults, name.lower()), name


def _defaults() -> Settings:
    """Every field at its declared default, read from no environment or file."""
    return Settings.model_construct()


def dotenv_warnings_logged(caplog: pytest.LogCaptureFixture, dotenv: Path, text: str) -> list[str]:
    """The warnings reading the settings logs with `text` as the `.env` file."""
    dotenv.write_text(text, encoding="utf-8")
    get_settings.cache_clear()
    with caplog.at_level(logging.WARNING, logger="common.settings"):
        get_settings()
    return [r.getMessage() for r in caplog.records if r.name == "common.settings"]


def test_a_misspelt_setting_in_dotenv_is_named_with_its_file_line_and_closest_setting(
    clean_env: Path, caplog: pytest.LogCaptureFixture
) -> None:
    dotenv = clean_env / ".env"
    text = "# mine\nMODLE=openai:gpt-4o\n\nMAX_TASK_ATEMPTS=5\n"

    warnings = dotenv_warnings_logged(caplog, dotenv, text)

    assert warnings == [
        f"{dotenv}, line 2: MODLE is not a setting, so it is ignored (did you mean MODEL?).",
        f"{dotenv}, line 4: MAX_TASK_ATEMPTS is not a setting, so it is ignored "
        "(did you mean MAX_TASK_ATTEMPTS?).",
    ]
    assert get_settings().max_task_attempts == 3


def test_a_dotenv_line_without_an_equals_sign_is_named_with_its_file_and_line(
    clean_env: Path, caplog: pytest.LogCaptureFixture
) -> None:
    dotenv = clean_env / ".env"

    warnings = dotenv_warnings_logged(caplog, dotenv, "MAX_TASK_ATTEMPTS=4\nMODLE\nuse gpt-4o\n")

    assert warnings == [
        f"{dotenv}, line 2: MODLE has no '=', so it sets no value (did you mean MODEL?).",
        f"{dotenv}, line 3: 'use gpt-4o' is not NAME=value, so it sets nothing.",
    ]
    assert get_settings().max_task_attempts == 4


def test_dotenv_names_of_settings_keys_and_other_tools_are_not_warned_about(
    clean_env: Path, caplog: pytest.LogCaptureFixture
) -> None:
    text = "model=offline:rules\nexport OPENAI_API_KEY=sk-x\nLANGSMITH_API_KEY=ls\nNOTES_FILE=n\n"

    assert dotenv_warnings_logged(caplog, clean_env / ".env", text) == []


def test_a_dotenv_warning_is_given_once_per_process(
    clean_env: Path, caplog: pytest.LogCaptureFixture
) -> None:
    dotenv = clean_env / ".env"
    first = dotenv_warnings_logged(caplog, dotenv, "MODLE=x\n")
    caplog.clear()

    again = dotenv_warnings_logged(caplog, dotenv, "MODLE=x\n")

    assert len(first) == 1
    assert again == []


def test_env_example_copied_as_dotenv_warns_about_nothing(
    clean_env: Path, caplog: pytest.LogCaptureFixture
) -> None:
    example = (ROOT / ".env.example").read_text(encoding="utf-8")

    assert dotenv_warnings_logged(caplog, clean_env / ".env", example) == []

"""The real langchain-openai requests against the provider-faithful stub (OpenAI's, Azure's rules).

An old-style open `args` object is refused with the real API's exact HTTP 400, and the
planner's, analyser's and assessor's requests as sent today are accepted under both rules.
"""

from __future__ import annotations

import json
from typing import Any

import openai
import pytest
from langchain_core.messages import HumanMessage, SystemMessage
from langchain_openai import ChatOpenAI
from mcp.types import Tool
from pydantic import BaseModel

from common.safety.verdict import IrreversibilityAnalysis
from common.structured import structured_runnable, with_tools
from strategies.with_planner.bound_tools import Bound, bind_tools_for
from strategies.with_planner.nodes.assess import Assessment
from strategies.with_planner.nodes.orchestrate import _CONTROL_SPECS
from strategies.with_planner.plans import PlannerResult
from tests.integration_tests.openai_stub import OpenAIStub
from tests.provider_rules import DIALECTS, Dialect

pytestmark = pytest.mark.integration

ASK = [SystemMessage("You plan how to answer."), HumanMessage("How many WID-1 are in stock?")]


def _model(stub: OpenAIStub) -> ChatOpenAI:
    """The chat model `openai:gpt-4o-mini` with OPENAI_BASE_URL at the stub, no retries."""
    return ChatOpenAI(
        model="gpt-4o-mini", base_url=stub.base_url, api_key="not-needed", max_retries=0
    )


async def _refusal(stub: OpenAIStub, schema: type[BaseModel]) -> dict[str, Any]:
    """The error body the stub answers to the structured-output request for `schema`."""
    with pytest.raises(openai.BadRequestError) as refused:
        await structured_runnable(_model(stub), schema).ainvoke(ASK)
    assert refused.value.status_code == 400
    body: dict[str, Any] = refused.value.body  # type: ignore[assignment]
    return body


class _OpenArgs(BaseModel):
    """The shape of the planner's step before issue 35: an open `args` object."""

    tool: str
    args: dict[str, Any] | None = None


class _Defaulted(BaseModel):
    """A closed object with a default, which OpenAI takes and Azure refuses."""

    tool: str
    critical: bool = True


@pytest.mark.parametrize(
    ("dialect", "context", "problem"),
    [
        (
            "openai",
            "('properties', 'args', 'anyOf', '0')",
            "'additionalProperties' is required to be supplied and to be false.",
        ),
        ("azure", "('properties', 'critical')", "'default' is not permitted."),
    ],
)
async def test_an_open_args_object_is_refused_as_the_real_api_refuses_it(
    dialect: Dialect, context: str, problem: str
) -> None:
    """The stub is faithful: the planner's old open `args` (and, on Azure, a default) is a 400."""
    schema = _OpenArgs if dialect == "openai" else _Defaulted
    with OpenAIStub([{"content": "{}"}], dialect=dialect) as stub:
        body = await _refusal(stub, schema)
    assert body == {
        "message": f"Invalid schema for response_format '{schema.__name__}': In context={context}, "
        + problem,
        "type": "invalid_request_error",
        "param": "response_format",
        "code": None,
    }
    assert stub.replies == [{"content": "{}"}], "a refused request must not use up the script"


@pytest.mark.parametrize("dialect", DIALECTS)
@pytest.mark.parametrize("schema", [PlannerResult, IrreversibilityAnalysis])
async def test_the_planners_and_analysers_schemas_are_accepted(
    dialect: Dialect, schema: type[BaseModel]
) -> None:
    """Issue 35: the planner's and the analyser's requests pass OpenAI's and Azure's rules."""
    answer = {
        PlannerResult: {
            "decision": "replace",
            "plan": [],
            "next_task": 0,
            "clarification": None,
            "not_covered": [],
        },
        IrreversibilityAnalysis: {
            "irreversible": False,
            "blocked_tools": [],
            "read_only_tools": [],
            "reasons": [],
        },
    }[schema]
    with OpenAIStub([{"content": json.dumps(answer)}], dialect=dialect) as stub:
        parsed = await structured_runnable(_model(stub), schema).ainvoke(ASK)
    assert schema.model_validate(parsed) == schema.model_validate(answer)
    assert stub.refusals == []
    assert stub.requests[0]["response_format"]["json_schema"]["strict"] is True


@pytest.mark.parametrize("dialect", DIALECTS)
async def test_the_assessors_schema_is_accepted_and_answered(dialect: Dialect) -> None:
    verdict = {"completed": True, "reason": "stock read"}
    with OpenAIStub([{"content": json.dumps(verdict)}], dialect=dialect) as stub:
        answer = await structured_runnable(_model(stub), Assessment).ainvoke(ASK)
    assert Assessment.model_validate(answer) == Assessment(**verdict)
    assert stub.refusals == []
    assert stub.requests[0]["response_format"]["json_schema"]["strict"] is True


def _tool(name: str) -> Tool:
    """An MCP tool called `name` taking one string."""
    schema = {"type": "object", "properties": {"sku": {"type": "string"}}, "required": ["sku"]}
    return Tool(name=name, description="Look something up.", inputSchema=schema)


def _bound(tools: list[Tool]) -> Bound:
    """The orchestrator's binding of an expert's `tools` for one round."""
    return bind_tools_for(tools, _CONTROL_SPECS, "How many WID-1 are in stock?")


async def _bound_round(stub: OpenAIStub, tools: list[Tool]) -> None:
    """One orchestrator round bound to `tools`, as the orchestrator binds them."""
    await with_tools(_model(stub), _bound(tools).specs).ainvoke(ASK)


@pytest.mark.parametrize("dialect", DIALECTS)
async def test_dotted_and_long_tool_names_are_accepted(dialect: Dialect) -> None:
    """MCP names may carry dots and run to 128 characters: they are bound provider-safe."""
    tools = [_tool("get_stock"), _tool("shop.get_stock"), _tool("inventory_" + "x" * 60)]
    with OpenAIStub([{"content": "ok"}], dialect=dialect) as stub:
        await _bound_round(stub, tools)
    assert stub.refusals == []
    assert len(stub.requests[0]["tools"]) == len(tools) + len(_CONTROL_SPECS)


async def test_an_expert_with_130_tools_is_accepted() -> None:
    """At most 128 tools go in one request, control tools included."""
    with OpenAIStub([{"content": "ok"}]) as stub:
        await _bound_round(stub, [_tool(f"tool_{i}") for i in range(130)])
    assert stub.refusals == []
    assert len(stub.requests[0]["tools"]) == 128


async def test_the_opt_out_takes_any_request() -> None:
    # dialect=None: this test checks the opt-out itself, so it sends a refused schema on purpose.
    with OpenAIStub([{"content": json.dumps({"tool": "t"})}], dialect=None) as stub:
        answer = await structured_runnable(_model(stub), _OpenArgs).ainvoke(ASK)
    assert _OpenArgs.model_validate(answer) == _OpenArgs(tool="t")
    assert stub.refusals == []


async def test_an_mcp_schema_without_a_type_is_bound_as_an_object() -> None:
    """GitLab's server lists input schemas with no `type`: OpenAI refuses them as they are."""
    typeless = Tool(
        name="create_branch",
        description="Create a branch.",
        inputSchema={"$schema": "http://json-schema.org/draft-07/schema#"},
    )
    with OpenAIStub([{"content": "ok"}]) as stub:
        await _bound_round(stub, [typeless])
    assert stub.refusals == []
    parameters = stub.requests[0]["tools"][0]["function"]["parameters"]
    assert (parameters["type"], parameters["properties"]) == ("object", {})

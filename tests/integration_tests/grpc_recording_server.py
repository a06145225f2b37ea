"""A loopback gRPC server that records Gemini's GenerateContent requests, and a model using it.

langchain-google-genai's default transport is gRPC (`grpc` for sync calls, `grpc_asyncio`
for the async ones the nodes make). The server answers every GenerateContent call with the
canned reply of `recording_server.GEMINI_REPLY` and keeps the request's raw bytes; `bodies()`
decodes them with the generativelanguage proto types and converts them to the REST JSON shape
(camelCase, enums as numbers, as the REST transport sends them), so `gemini_problems` checks
both transports alike. Any other method is recorded and answered UNIMPLEMENTED. Given `refuse`,
the server answers a request it names a problem in with INVALID_ARGUMENT (HTTP 400) and that
problem, as Gemini refuses a request. It is a `grpc.server`, not on the shared HTTP helper
(tests/http_stub.py), because gRPC runs over HTTP/2, which that werkzeug server does not speak.

The integration cannot be pointed at an insecure channel: its `transport` setting is a string,
and GAPIC's gRPC transports then always open a TLS channel with the default root certificates
(`grpc_helpers.create_channel`). Two ways round that were weighed:
- TLS with a test certificate trusted through `GRPC_DEFAULT_SSL_ROOTS_FILE_PATH`: runs the
  integration's own channel set-up, but gRPC reads that variable once per process, when the
  first TLS channel is made (tried: set after one channel, it is ignored), so the test would
  depend on what ran before it and would leave the process trusting only the test CA.
- `gemini_grpc_model`, used here: the model is built as a user builds it (default transport,
  `client_options={"api_endpoint": "127.0.0.1:PORT"}`), then given GAPIC clients whose gRPC
  transports use an insecure channel, through GAPIC's documented `channel=` parameter, in the
  model's own `client` and `async_client_running` fields. Everything that shapes the request
  runs unchanged: `_prepare_request`, the GAPIC client (retry, routing header) and the gRPC
  transport's serialisation. Only channel security and the API-key header are left out.
The async client is made in the running event loop for each call: the model keeps one for its
lifetime and a gRPC aio channel belongs to the loop it was made in, while tests run each
exchange in its own `asyncio.run`.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from concurrent import futures
from typing import Any

import grpc
from google.ai.generativelanguage_v1beta.services.generative_service import (
    GenerativeServiceAsyncClient,
    GenerativeServiceClient,
)
from google.ai.generativelanguage_v1beta.services.generative_service.transports import (
    GenerativeServiceGrpcAsyncIOTransport,
    GenerativeServiceGrpcTransport,
)
from google.ai.generativelanguage_v1beta.types import (
    GenerateContentRequest,
    GenerateContentResponse,
)
from google.protobuf import json_format
from langchain_google_genai import ChatGoogleGenerativeAI

from tests.integration_tests import recording_server

GENERATE_CONTENT = "/google.ai.generativelanguage.v1beta.GenerativeService/GenerateContent"
"""The gRPC method `ainvoke`/`invoke` call (streaming uses StreamGenerateContent)."""


class GrpcRecordingServer:
    """Serve canned GenerateContent replies on 127.0.0.1:PORT; `requests` holds (method, bytes)."""

    def __init__(self, refuse: Callable[[dict[str, Any]], str | None] | None = None) -> None:
        self.requests: list[tuple[str, bytes]] = []
        handler = _Handler(self.requests, refuse or (lambda body: None))
        self.server = grpc.server(futures.ThreadPoolExecutor(max_workers=2), handlers=[handler])
        self.port = self.server.add_insecure_port("127.0.0.1:0")

    @property
    def url(self) -> str:
        """The `host:port` a gRPC `api_endpoint` names."""
        return f"127.0.0.1:{self.port}"

    def bodies(self) -> list[dict[str, Any]]:
        """Each GenerateContent request as the REST transport's JSON body (no `model`)."""
        assert all(method == GENERATE_CONTENT for method, _raw in self.requests), self.requests
        return [_rest_body(raw) for _method, raw in self.requests]

    def __enter__(self) -> GrpcRecordingServer:
        self.server.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.server.stop(None)


def _rest_body(raw: bytes) -> dict[str, Any]:
    """A serialised GenerateContentRequest as REST sends it: the model goes in the URL there."""
    request = GenerateContentRequest.deserialize(raw)
    body = json_format.MessageToDict(
        GenerateContentRequest.pb(request), use_integers_for_enums=True
    )
    body.pop("model", None)
    return body


class _Handler(grpc.GenericRpcHandler):
    """Every method: raw bytes in, recorded; GenerateContent answered or refused."""

    def __init__(
        self, requests: list[tuple[str, bytes]], refuse: Callable[[dict[str, Any]], str | None]
    ) -> None:
        self.requests = requests
        self.refuse = refuse

    def service(self, handler_call_details: grpc.HandlerCallDetails) -> grpc.RpcMethodHandler:
        """A unary handler that records the call under its method name."""
        method = str(getattr(handler_call_details, "method", ""))

        def answer(raw: bytes, context: grpc.ServicerContext) -> bytes:
            self.requests.append((method, raw))
            if method != GENERATE_CONTENT:
                context.abort(grpc.StatusCode.UNIMPLEMENTED, f"{method} is not recorded")
            refused = self.refuse(_rest_body(raw))
            if refused is not None:
                context.abort(grpc.StatusCode.INVALID_ARGUMENT, refused)
            reply = json.dumps(recording_server.GEMINI_REPLY)
            return bytes(
                GenerateContentResponse.serialize(GenerateContentResponse.from_json(reply))
            )

        return grpc.unary_unary_rpc_method_handler(answer)


class _AsyncClientPerCall:
    """GAPIC's async client over an insecure channel, made in the running loop for each call."""

    def __init__(self, address: str) -> None:
        self.address = address

    async def generate_content(self, *args: Any, **kwargs: Any) -> GenerateContentResponse:
        """`GenerativeServiceAsyncClient.generate_content` on a fresh loopback channel."""
        channel = grpc.aio.insecure_channel(self.address)
        transport = GenerativeServiceGrpcAsyncIOTransport(channel=channel)
        try:
            return await GenerativeServiceAsyncClient(transport=transport).generate_content(
                *args, **kwargs
            )
        finally:
            await channel.close()


def gemini_grpc_model(address: str, **settings: Any) -> ChatGoogleGenerativeAI:
    """A Gemini chat model on its default (gRPC) transport, talking to `address` unencrypted."""
    model = ChatGoogleGenerativeAI(
        model="gemini-2.0-flash",
        google_api_key="k",
        client_options={"api_endpoint": address},
        max_retries=0,
        **settings,
    )
    assert isinstance(model.client.transport, GenerativeServiceGrpcTransport)
    model.client.transport.close()
    channel = grpc.insecure_channel(address)
    model.client = GenerativeServiceClient(
        transport=GenerativeServiceGrpcTransport(channel=channel)
    )
    model.async_client_running = _AsyncClientPerCall(address)
    return model

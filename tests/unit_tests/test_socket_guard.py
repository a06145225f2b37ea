"""The test guard: any connection off this machine fails, loopback still works."""

from __future__ import annotations

import socket

import pytest


@pytest.mark.parametrize(
    ("family", "address"),
    [
        (socket.AF_INET, ("10.255.255.1", 443)),
        (socket.AF_INET, ("8.8.8.8", 53)),
        (socket.AF_INET, ("api.openai.com", 443)),
        (socket.AF_INET6, ("2001:4860:4860::8888", 443)),
    ],
)
def test_connecting_off_the_machine_is_refused(
    family: socket.AddressFamily, address: tuple[str, int]
) -> None:
    with socket.socket(family, socket.SOCK_STREAM) as sock:
        sock.settimeout(1)
        with pytest.raises(ConnectionRefusedError, match="only connect to loopback"):
            sock.connect(address)


def test_loopback_connections_still_work() -> None:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as server:
        server.bind(("127.0.0.1", 0))
        server.listen(1)
        with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as client:
            client.settimeout(1)
            client.connect(server.getsockname())
            peer, _ = server.accept()
            with peer:
                client.sendall(b"ping")
                assert peer.recv(4) == b"ping"

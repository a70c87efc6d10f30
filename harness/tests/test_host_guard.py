"""DNS-rebinding guard: control answers only requests that name a host it knows (loopback names,
the address it listens on, --allow-host); a request with Host: attacker.example gets 401, over
HTTP/1.1 (the page, gRPC-web) and HTTP/2 (gRPC) alike."""
from __future__ import annotations

import http.client
import urllib.parse

import grpc
import pytest

from codecbench.pb import hs, hs_grpc


def get(addr: str, host: str | None) -> tuple[int, str]:
    ip, port = addr.rsplit(":", 1)
    conn = http.client.HTTPConnection(ip, int(port), timeout=10)
    try:
        conn.putrequest("GET", "/", skip_host=True)
        if host is not None:
            conn.putheader("Host", host)
        conn.endheaders()
        resp = conn.getresponse()
        return resp.status, resp.read().decode(errors="replace")
    finally:
        conn.close()


def test_a_foreign_host_gets_401_and_loopback_names_are_served(control):
    port = control.addr.rsplit(":", 1)[1]
    status, body = get(control.addr, "attacker.example")
    assert status == 401, body
    assert 'does not answer to host "attacker.example"' in body and "--allow-host" in body
    assert get(control.addr, None)[0] == 401, "no Host at all is not a known host either"
    for name in (f"127.0.0.1:{port}", f"localhost:{port}"):
        status, body = get(control.addr, name)
        assert status in (200, 404), (name, status, body)  # 404 only when the page is not built
    # gRPC (HTTP/2): the :authority is checked the same way.
    with grpc.insecure_channel(control.addr, options=[("grpc.default_authority", f"attacker.example:{port}")]) as ch:
        stub = hs_grpc.HarnessServiceStub(ch)
        with pytest.raises(grpc.RpcError) as refused:
            stub.ListWorkers(hs.ListWorkersRequest(), timeout=10)
        assert refused.value.code() == grpc.StatusCode.UNAUTHENTICATED, refused.value
    with control.client() as c:
        assert c.harness.ListWorkers(hs.ListWorkersRequest(), timeout=10) is not None


def test_grpc_web_with_a_foreign_host_gets_401_with_its_grpc_status(control):
    """gRPC-web is HTTP/1.1: a refused call is a 401 (it was 200 with grpc-status 16), and still
    carries the gRPC status and message a client prints."""
    ip, port = control.addr.rsplit(":", 1)
    conn = http.client.HTTPConnection(ip, int(port), timeout=10)
    try:
        conn.putrequest("POST", "/codecbench.v1.HarnessService/ListWorkers", skip_host=True)
        conn.putheader("Host", "attacker.example")
        conn.putheader("Content-Type", "application/grpc-web+proto")
        conn.putheader("Content-Length", "5")
        conn.endheaders(b"\x00\x00\x00\x00\x00")
        resp = conn.getresponse()
        resp.read()
        assert resp.status == 401, resp.status
        message = urllib.parse.unquote(resp.getheader("grpc-message") or "")  # percent-encoded, as gRPC sends it
        assert resp.getheader("grpc-status") == "16" and "does not answer to host" in message, message
    finally:
        conn.close()

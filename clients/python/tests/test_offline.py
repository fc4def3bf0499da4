"""Retries, Idempotency-Key, tokens and webhook verification without a service (a fake transport)."""
from __future__ import annotations

import base64
import email.message
import hashlib
import hmac
import io
import json
import time
import unittest
import urllib.error
import urllib.request
from typing import Any, Dict, List, Optional

from receivables_client import ProblemError, ReceivablesClient, WebhookVerificationError, parse_retry_after, verify_webhook


class FakeResponse(io.BytesIO):
    def __init__(self, status: int, body: Any, headers: Optional[Dict[str, str]] = None) -> None:
        super().__init__(json.dumps(body).encode())
        self.status = status
        self.headers = email.message.Message()
        self.headers["content-type"] = "application/json"
        for k, v in (headers or {}).items():
            self.headers[k] = v

    def __enter__(self) -> "FakeResponse":
        return self


def http_error(status: int, body: Any, headers: Optional[Dict[str, str]] = None) -> urllib.error.HTTPError:
    msg = email.message.Message()
    msg["content-type"] = "application/problem+json"
    for k, v in (headers or {}).items():
        msg[k] = v
    return urllib.error.HTTPError("http://x", status, "error", msg, io.BytesIO(json.dumps(body).encode()))


class Transport:
    def __init__(self, script: List[Any]) -> None:
        self.script = script
        self.requests: List[urllib.request.Request] = []
        self.token_requests = 0

    def __call__(self, request: urllib.request.Request, timeout: float = 0) -> Any:
        if request.full_url.endswith("/auth/token"):
            self.token_requests += 1
            return FakeResponse(200, {"access_token": f"t{self.token_requests}", "token_type": "Bearer", "expires_in": 3600})
        self.requests.append(request)
        step = self.script.pop(0)
        if isinstance(step, BaseException):
            raise step
        return step


class OfflineTest(unittest.TestCase):
    def client(self, transport: Transport, sleeps: List[float], **kw: Any) -> ReceivablesClient:
        return ReceivablesClient("http://api.test/api/v1/", "cli_1", "sk_1", sleep=sleeps.append, opener=transport, **kw)

    def test_retries_network_429_and_5xx_with_one_idempotency_key(self) -> None:
        transport = Transport([
            urllib.error.URLError(ConnectionResetError()),
            http_error(429, {"status": 429, "code": "rate_limited"}, {"retry-after": "2"}),
            http_error(503, {"status": 503, "code": "service_unavailable"}),
            FakeResponse(201, {"id": "cus_1"}),
        ])
        sleeps: List[float] = []
        self.assertEqual(self.client(transport, sleeps).post("/customers", {"name": "x"}), {"id": "cus_1"})
        keys = {r.get_header("Idempotency-key") for r in transport.requests}
        self.assertEqual(len(transport.requests), 4)
        self.assertEqual(len(keys), 1)
        self.assertIsNotNone(keys.pop())
        self.assertEqual(sleeps[1], 2.0)
        self.assertEqual(transport.requests[0].full_url, "http://api.test/api/v1/customers")

    def test_no_retry_on_400_and_bounded_retries(self) -> None:
        sleeps: List[float] = []
        transport = Transport([http_error(400, {"status": 400, "code": "validation_failed", "detail": "bad", "errors": [{"field": "name"}]})])
        with self.assertRaises(ProblemError) as e:
            self.client(transport, sleeps).post("/customers", {})
        self.assertEqual((e.exception.status, e.exception.code, e.exception.errors), (400, "validation_failed", [{"field": "name"}]))
        self.assertEqual(sleeps, [])
        transport = Transport([http_error(503, {"status": 503})] * 3)
        with self.assertRaises(ProblemError):
            self.client(transport, sleeps, max_retries=2).get("/customers")
        self.assertEqual(len(transport.requests), 3)

    def test_token_cached_and_refreshed_before_expiry(self) -> None:
        transport = Transport([FakeResponse(200, {"data": []}) for _ in range(4)])
        c = self.client(transport, [])
        c.get("/customers")
        c.get("/customers")
        self.assertEqual(transport.token_requests, 1)
        c.token_refresh_skew = 7200  # longer than the token's life: about to expire
        c.get("/customers")
        self.assertEqual(transport.token_requests, 2)
        self.assertEqual(transport.requests[-1].get_header("Authorization"), "Bearer t2")

    def test_a_401_fetches_a_new_token_once(self) -> None:
        transport = Transport([http_error(401, {"status": 401, "code": "unauthorized"}), FakeResponse(200, {"data": []})])
        self.assertEqual(self.client(transport, []).get("/customers"), {"data": []})
        self.assertEqual(transport.token_requests, 2)
        self.assertEqual([r.get_header("Authorization") for r in transport.requests], ["Bearer t1", "Bearer t2"])
        transport = Transport([http_error(401, {"status": 401, "code": "unauthorized"})] * 2)
        with self.assertRaises(ProblemError) as e:
            self.client(transport, []).get("/customers")
        self.assertEqual(e.exception.status, 401)
        self.assertEqual(len(transport.requests), 2)

    def test_pages_follow_next_cursor(self) -> None:
        transport = Transport([
            FakeResponse(200, {"data": [1, 2], "has_more": True, "next_cursor": "c2"}),
            FakeResponse(200, {"data": [3], "has_more": False, "next_cursor": None}),
        ])
        self.assertEqual(list(self.client(transport, []).list("/invoices", query={"limit": 2, "status": ["open", "paid"]})), [1, 2, 3])
        self.assertIn("cursor=c2", transport.requests[1].full_url)
        self.assertIn("status=open%2Cpaid", transport.requests[1].full_url)

    def test_verify_webhook(self) -> None:
        key = b"0123456789abcdef0123456789abcdef"
        secret = "whsec_" + base64.b64encode(key).decode()
        body = b'{"id":"evt_1","type":"invoice.paid"}'
        ts = str(int(time.time()))
        sig = base64.b64encode(hmac.new(key, b"evt_1." + ts.encode() + b"." + body, hashlib.sha256).digest()).decode()
        headers = {"Webhook-Id": "evt_1", "Webhook-Timestamp": ts, "Webhook-Signature": f"v1,bogus v1,{sig}"}
        self.assertEqual(verify_webhook(secret, headers, body)["type"], "invoice.paid")
        self.assertEqual(verify_webhook(["whsec_" + base64.b64encode(b"other").decode(), secret], headers, body)["id"], "evt_1")
        with self.assertRaises(WebhookVerificationError):
            verify_webhook(secret, headers, body + b" ")
        with self.assertRaises(WebhookVerificationError):
            verify_webhook(secret, headers, body, now=time.time() - 600)

    def test_parse_retry_after(self) -> None:
        self.assertEqual(parse_retry_after("7"), 7.0)
        self.assertIsNone(parse_retry_after(None))
        self.assertIsNone(parse_retry_after("soon"))


if __name__ == "__main__":
    unittest.main()

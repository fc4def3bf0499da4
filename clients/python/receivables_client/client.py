from __future__ import annotations

import base64
import email.utils
import hashlib
import hmac
import json
import random
import re
import threading
import time
import urllib.error
import urllib.parse
import urllib.request
import uuid
from dataclasses import dataclass, field
from typing import Any, Callable, Dict, Iterator, List, Mapping, Optional, Sequence, Union

JSON = Any
_PREFIX = "/api/v1"
_RETRYABLE_STATUS = frozenset({429, 500, 502, 503, 504})


@dataclass
class ApiResult:
    """One answer: status, headers (lower-case names), parsed body and the ETag (for If-Match)."""

    status: int
    headers: Dict[str, str]
    data: JSON
    etag: Optional[str] = None


class ProblemError(Exception):
    """An RFC 9457 problem (application/problem+json) answered by the API."""

    def __init__(self, status: int, problem: Mapping[str, Any], headers: Mapping[str, str]) -> None:
        self.status = status
        self.problem: Dict[str, Any] = dict(problem)
        self.headers: Dict[str, str] = dict(headers)
        self.type: str = str(problem.get("type", "about:blank"))
        self.title: str = str(problem.get("title", ""))
        self.detail: str = str(problem.get("detail", ""))
        code = problem.get("code")
        self.code: Optional[str] = code if isinstance(code, str) else None
        request_id = problem.get("request_id", headers.get("x-request-id"))
        self.request_id: Optional[str] = request_id if isinstance(request_id, str) else None
        errors = problem.get("errors")
        self.errors: Optional[List[Dict[str, Any]]] = errors if isinstance(errors, list) else None
        self.retry_after: Optional[float] = parse_retry_after(headers.get("retry-after"))
        label = self.code or self.title or "error"
        super().__init__(f"{status} {label}" + (f": {self.detail}" if self.detail else ""))


class WebhookVerificationError(Exception):
    """A webhook whose signature or timestamp does not verify."""


def parse_retry_after(value: Optional[str]) -> Optional[float]:
    """Retry-After as seconds (delta-seconds or an HTTP date)."""
    if not value:
        return None
    value = value.strip()
    if value.isdigit():
        return float(value)
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    return max(0.0, when.timestamp() - time.time())


@dataclass
class _Token:
    value: str
    expires_at: float


@dataclass
class ReceivablesClient:
    """A client for one API client id.

    base_url: the service's address, e.g. ``https://ar.example.com`` (with or without ``/api/v1``).
    """

    base_url: str
    client_id: str
    client_secret: str
    scope: Optional[str] = None
    max_retries: int = 3
    retry_base_delay: float = 0.5
    max_retry_after: float = 60.0
    token_refresh_skew: float = 60.0
    timeout: float = 30.0
    sleep: Callable[[float], None] = time.sleep
    opener: Callable[..., Any] = field(default=urllib.request.urlopen, repr=False)
    _token: Optional[_Token] = field(default=None, init=False, repr=False)
    _lock: threading.Lock = field(default_factory=threading.Lock, init=False, repr=False)

    def __post_init__(self) -> None:
        base = self.base_url.rstrip("/")
        if base.endswith(_PREFIX):
            base = base[: -len(_PREFIX)]
        self.base_url = base + _PREFIX

    # -- tokens -----------------------------------------------------------------------------
    def token(self) -> str:
        """A valid access token: cached, fetched again ``token_refresh_skew`` seconds before it expires."""
        with self._lock:
            if self._token is not None and time.time() < self._token.expires_at - self.token_refresh_skew:
                return self._token.value
            body: Dict[str, str] = {
                "grant_type": "client_credentials",
                "client_id": self.client_id,
                "client_secret": self.client_secret,
            }
            if self.scope:
                body["scope"] = self.scope
            started = time.time()
            result = self._execute(
                "POST",
                self.base_url + "/auth/token",
                {"content-type": "application/json", "accept": "application/json"},
                json.dumps(body).encode(),
            )
            self._token = _Token(str(result.data["access_token"]), started + float(result.data["expires_in"]))
            return self._token.value

    # -- requests ---------------------------------------------------------------------------
    def send(
        self,
        method: str,
        path: str,
        *,
        path_params: Optional[Mapping[str, Any]] = None,
        query: Optional[Mapping[str, Any]] = None,
        body: JSON = None,
        raw_body: Optional[bytes] = None,
        content_type: Optional[str] = None,
        headers: Optional[Mapping[str, str]] = None,
        idempotency_key: Optional[str] = None,
    ) -> ApiResult:
        """Any operation. ``path`` is relative to /api/v1, e.g. ``/invoices/{id}``."""
        method = method.upper()
        url = self.base_url + _expand(path, path_params or {})
        if query:
            items = {k: _query_value(v) for k, v in query.items() if v is not None}
            if items:
                url += "?" + urllib.parse.urlencode(items)
        all_headers: Dict[str, str] = {"accept": "application/json"}
        all_headers.update({k.lower(): v for k, v in (headers or {}).items()})
        data: Optional[bytes] = None
        if raw_body is not None:
            data = raw_body
            all_headers["content-type"] = content_type or "application/octet-stream"
        elif body is not None:
            data = json.dumps(body).encode()
            all_headers["content-type"] = "application/json"
        if method == "POST":
            # One key per logical call; every retry sends it again, so the API acts once.
            all_headers["idempotency-key"] = idempotency_key or str(uuid.uuid4())
        retried_auth = False
        while True:
            all_headers["authorization"] = "Bearer " + self.token()
            try:
                return self._execute(method, url, all_headers, data)
            except ProblemError as e:
                if e.status == 401 and not retried_auth:
                    retried_auth = True
                    with self._lock:
                        self._token = None
                    continue
                raise

    def get(self, path: str, **kwargs: Any) -> JSON:
        return self.send("GET", path, **kwargs).data

    def post(self, path: str, body: JSON = None, **kwargs: Any) -> JSON:
        return self.send("POST", path, body=body, **kwargs).data

    def patch(self, path: str, body: JSON = None, *, if_match: Optional[str] = None, **kwargs: Any) -> JSON:
        """``if_match``: the ETag read before (412 precondition_failed if it changed since)."""
        headers = dict(kwargs.pop("headers", None) or {})
        if if_match:
            headers["if-match"] = if_match
        return self.send("PATCH", path, body=body, headers=headers, **kwargs).data

    def delete(self, path: str, **kwargs: Any) -> JSON:
        return self.send("DELETE", path, **kwargs).data

    def pages(self, path: str, *, query: Optional[Mapping[str, Any]] = None, **kwargs: Any) -> Iterator[Dict[str, Any]]:
        """Every page of a list, following ``next_cursor`` with the same filters and sort."""
        params = dict(query or {})
        while True:
            page: Dict[str, Any] = self.send("GET", path, query=params, **kwargs).data
            yield page
            cursor = page.get("next_cursor")
            if not page.get("has_more") or not cursor:
                return
            params["cursor"] = cursor

    def list(self, path: str, *, query: Optional[Mapping[str, Any]] = None, **kwargs: Any) -> Iterator[Dict[str, Any]]:
        """Every item of a list across pages: ``for invoice in client.list("/invoices", query={"limit": 100})``."""
        for page in self.pages(path, query=query, **kwargs):
            yield from page["data"]

    def import_bank_statement(self, file: bytes, file_format: str, *, idempotency_key: Optional[str] = None) -> JSON:
        """Uploads a bank file (camt.053, camt.054, bai2, mt940, csv); 202, processed in the background."""
        if file_format.startswith("camt"):
            content_type = "application/xml"
        elif file_format == "csv":
            content_type = "text/csv"
        else:
            content_type = "text/plain"
        return self.send(
            "POST", "/bank-statements", query={"format": file_format}, raw_body=file,
            content_type=content_type, idempotency_key=idempotency_key,
        ).data

    # -- transport --------------------------------------------------------------------------
    def _execute(self, method: str, url: str, headers: Mapping[str, str], data: Optional[bytes]) -> ApiResult:
        attempt = 0
        while True:
            request = urllib.request.Request(url, data=data, headers=dict(headers), method=method)
            try:
                with self.opener(request, timeout=self.timeout) as response:
                    return _result(response.status, response.headers, response.read())
            except urllib.error.HTTPError as e:
                result = _result(e.code, e.headers, e.read())
                problem_body = result.data if isinstance(result.data, dict) else {"title": e.reason, "detail": str(result.data)}
                problem = ProblemError(e.code, problem_body, result.headers)
                if e.code in _RETRYABLE_STATUS and attempt < self.max_retries:
                    if problem.retry_after is not None and problem.retry_after > self.max_retry_after:
                        raise problem from None
                    self.sleep(problem.retry_after if problem.retry_after is not None else self._backoff(attempt))
                    attempt += 1
                    continue
                raise problem from None
            except (urllib.error.URLError, ConnectionError, TimeoutError):
                if attempt >= self.max_retries:
                    raise
                self.sleep(self._backoff(attempt))
                attempt += 1

    def _backoff(self, attempt: int) -> float:
        return float(min(30.0, self.retry_base_delay * (2 ** attempt)) * random.uniform(0.8, 1.2))


def _result(status: int, raw_headers: Any, raw: bytes) -> ApiResult:
    headers = {k.lower(): v for k, v in raw_headers.items()} if raw_headers is not None else {}
    text = raw.decode("utf-8") if raw else ""
    data: JSON = json.loads(text) if text and "json" in headers.get("content-type", "") else text
    return ApiResult(status, headers, data, headers.get("etag"))


def _expand(path: str, params: Mapping[str, Any]) -> str:
    def replace(m: "re.Match[str]") -> str:
        name = m.group(1)
        if params.get(name) is None:
            raise TypeError(f"missing path parameter {name} for {path}")
        return urllib.parse.quote(str(params[name]), safe="")

    return re.sub(r"\{(\w+)\}", replace, path)


def _query_value(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (list, tuple)):
        return ",".join(str(v) for v in value)
    return str(value)


def verify_webhook(
    secret: Union[str, Sequence[str]],
    headers: Mapping[str, str],
    raw_body: Union[bytes, str],
    *,
    tolerance: float = 300,
    now: Optional[float] = None,
) -> Dict[str, Any]:
    """Verifies a delivery (Standard Webhooks: HMAC-SHA256 over ``{webhook-id}.{webhook-timestamp}.{body}``
    with the base64 key after ``whsec_``) and returns the parsed event. ``raw_body`` must be the exact
    bytes received. Several secrets (during a rotation) may be given; one that verifies is enough.
    Raises WebhookVerificationError on a bad signature or a timestamp outside ``tolerance`` seconds."""
    lower = {k.lower(): v for k, v in headers.items()}

    def header(name: str) -> str:
        value = lower.get(name)
        if not value:
            raise WebhookVerificationError(f"missing {name} header")
        return value

    msg_id, timestamp, signatures = header("webhook-id"), header("webhook-timestamp"), header("webhook-signature")
    if not timestamp.isdigit():
        raise WebhookVerificationError("invalid webhook-timestamp")
    current = time.time() if now is None else now
    if abs(current - int(timestamp)) > tolerance:
        raise WebhookVerificationError("webhook-timestamp outside the tolerance")
    body = raw_body.encode("utf-8") if isinstance(raw_body, str) else raw_body
    signed = f"{msg_id}.{timestamp}.".encode("utf-8") + body
    candidates = [s[3:] for s in signatures.split(" ") if s.startswith("v1,")]
    for s in [secret] if isinstance(secret, str) else list(secret):
        key = base64.b64decode(s[6:] if s.startswith("whsec_") else s)
        expected = base64.b64encode(hmac.new(key, signed, hashlib.sha256).digest()).decode()
        if any(hmac.compare_digest(expected, c) for c in candidates):
            event: Dict[str, Any] = json.loads(body.decode("utf-8"))
            return event
    raise WebhookVerificationError("no matching signature")

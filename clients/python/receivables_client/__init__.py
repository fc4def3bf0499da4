"""Python client for the receivables API (standard library only, Python >= 3.9).

Tokens (OAuth 2.0 client credentials) fetched and refreshed before expiry, JSON requests,
iteration over every page of a list, an automatic Idempotency-Key on POST with safe retries
(network errors, 429 honouring Retry-After, 5xx), ProblemError for problem+json answers, and
Standard Webhooks signature verification.
"""
from .client import (
    ApiResult,
    ProblemError,
    ReceivablesClient,
    WebhookVerificationError,
    parse_retry_after,
    verify_webhook,
)

__all__ = [
    "ApiResult",
    "ProblemError",
    "ReceivablesClient",
    "WebhookVerificationError",
    "parse_retry_after",
    "verify_webhook",
]
__version__ = "0.1.0"

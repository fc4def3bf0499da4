"""The whole flow against a running service. Needs RECEIVABLES_BASE_URL, RECEIVABLES_CLIENT_ID and
RECEIVABLES_CLIENT_SECRET (a fresh tenant; the service must allow http://127.0.0.1 webhook URLs,
WEBHOOK_ALLOW_PRIVATE_URLS=true). The root jest suite (test/e2e/clients/python-client.e2e-spec.ts)
starts the service and runs these."""
from __future__ import annotations

import http.server
import os
import threading
import time
import unittest
import uuid
from typing import Any, Dict, List, Tuple

from receivables_client import ProblemError, ReceivablesClient, WebhookVerificationError, verify_webhook

BASE_URL = os.environ.get("RECEIVABLES_BASE_URL")
CLIENT_ID = os.environ.get("RECEIVABLES_CLIENT_ID", "")
CLIENT_SECRET = os.environ.get("RECEIVABLES_CLIENT_SECRET", "")


class Receiver:
    """A webhook receiver on loopback recording (headers, raw body) of every request."""

    def __init__(self) -> None:
        self.received: List[Tuple[Dict[str, str], bytes]] = []
        received = self.received

        class Handler(http.server.BaseHTTPRequestHandler):
            def do_POST(self) -> None:  # noqa: N802
                length = int(self.headers.get("content-length", "0"))
                received.append(({k.lower(): v for k, v in self.headers.items()}, self.rfile.read(length)))
                self.send_response(204)
                self.end_headers()

            def log_message(self, format: str, *args: Any) -> None:  # noqa: A002
                pass

        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    def url(self, path: str) -> str:
        return f"http://127.0.0.1:{self.server.server_address[1]}{path}"

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


@unittest.skipUnless(BASE_URL, "RECEIVABLES_BASE_URL not set")
class LiveFlowTest(unittest.TestCase):
    def test_flow(self) -> None:
        client = ReceivablesClient(str(BASE_URL), CLIENT_ID, CLIENT_SECRET)
        receiver = Receiver()
        self.addCleanup(receiver.close)

        token = client.token()
        self.assertTrue(token)
        self.assertEqual(client.token(), token)  # cached

        hook = client.post("/webhooks", {"url": receiver.url("/py"), "events": ["invoice.*", "payment.matched"]})
        self.assertTrue(hook["secret"].startswith("whsec_"))

        customer = client.post("/customers", {"name": "Globex", "email": "ap@globex.test", "currency": "usd", "credit_limit": 500000})
        self.assertTrue(customer["id"].startswith("cus_"))
        invoices = [
            client.post("/invoices", {
                "customer_id": customer["id"], "issue_date": "2026-11-02",
                "line_items": [{"description": f"Item {i}", "quantity": 1, "unit_amount": 10000 * i}],
            })
            for i in (1, 2, 3)
        ]
        self.assertEqual([i["total"] for i in invoices], [10000, 20000, 30000])

        seen = [i["id"] for i in client.list("/invoices", query={"customer_id": customer["id"], "limit": 2, "sort": "created_at"})]
        self.assertEqual(seen, [i["id"] for i in invoices])
        self.assertEqual(len(list(client.pages("/invoices", query={"customer_id": customer["id"], "limit": 2}))), 2)

        read = client.send("GET", "/invoices/{id}", path_params={"id": invoices[0]["id"]})
        self.assertRegex(read.etag or "", r'^"\d+"$')
        patched = client.patch("/invoices/{id}", {"memo": "Thanks", "po_number": None}, path_params={"id": invoices[0]["id"]}, if_match=read.etag)
        self.assertEqual(patched["memo"], "Thanks")
        with self.assertRaises(ProblemError) as stale:
            client.patch("/invoices/{id}", {"memo": "late"}, path_params={"id": invoices[0]["id"]}, if_match=read.etag)
        self.assertEqual((stale.exception.status, stale.exception.code), (412, "precondition_failed"))
        self.assertTrue(stale.exception.request_id)
        with self.assertRaises(ProblemError) as bad:
            client.post("/customers", {"name": ""})
        self.assertEqual((bad.exception.status, bad.exception.code), (400, "validation_failed"))

        auto = client.post("/payments", {
            "customer_id": customer["id"], "amount": 10000, "currency": "usd", "payment_date": "2026-11-20",
            "method": "ach", "reference": invoices[0]["number"],
        })
        self.assertEqual((auto["match"]["status"], auto["match"]["rule"]), ("matched", "reference"))

        key = str(uuid.uuid4())
        payment = {"customer_id": customer["id"], "amount": 12345, "currency": "usd", "payment_date": "2026-11-21", "method": "wire", "reference": "no such thing"}
        unmatched = client.post("/payments", payment, idempotency_key=key)
        self.assertEqual(client.post("/payments", payment, idempotency_key=key)["id"], unmatched["id"])
        self.assertNotEqual(unmatched["match"]["status"], "matched")

        manual = client.post("/payments/{id}/match", {"applications": [{"invoice_id": invoices[2]["id"]}]}, path_params={"id": unmatched["id"]})
        self.assertEqual(manual["invoices"][0]["id"], invoices[2]["id"])
        self.assertEqual(manual["invoices"][0]["amount_due"], 30000 - 12345)

        statement = client.get("/customers/{id}/statement", path_params={"id": customer["id"]}, query={"from": "2026-11-01"})
        self.assertEqual(
            [statement["opening_balance"], statement["total_debits"], statement["total_credits"], statement["closing_balance"]],
            [0, 60000, 22345, 60000 - 22345],
        )

        csv = b"date,amount,currency,reference,payer_name,payer_account,bank_entry_id\n2026-11-26,50.00,USD,INV-none,GLOBEX,DE89370400440532013000,PY-1\n"
        imported = client.import_bank_statement(csv, "csv")
        self.assertTrue(imported["id"].startswith("bst_"))
        done = imported
        deadline = time.time() + 15
        while done["status"] != "completed" and time.time() < deadline:
            time.sleep(0.05)  # polling the import's status, with a deadline
            done = client.get("/bank-statements/{id}", path_params={"id": imported["id"]})
        self.assertEqual((done["status"], done["payments_created"]), ("completed", 1))

        deadline = time.time() + 20
        matched: List[Tuple[Dict[str, str], bytes]] = []
        while time.time() < deadline:
            matched = [r for r in list(receiver.received) if b'"payment.matched"' in r[1]]
            if matched:
                break
            time.sleep(0.05)  # polling for the delivery, with a deadline
        self.assertTrue(matched, "no payment.matched delivery")
        headers, body = matched[0]
        event = verify_webhook(hook["secret"], headers, body)
        self.assertEqual(event["type"], "payment.matched")
        self.assertEqual(event["id"], headers["webhook-id"])
        with self.assertRaises(WebhookVerificationError):
            verify_webhook(hook["secret"], headers, body.replace(b"payment", b"pAyment"))
        with self.assertRaises(WebhookVerificationError):
            verify_webhook(hook["secret"], headers, body, now=time.time() + 3600)


if __name__ == "__main__":
    unittest.main()

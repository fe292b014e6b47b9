"""Benchmark of the typed client (issue 3 item 11). Prints figures as ratios against baselines measured in
the same run; not a test.

(a) N sequential `GET /camera/list` through SamClient (Idempotency-Key, retries wrapper, JSON into models)
    against raw httpx.Client with the same headers precomputed (goal: ratio <= 1.25);
(b) Idempotency-Keys computed per second on one core, for a repeated GET path and for distinct bodies,
    against the naive "new Triple DES cipher per key" (goal >= 20,000 keys/s).

    python bench/client.py [--requests 1000] [--rounds 5] [--keys 100000] [--skip a,b]
"""

from __future__ import annotations

import argparse
import hashlib
import os
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import httpx  # noqa: E402
from Crypto.Cipher import DES3  # noqa: E402

from core.client import SamClient  # noqa: E402
from core.idempotency import idempotency_key, payload_for, stamp_for  # noqa: E402
from core.settings import Settings  # noqa: E402
from tests.support.processes import run_simulator  # noqa: E402

ORG = 1001


def timed(fn: Callable[[], object], n: int) -> float:
    started = time.perf_counter()
    for _ in range(n):
        fn()
    return time.perf_counter() - started


def bench_requests(n: int, rounds: int) -> None:
    print(f"(a) {n} sequential GET /camera/list, {rounds} interleaved rounds, simulator on loopback")
    with run_simulator("--alarm-rate", "0") as sim:
        settings = Settings(_env_file=None, base_url=sim.base_url, organization_id=ORG)
        with SamClient(settings) as sam, httpx.Client(base_url=sim.base_url) as raw:
            login = sam.login()
            assert login.token is not None, "a login without a token"
            token = login.token.get_secret_value()
            fixed = {
                "Authorization": f"Bearer {token}",
                "OrganizationId": str(ORG),
                "Accept": "application/json",
            }
            # Distinct keys, computed before timing, so that the server executes every baseline request
            # too instead of replaying a stored answer.
            now = time.time_ns() // 1_000_000
            payload = payload_for("/camera/list", b"")
            keys = iter([idempotency_key(payload, now + i) for i in range(n * rounds + 10)])

            def baseline() -> object:
                response = raw.get("/camera/list", headers={**fixed, "Idempotency-Key": next(keys)})
                response.raise_for_status()
                return response.json()

            def client() -> object:
                return sam.list_cameras()

            for _ in range(10):  # warm both connections and caches
                baseline()
                client()
            raw_times, client_times = [], []
            per_round = max(n // rounds, 1)
            for _ in range(rounds):
                raw_times.append(timed(baseline, per_round))
                client_times.append(timed(client, per_round))
    raw_s, client_s = sum(raw_times), sum(client_times)
    ratio = statistics.median(c / r for c, r in zip(client_times, raw_times, strict=True))
    print(f"    raw httpx.Client : {raw_s / (per_round * rounds) * 1000:8.3f} ms/request")
    print(f"    SamClient        : {client_s / (per_round * rounds) * 1000:8.3f} ms/request")
    verdict = "OK" if ratio <= 1.25 else "MISSED"
    print(f"    ratio client/raw : {ratio:8.3f}  (median of rounds; goal <= 1.25) {verdict}")


def bench_keys(count: int) -> None:
    print(f"(b) Idempotency-Keys on one core, {count} keys per case")
    now = time.time_ns() // 1_000_000
    get_payload = payload_for("/camera/list", b"")
    bodies = [b'{"resourceIds":[%d],"page":1,"pageSize":100}' % i for i in range(count)]

    def naive(payload: bytes, epoch_ms: int) -> str:
        cipher = DES3.new(hashlib.sha256(payload).digest()[:24], DES3.MODE_ECB)
        return cipher.encrypt(stamp_for(epoch_ms)).hex().upper()

    cases = {
        "repeated GET path": lambda f: [f(get_payload, now + i) for i in range(count)],
        "distinct bodies  ": lambda f: [f(body, now) for body in bodies],
    }
    for name, run in cases.items():
        base = timed(lambda run=run: run(naive), 1)
        ours = timed(lambda run=run: run(idempotency_key), 1)
        rate = count / ours
        verdict = "OK" if rate >= 20_000 else "MISSED"
        print(
            f"    {name}: {rate:10,.0f} keys/s  naive {count / base:10,.0f} keys/s  "
            f"ratio {base / ours:5.2f}x  (goal >= 20,000 keys/s) {verdict}"
        )


def main() -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").partition("\n")[0])
    parser.add_argument("--requests", type=int, default=1000, help="requests per side in (a)")
    parser.add_argument("--rounds", type=int, default=5, help="interleaved rounds in (a)")
    parser.add_argument("--keys", type=int, default=100_000, help="keys per case in (b)")
    parser.add_argument("--skip", default="", help="comma-separated parts to skip: a,b")
    args = parser.parse_args()
    skip = set(filter(None, args.skip.split(",")))
    load, cores = os.getloadavg()[0], os.cpu_count() or 1
    print(
        f"load average {load:.1f} on {cores} cores"
        + ("  (busy machine: absolute rates will read low)" if load > cores else "")
    )
    if "a" not in skip:
        bench_requests(args.requests, args.rounds)
    if "b" not in skip:
        bench_keys(args.keys)
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""Benchmark of the typed client (issue 3 item 11). Prints figures as ratios against baselines measured in
the same run; not a test.

(a) N sequential `GET /camera/list` through SamClient (Idempotency-Key, retries wrapper, JSON into models)
    against raw httpx.Client with the same headers precomputed, both on one server with kept-alive
    connections, in short blocks that alternate (ABBA) so both see the same load; the median pair ratio
    is the figure (goal: ratio <= 1.25), printed with the load average before and after;
(b) Idempotency-Keys computed per second on one core, for a repeated GET path and for distinct bodies,
    against the naive "new Triple DES cipher per key" (goal >= 20,000 keys/s).

    python bench/client.py [--requests 1000] [--block 20] [--keys 100000] [--skip a,b]
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


def load_average() -> float:
    return os.getloadavg()[0]


def bench_requests(n: int, block: int) -> None:
    pairs = max(n // block, 1)
    print(
        f"(a) {pairs * block} sequential GET /camera/list per side, {pairs} pairs of {block}-request"
        " blocks (raw and client alternating, ABBA order), one simulator on loopback"
    )
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
            keys = iter([idempotency_key(payload, now + i) for i in range(pairs * block + 100)])

            def baseline() -> object:
                response = raw.get("/camera/list", headers={**fixed, "Idempotency-Key": next(keys)})
                response.raise_for_status()
                return response.json()

            def client() -> object:
                return sam.list_cameras()

            for _ in range(20):  # warm both connections and caches
                baseline()
                client()
            load_before = load_average()
            raw_times: list[float] = []
            client_times: list[float] = []
            cpu = {baseline: 0.0, client: 0.0}  # this process's CPU: what each side costs beside the server

            def timed_cpu(fn: Callable[[], object]) -> float:
                started = time.process_time()
                wall = timed(fn, block)
                cpu[fn] += time.process_time() - started
                return wall

            # Short blocks, alternating which side goes first, so that both see the same load (a busy
            # neighbour's burst lands on both sides of a pair); the median pair ratio ignores the pairs
            # a burst split unevenly.
            for i in range(pairs):
                if i % 2:
                    client_times.append(timed_cpu(client))
                    raw_times.append(timed_cpu(baseline))
                else:
                    raw_times.append(timed_cpu(baseline))
                    client_times.append(timed_cpu(client))
            load_after = load_average()
    ratios = [c / r for c, r in zip(client_times, raw_times, strict=True)]
    ratio = statistics.median(ratios)
    low, _, high = statistics.quantiles(ratios, n=4) if len(ratios) > 1 else (ratio, ratio, ratio)
    raw_ms = statistics.median(raw_times) / block * 1000
    client_ms = statistics.median(client_times) / block * 1000
    print(f"    raw httpx.Client : {raw_ms:8.3f} ms/request (median block; the baseline, same run)")
    print(f"    SamClient        : {client_ms:8.3f} ms/request (median block)")
    raw_cpu, client_cpu = (cpu[fn] / (pairs * block) * 1e6 for fn in (baseline, client))
    print(
        f"    CPU in this process: raw {raw_cpu:.0f} us/request, client {client_cpu:.0f} us/request"
        f" (+{client_cpu - raw_cpu:.0f} us, {client_cpu / raw_cpu:.2f}x)"
    )
    spread = f"middle half {low:.2f}-{high:.2f}"
    print(f"    ratio client/raw : {ratio:8.3f}  (median of {pairs} pair ratios; {spread})")
    cores = os.cpu_count() or 1
    print(f"    load average     : {load_before:.1f} before, {load_after:.1f} after, on {cores} cores")
    verdict = "met" if ratio <= 1.25 else "MISSED"
    loads = f"load {load_before:.1f}-{load_after:.1f}"
    print(f"    goal client <= 1.25x raw httpx, same run: {verdict} ({ratio:.2f}x, {loads})")


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
    parser.add_argument("--block", type=int, default=20, help="requests per alternating block in (a)")
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
        bench_requests(args.requests, args.block)
    if "b" not in skip:
        bench_keys(args.keys)
    return 0


if __name__ == "__main__":
    sys.exit(main())

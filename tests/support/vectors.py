"""The shared Idempotency-Key vectors: `../shared/spec/idempotency-vectors.json` beside the clone, which wins,
else the copy committed in tests/data (a clone on its own still runs every test)."""

from __future__ import annotations

import json

from tests.support.processes import ROOT

SHARED = ROOT.parent / "shared" / "spec" / "idempotency-vectors.json"
COPY = ROOT / "tests" / "data" / "idempotency-vectors.json"


def load_vectors() -> list[dict]:
    return json.loads((SHARED if SHARED.exists() else COPY).read_text(encoding="utf-8"))


VECTORS = load_vectors()

"""The alarms' text search through the trigram index gives exactly what a plain filter gives, whatever the
upserts, rewrites and deletes that kept the index in step."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from core import read
from core.cache.db import open_cache
from core.cache.writes import activity_row, delete_missing, panel_row, upsert_activities, upsert_dicts
from core.cache.writes import write_transaction as write_transaction
from core.sqlite_lib import sqlite_utils

# Letters in both cases, non-ASCII ones, LIKE's and FTS5's special characters, quotes and spaces.
ALPHABET = 'aAéÉ %_\\"*-:('
TEXTS = st.one_of(st.none(), st.text(ALPHABET, max_size=8))
PANELS = {1: "North Gate", 2: "Depot 100%_off", 3: 'Éast "A"*'}


def ascii_lower(text: str) -> str:
    # SQLite's lower() and LIKE fold ASCII letters only: the semantics recent_alarms has always had.
    return "".join(c.lower() if c.isascii() else c for c in text)


def matches(needle: str, *fields: str | None) -> bool:
    return any(needle in ascii_lower(f) for f in fields if f is not None)


def cache(path: Path) -> sqlite_utils.Database:
    db = open_cache(path)
    upsert_dicts(
        db,
        "panels",
        [panel_row({"resourceId": r, "resourceName": n}) for r, n in PANELS.items()],
        "resource_id",
    )
    return db


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    batches=st.lists(
        st.lists(st.tuples(st.integers(0, 12), TEXTS, TEXTS, st.sampled_from([1, 2, 3, 4])), max_size=8),
        max_size=5,
    ),
    keep=st.frozensets(st.integers(0, 12)),
    data=st.data(),
)
@pytest.mark.parametrize("way", ["walk", "fetch", "probe"])
def test_text_search_equals_a_plain_filter(
    way: str,
    monkeypatch: pytest.MonkeyPatch,
    tmp_path_factory: pytest.TempPathFactory,
    batches: list[list[tuple[int, str | None, str | None, int]]],
    keep: frozenset[int],
    data: st.DataObject,
) -> None:
    # Mostly a piece of a text that is there, its letters' case flipped at random; else any text.
    pieces = [t for batch in batches for _, d, v, r in batch for t in (d, v, PANELS.get(r)) if t]
    query = data.draw(
        st.one_of(st.text(ALPHABET, min_size=1, max_size=5), *([st.sampled_from(pieces)] if pieces else [])),
        label="piece",
    )
    if len(query) > 1:
        start = data.draw(st.integers(0, len(query) - 1), label="start")
        query = query[start : start + data.draw(st.integers(1, 6), label="length")]
    query = "".join(c.swapcase() if data.draw(st.booleans(), label="flip") else c for c in query)
    if way != "walk":  # no budget for the newest-first walk: the text index answers
        monkeypatch.setattr(read.search, "SCAN_BUDGET_STEPS", 0)
        monkeypatch.setattr(read.search, "_STEPS_PER_TICK", 1)
        monkeypatch.setattr(read.search, "FETCH_CANDIDATES", 10**6 if way == "fetch" else 0)
    db = cache(tmp_path_factory.mktemp("text") / "c.db")
    final: dict[str, tuple[str | None, str | None, int]] = {}
    for batch in batches:  # later batches rewrite earlier events' text (update trigger)
        rows = []
        for n, description, name, rid in batch:
            a = {"eventId": f"e{n}", "activityTime": n, "eventType": "violation", "resourceId": rid}
            a |= {"description": description, "violationName": name}
            rows.append(activity_row(a, None, 1))
            final[f"e{n}"] = (description, name, rid)
        with write_transaction(db):
            upsert_activities(db, "activities", rows)
    kept = {f"e{n}" for n in keep}
    with write_transaction(db):  # and a full refresh deletes some (delete trigger)
        delete_missing(db, "activities", "event_id", kept)
    needle = query.strip().lower()
    expected = sorted(
        (e for e, (d, v, r) in final.items() if e in kept and matches(needle, d, v, PANELS.get(r))),
        key=lambda e: -int(e[1:]),
    )
    if not needle:
        expected = sorted((e for e in final if e in kept), key=lambda e: -int(e[1:]))
    found = read.recent_alarms(db, read.AlarmFilter(text=query), limit=100)
    assert [r.event_id for r in found] == expected
    db.execute("INSERT INTO activities_fts (activities_fts) VALUES ('integrity-check')")
    db.close()


def test_index_follows_rewrites_and_deletes(tmp_path: Path) -> None:
    db = cache(tmp_path / "c.db")

    def put(event_id: str, description: str) -> None:
        a = {"eventId": event_id, "activityTime": 1, "eventType": "violation", "description": description}
        with write_transaction(db):
            upsert_activities(db, "activities", [activity_row(a, 4, 1)])

    def search(text: str) -> list[str]:
        return [r.event_id for r in read.recent_alarms(db, read.AlarmFilter(text=text))]

    put("e1", "Smoke in hall")
    assert search("smoke") == ["e1"]
    put("e1", "Door forced")
    assert search("smoke") == [] and search("FORCED") == ["e1"]
    with write_transaction(db):
        delete_missing(db, "activities", "event_id", [])
    assert search("forced") == []
    assert search("north gate") == []  # panel names still match through the panels table
    put("e2", "x")
    db.execute("UPDATE activities SET resource_id = 1").connection.commit()
    assert search("north gate") == ["e2"] and search("th g") == ["e2"]


def test_short_text_falls_back_to_like(tmp_path: Path) -> None:
    db = cache(tmp_path / "c.db")
    a = {"eventId": "e1", "activityTime": 1, "eventType": "violation", "violationName": "Z9"}
    with write_transaction(db):
        upsert_activities(db, "activities", [activity_row(a, 4, 1)])
    assert [r.event_id for r in read.recent_alarms(db, read.AlarmFilter(text="z9"))] == ["e1"]
    assert [r.event_id for r in read.recent_alarms(db, read.AlarmFilter(text=" 9 "))] == ["e1"]


@pytest.mark.parametrize("way", ["walk", "fetch", "probe"])
def test_case_is_folded_for_ascii_letters_only_whichever_way(
    way: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    if way != "walk":
        monkeypatch.setattr(read.search, "SCAN_BUDGET_STEPS", 0)
        monkeypatch.setattr(read.search, "_STEPS_PER_TICK", 1)
        monkeypatch.setattr(read.search, "FETCH_CANDIDATES", 10**6 if way == "fetch" else 0)
    db = cache(tmp_path / "c.db")
    a = {"eventId": "e1", "activityTime": 1, "eventType": "violation", "description": "ÉCOLE Zone"}
    with write_transaction(db):
        upsert_activities(db, "activities", [activity_row(a, 4, 1)])

    def search(text: str) -> list[str]:
        return [r.event_id for r in read.recent_alarms(db, read.AlarmFilter(text=text))]

    assert search("COLE zONE") == ["e1"]
    # The text is lower-cased in Python, the row by SQLite (ASCII only): "É" in a row is never found. A quirk
    # of the LIKE semantics, kept as it was; the index, which would find it, must not change the answer.
    assert search("école") == [] and search("ÉCOLE") == []
    a = {"eventId": "e2", "activityTime": 2, "eventType": "violation", "description": "la grande école"}
    with write_transaction(db):
        upsert_activities(db, "activities", [activity_row(a, 4, 1)])
    assert search("ÉCOLE") == ["e2"]

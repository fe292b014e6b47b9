"""The simulator answers only the spec's fields by default; `--extensions` adds the documented extras; and
the product works against the spec-exact service (panel attribution, cameras without status)."""

from __future__ import annotations

import subprocess
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
import streamlit as st
from streamlit.testing.v1 import AppTest

from bot.render.lists import cameras_blocks
from core import read
from core.cache.db import open_cache
from core.client import SamClient
from core.notify.source import ServiceSource
from core.settings import Settings
from core.sync import run_sync
from tests.support import spec_check as S
from tests.support.narrow import known
from tests.support.processes import ROOT, Simulator, run_simulator, samops_cmd
from tests.support.spec_client import SpecClient

APP = ROOT / "dashboard" / "app.py"


@pytest.fixture(scope="module")
def exact() -> Iterator[Simulator]:
    """Spec-exact (the default), of this module only: the operations below write."""
    with run_simulator("--alarm-rate", "0", seed=11) as sim:
        yield sim


@pytest.fixture(scope="module")
def extended() -> Iterator[Simulator]:
    with run_simulator("--alarm-rate", "0", "--extensions", "all", seed=11) as sim:
        yield sim


def every_operation(sim: Simulator) -> list[tuple[int, Any, dict[str, Any]]]:
    """One successful call of each of the 21 operations: (number, answer, the spec's shape of it)."""
    with SpecClient(sim.base_url) as c:
        out: list[tuple[int, Any, dict[str, Any]]] = []
        login = c.login()
        out.append((1, login, S.LOGIN_TREE))
        rid = next(p["resourceId"] for p in login["resources"] if p["orgId"] == 1001)
        pairs = c.ok("GET", "/enterprise/bulk/get-organization-users")
        out.append((2, pairs, S.PANEL_USER_PAIR_TREE))
        out.append(
            (3, c.ok("POST", "/activities", {"resourceIds": [rid], "pageSize": 50}), S.ACTIVITY_PAGE_TREE)
        )
        users = c.ok("GET", f"/user/{login['userId']}/organization-users")
        out.append((12, users, S.USER_TREE))
        others = [u["userId"] for u in users if u["userId"] != login["userId"]]
        groups = [{"privilegeGroupId": g, "authorized": g % 2 == 0} for g in range(1, 7)]
        period = [{"dayOfWeek": 1, "start": 0, "end": 3_600_000}]
        body = {"userId": others[0], "authorizedResourceIds": [rid], "privilegeGroups": groups,
                "organizationId": 1001, "period": period}  # fmt: skip
        out.append(
            (4, c.ok("POST", "/user/privilege-groups-and-resources/add-or-update", body), S.OPERATION_RESULT)
        )
        out.append((5, c.ok("POST", "/enterprise/schedule/tasks/update", {"taskId": 100101, "taskName": "x"}),
                    S.OPERATION_RESULT))  # fmt: skip
        camera = c.ok(
            "POST", "/camera/add", {"deviceSerial": "EXACT-1", "name": "Exact cam", "securityCode": "S"}
        )
        out.append((6, camera, S.CAMERA))
        out.append((7, c.ok("POST", "/subscription/bill", {"subscriptionId": 10011}), S.BILL_TREE))
        phone = next(
            x["contactMedium"][0]["characteristic"]["phoneNumber"]
            for x in httpx.get(f"{sim.root_url}/_sim/customers").json()
            if x["orgId"] == 1001
        )
        out.append((8, c.ok("POST", "/customer/phone", {"phoneNumber": phone}), S.CUSTOMER_TREE))
        sensors = c.ok("GET", f"/panel/{rid}/sensor/list")
        out.append((18, sensors, S.SENSOR_GROUP_TREE))
        sensor = sensors["sensors"][0]["id"]
        out.append((9, c.ok("PUT", f"/panel/sensor/{sensor}/update-description", {"description": "d"}),
                    S.OPERATION_RESULT))  # fmt: skip
        pair = next(p for p in pairs if p["resourceUserResponseList"])
        victim = pair["resourceUserResponseList"][0]["userId"]
        body = {"resourceId": pair["resourceId"], "userId": victim}
        out.append((10, c.ok("DELETE", "/resource/user/delete", body), S.OPERATION_RESULT))
        out.append((11, c.ok("DELETE", "/user/delete", {"userId": others[-1]}), S.OPERATION_RESULT))
        out.append((13, c.ok("GET", "/user/email/demo@example.com"), S.USER_TREE))
        out.append((14, c.ok("GET", f"/panel/{rid}/controller/list"), S.CONTROLLER_TREE))
        out.append((15, c.ok("GET", f"/role/user/{login['userId']}/privilege-groups"),
                    S.USER_PRIVILEGE_RESULT_TREE))  # fmt: skip
        role = login["roles"][0]["roleId"]
        out.append((16, c.ok("GET", f"/role/{role}/privilege-groups"), S.ROLE_PRIVILEGE_GROUP))
        out.append((17, c.ok("GET", "/camera/list"), S.RESOURCE_SUMMARY_TREE))
        out.append((19, c.ok("GET", "/activities/controller/list"), S.DATA_LOG_ENTRY))
        history = c.ok("POST", "/resource/pushnotification/history", {"resourceId": rid, "pageSize": 50})
        out.append((20, history, S.ACTIVITY_PAGE_TREE))
        body = {"userId": login["userId"], "requestToken": "tok", "appId": "app"}
        out.append((21, c.ok("POST", "/devicetoken/addorupdate", body), S.OPERATION_RESULT))
        out.append((0, c.call("GET", "/camera/list", auth=False).json(), S.ERROR_BODY))  # an error body too
    return out


def test_every_operation_answers_only_the_spec_fields_by_default(exact: Simulator) -> None:
    answers = every_operation(exact)
    assert sorted(n for n, _, _ in answers) == list(range(22))
    problems = [p for n, answer, tree in answers for p in S.extra_fields(answer, tree, f"op{n}")]
    assert not problems, "\n".join(problems[:30])
    by_op = {n: answer for n, answer, _ in answers}
    assert by_op[3]["activities"] and by_op[20][0]["activities"]  # the checks above had records to see


def test_extensions_add_the_panel_id_and_camera_fields_never_secrets(extended: Simulator) -> None:
    by_op = {n: answer for n, answer, _ in every_operation(extended)}
    rid = by_op[3]["activities"][0]["resourceId"]
    assert {a["resourceId"] for a in by_op[3]["activities"]} == {rid}
    assert {a["resourceId"] for a in by_op[20][0]["activities"]} == {rid}
    cameras = by_op[17]
    assert all({"name", "status", "bindStatus", "sdCardStatus", "version"} <= c.keys() for c in cameras)
    assert not any({"securityCode", "ncCode"} & c.keys() for c in cameras)
    extras = S.extra_fields(cameras, S.RESOURCE_SUMMARY_TREE)
    assert extras and all(".status" in p or "." in p for p in extras)


def test_unknown_extension_is_a_usage_error() -> None:
    done = subprocess.run(samops_cmd("simulator", "--extensions", "camera-fields,telepathy"), cwd=ROOT,
                          capture_output=True, text=True, timeout=60)  # fmt: skip
    assert done.returncode == 2
    assert "telepathy" in done.stderr and "activity-resource-id" in done.stderr
    assert "Traceback" not in done.stderr


# --- the product against the spec-exact service ------------------------------------------------------


def inject(sim: Simulator, rid: int, count: int = 1) -> list[str]:
    body = {"resourceId": rid, "count": count, "violationType": "alarm"}
    return [a["eventId"] for a in httpx.post(f"{sim.root_url}/_sim/activities", json=body).json()]


def activity_requests(sim: Simulator) -> int:
    return sum(1 for r in httpx.get(f"{sim.root_url}/_sim/requests").json() if r["path"] == "/api/activities")


def attributed(db: Any, events: list[str]) -> dict[str, int]:
    marks = ", ".join("?" for _ in events)
    sql = f"SELECT event_id, resource_id FROM activities WHERE event_id IN ({marks})"
    return dict(db.execute(sql, events).fetchall())


def test_service_source_attributes_every_alarm_to_its_own_panel(tmp_path: Path, exact: Simulator) -> None:
    db = open_cache(tmp_path / "cache.db")
    with SamClient(Settings(base_url=exact.base_url, max_retries=0)) as client:
        login = client.login()
        panels = {known(p.resource_id): known(p.org_id) for p in login.panels}
        source = ServiceSource(client)
        since = int(time.time() * 1000)  # the notifier's baseline
        source.poll(db, since)  # the first poll reads the history
        before = activity_requests(exact)
        source.poll(db, since)
        assert activity_requests(exact) - before == len(set(panels.values()))  # idle: one per organization
        chosen = sorted(panels)[:: max(1, len(panels) // 4)][:4]
        expected = {event: rid for rid in chosen for event in inject(exact, rid, 2)}
        source.poll(db, since)
    assert attributed(db, list(expected)) == expected


def test_service_source_uses_a_panel_id_the_service_sends(tmp_path: Path, extended: Simulator) -> None:
    db = open_cache(tmp_path / "cache.db")
    with SamClient(Settings(base_url=extended.base_url, max_retries=0)) as client:
        panels = sorted(known(p.resource_id) for p in client.login().panels if p.org_id == 1001)
        source = ServiceSource(client)
        since = int(time.time() * 1000)  # the notifier's baseline
        source.poll(db, since)
        expected = {event: rid for rid in panels[:3] for event in inject(extended, rid)}
        before = activity_requests(extended)
        source.poll(db, since)
        # A probe per organization: the panel ids on the records spare every split.
        assert activity_requests(extended) - before == 2
    assert attributed(db, list(expected)) == expected


def test_cameras_without_status_show_what_the_summary_has(tmp_path: Path, exact: Simulator) -> None:
    db = open_cache(tmp_path / "cache.db")
    with SamClient(Settings(base_url=exact.base_url, max_retries=0)) as client:
        run_sync(db, client)
        live = client.list_cameras(org=1001)
    cams = read.camera_summary(db)
    seeded = [c for c in cams if c.name != "Exact cam"]  # another test adds one without a model
    assert seeded and all(c.name and c.brand and c.model for c in seeded)
    assert all(c.status is None and c.sd_card_status is None for c in cams)
    assert {c.enabled for c in cams} == {True, False}
    assert all(c.problems in ((), ("disabled",)) for c in cams)
    assert all(("disabled" in c.problems) == (c.enabled is False) for c in cams)
    kpis = read.kpis(db, int(time.time() * 1000))
    assert kpis.cameras_offline is None and kpis.sd_card_problems is None  # not reported, not "0 offline"

    from bot.commands.cameras import problems_of

    message = cameras_blocks([(c, problems_of(c)) for c in live], "")
    text, blocks = message.text, message.blocks
    shown = str(blocks)
    assert "not reported by the service" in shown
    assert "offline" not in shown
    assert all((c.resource_name or "") in shown for c in live)
    assert text.startswith(f"{len(live)} cameras")


def test_dashboard_cameras_page_hides_status_columns_it_has_no_values_for(
    tmp_path: Path, exact: Simulator, monkeypatch: pytest.MonkeyPatch
) -> None:
    db_path = tmp_path / "cache.db"
    with SamClient(Settings(base_url=exact.base_url, max_retries=0)) as client:
        run_sync(open_cache(db_path), client)
    monkeypatch.setenv("SAMOPS_DB", str(db_path))
    monkeypatch.delenv("SAMOPS_DASHBOARD_PASSWORD", raising=False)
    st.cache_data.clear()
    at = AppTest.from_file(str(APP), default_timeout=60)
    at.run()
    at.switch_page("views/cameras.py").run()
    assert not at.exception, [e.message for e in at.exception]
    shown = at.dataframe[0].value
    assert {"Camera", "Enabled", "Brand", "Model"} <= set(shown.columns)
    assert not {"Status", "Binding", "SD card"} & set(shown.columns)
    assert any("not reported by the service" in str(c.value) for c in at.caption)
    st.cache_data.clear()

"""SamClient against `samops simulator` over loopback HTTP: every operation into models, mutations,
scoping, pagination, re-login, retries under faults, a retried POST executed once, no secrets in logs."""

from __future__ import annotations

import logging
import time
import uuid
from collections.abc import Iterator
from datetime import datetime

import httpx
import pytest

from core.client import OPERATIONS, SamClient
from core.errors import BadRequestError, NotFoundError, ServerError
from core.models import (
    ActivityPage,
    Bill,
    Camera,
    CameraSummary,
    Controller,
    ControllerDataLogEntry,
    Customer,
    LoginResult,
    OperationResult,
    PanelUserPair,
    PrivilegeGroupGrant,
    RolePrivilegeGroup,
    SensorGroup,
    User,
    UserPrivileges,
)
from core.settings import Settings
from tests.support.narrow import known
from tests.support.processes import Simulator, run_simulator
from tests.support.threads import at_once

SEED = 7
ALL_GROUPS = range(1, 7)  # the simulator's privilege groups; operation 4 must list every one


def settings_for(sim: Simulator, **overrides: object) -> Settings:
    """Settings for `sim` whatever the environment says: the demo user, no default organization."""
    values: dict = {"screen_name": "demo", "password": "demo", "organization_id": None}
    return Settings(_env_file=None, base_url=sim.base_url, **(values | overrides))


def make_client(sim: Simulator, **overrides: object) -> SamClient:
    return SamClient(settings_for(sim, **overrides))


@pytest.fixture(scope="module")
def sim() -> Iterator[Simulator]:
    """A private simulator: these tests change data and faults."""
    with run_simulator("--alarm-rate", "0", seed=SEED) as simulator:
        yield simulator


@pytest.fixture
def sam(sim: Simulator) -> Iterator[SamClient]:
    with make_client(sim) as client:
        yield client


@pytest.fixture
def sleeps() -> list[float]:
    return []


def faults(sim: Simulator, **settings: float) -> None:
    httpx.post(f"{sim.root_url}/_sim/faults", json=settings).raise_for_status()


def recorded(sim: Simulator) -> list[dict]:
    return httpx.get(f"{sim.root_url}/_sim/requests").json()


def test_client_has_a_method_for_every_operation() -> None:
    assert len(OPERATIONS) == 21
    for name in OPERATIONS:
        assert callable(getattr(SamClient, name)), name


def test_login_is_typed_and_its_secrets_masked(sam: SamClient) -> None:
    login = sam.login()
    assert isinstance(login, LoginResult)
    assert login.organization_id_list() == [1001, 1002]
    assert login.panels and all(p.org_id in (1001, 1002) for p in login.panels)
    assert known(known(login.panels[0].resource_sensors)[0].sensors)[0].io_type
    token = known(login.token).get_secret_value()
    assert len(token) > 10 and token not in repr(login) and token not in str(login.to_json_dict())
    assert known(sam.login().token).get_secret_value() != token  # always a fresh login


def test_read_operations_round_trip_into_models(sam: SamClient) -> None:
    login = sam.login()
    panel = login.panels[0]
    pid = known(panel.resource_id)

    pairs = sam.get_organization_users()
    assert pairs and all(isinstance(p, PanelUserPair) for p in pairs)
    resource_users = [ru for p in pairs for ru in p.resource_user_response_list or []]
    assert resource_users and resource_users[0].pin_code is not None
    assert "pin_code=SecretStr('**********')" in repr(resource_users[0])

    page = sam.list_activities([pid], page_size=5)
    assert isinstance(page, ActivityPage) and page.page == 1 and page.page_size == 5
    assert known(page.total_records) >= len(known(page.activities)) > 0

    users = sam.list_organization_users(known(login.user_id))
    assert users and all(isinstance(u, User) for u in users)
    me = sam.get_user_by_email(known(login.email_address))
    assert me.user_id == login.user_id

    controllers = sam.list_panel_controllers(pid)
    assert controllers and all(isinstance(c, Controller) and c.resource_id == pid for c in controllers)
    sensors = sam.list_panel_sensors(pid)
    assert isinstance(sensors, SensorGroup) and sensors.sensors

    privileges = sam.get_user_privilege_groups(known(login.user_id))
    assert isinstance(privileges, UserPrivileges) and privileges.user_id == login.user_id
    role_groups = sam.get_role_privilege_groups(known(known(login.roles)[0].role_id))
    assert role_groups and all(isinstance(g, RolePrivilegeGroup) for g in role_groups)

    cameras = sam.list_cameras()
    assert cameras and all(isinstance(c, CameraSummary) for c in cameras)
    assert all(c.security_code is None and c.nc_code is None for c in cameras)
    assert {c.status for c in cameras} and cameras[0].resource_id

    log = sam.list_controller_data_log(resource_id=pid)
    assert all(isinstance(e, ControllerDataLogEntry) and e.resource_id == pid for e in log)

    history = sam.get_push_history(pid, page_size=3)
    assert len(history) == 1 and isinstance(history[0], ActivityPage)

    bills = sam.list_bills(10011)
    assert bills and all(isinstance(b, Bill) and b.state in {"paid", "settled"} for b in bills)
    assert isinstance(bills[0].bill_date, datetime) and known(known(bills[0].amount_due).value) > 0


def test_customers_come_back_masked(sam: SamClient) -> None:
    from simulator.data import Scale, build  # only to learn a seeded phone number; the call is real HTTP

    world = build(Scale(seed=SEED), int(time.time() * 1000))
    phone = world.customers[1001][0]["contactMedium"][0]["characteristic"]["phoneNumber"]
    customers = sam.find_customers(phone_number=phone, org=1001)
    assert len(customers) == 1 and isinstance(customers[0], Customer)
    assert "*" in known(customers[0].name)
    assert known(known(customers[0].contact_medium)[0].characteristic).phone_number == phone


def test_writes_are_visible_in_later_reads(sim: Simulator, sam: SamClient) -> None:
    login = sam.login()
    serial = f"T-{uuid.uuid4().hex[:10]}"
    camera = sam.add_camera(device_serial=serial, name="Lobby", security_code="ABC123", nc_code="NCX9")
    assert isinstance(camera, Camera) and known(camera.security_code).get_secret_value() == "ABC123"
    assert camera.resource_id in {c.resource_id for c in sam.list_cameras()}

    pid = known(login.panels[0].resource_id)
    sensor = known(sam.list_panel_sensors(pid).sensors)[0]
    result = sam.update_sensor_description(known(sensor.id), "Kapı sensörü İç Şube", locale="tr")
    assert isinstance(result, OperationResult) and result.success
    assert known(sam.list_panel_sensors(pid).sensors)[0].description == "Kapı sensörü İç Şube"

    me = known(login.user_id)
    other = next(u for u in sam.list_organization_users(me) if u.user_id != me)
    other_id = known(other.user_id)
    grants = [PrivilegeGroupGrant(privilege_group_id=g, authorized=g % 2 == 0) for g in ALL_GROUPS]
    results = sam.set_user_privileges(
        user_id=other_id,
        authorized_resource_ids=[pid],
        privilege_groups=grants,
        organization_id=1001,
        period=[{"dayOfWeek": 1, "start": 0, "end": 3_600_000}],
        org=1001,
    )
    assert results[0].success
    after = sam.get_user_privilege_groups(other_id, org=1001)
    assert {g.privilege_group_id: g.authority for g in known(after.user_privilege_groups)} == {
        g: g % 2 == 0 for g in ALL_GROUPS
    }
    assert known(known(after.user_privilege_validity).accessible_days)[0].day_of_week == 1

    task = httpx.get(f"{sim.root_url}/_sim/tasks").json()[0]
    assert sam.update_schedule_task(task["taskId"], task_name="Nightly arm", org=task["orgId"]).success
    stored = {t["taskId"]: t for t in httpx.get(f"{sim.root_url}/_sim/tasks").json()}
    assert stored[task["taskId"]]["taskName"] == "Nightly arm"

    assert sam.register_device_token(user_id=me, request_token="push-tok", app_id="phone-1").success
    assert any(t["appId"] == "phone-1" for t in httpx.get(f"{sim.root_url}/_sim/device-tokens").json())

    pair = next(p for p in sam.get_organization_users() if p.resource_user_response_list)
    victim = known(pair.resource_user_response_list)[0]
    assert sam.delete_resource_user(
        resource_id=known(pair.resource_id), user_id=known(victim.user_id)
    ).success
    remaining = next(p for p in sam.get_organization_users() if p.resource_id == pair.resource_id)
    assert victim.user_id not in {ru.user_id for ru in remaining.resource_user_response_list or []}

    assert sam.delete_user(other_id, org=1001).success
    with pytest.raises(NotFoundError):
        sam.get_user_by_email(known(other.email_address), org=1001)


def test_scoping_and_bad_input_become_typed_errors(sam: SamClient) -> None:
    with pytest.raises(NotFoundError) as caught:
        sam.list_cameras(org=1003)  # someone else's organization
    assert caught.value.status_code == 404 and "(GET /api/camera/list)" in str(caught.value)
    with pytest.raises(NotFoundError, match="emailAddress"):
        sam.get_user_by_email("nobody@example.com")
    login = sam.login()
    with pytest.raises(BadRequestError, match="privilegeGroups") as bad:
        sam.set_user_privileges(
            user_id=known(login.user_id),
            authorized_resource_ids=[],
            privilege_groups=[PrivilegeGroupGrant(privilege_group_id=1, authorized=True)],
            organization_id=1001,
        )
    assert bad.value.error and bad.value.method == "POST"


def test_iterators_walk_every_page(sim: Simulator, sam: SamClient) -> None:
    pid = known(sam.login().panels[1].resource_id)
    expected = {
        a["eventId"] for a in httpx.get(f"{sim.root_url}/_sim/activities").json() if a["resourceId"] == pid
    }
    total = sam.list_activities([pid], page_size=1).total_records
    walked = [a.event_id for a in sam.iter_activities([pid], page_size=7)]
    assert len(walked) == len(set(walked)) == total == len(expected)
    assert set(walked) == expected

    pushes = known(sam.get_push_history(pid, page_size=1)[0].total_records)
    walked_pushes = [a.event_id for a in sam.iter_push_history(pid, page_size=4)]
    assert len(walked_pushes) == len(set(walked_pushes)) == pushes > 4


def test_throttling_is_retried_with_retry_after(sim: Simulator, sleeps: list[float]) -> None:
    settings = settings_for(sim, max_retries=12, organization_id=1001)
    with SamClient(settings, sleep=sleeps.append) as sam:
        sam.login()
        faults(sim, throttleRate=0.3)
        try:
            results = [sam.list_cameras() for _ in range(15)]
        finally:
            faults(sim, throttleRate=0)
    assert all(results)
    assert sleeps and set(sleeps) == {1.0}  # the simulator's Retry-After: 1


def test_error_rate_retries_gateway_errors_only(sim: Simulator, sleeps: list[float]) -> None:
    settings = settings_for(sim, max_retries=12, organization_id=1001)
    outcomes = []
    with SamClient(settings, sleep=sleeps.append) as sam:
        sam.login()
        faults(sim, errorRate=0.5)
        try:
            for _ in range(20):
                try:
                    sam.list_cameras()
                    outcomes.append("ok")
                except ServerError as exc:
                    outcomes.append(exc.status_code)
        finally:
            faults(sim, errorRate=0)
    assert set(outcomes) <= {"ok", 500}  # 502/503 were retried away; a 500 is not retried
    assert "ok" in outcomes and sleeps


def test_a_post_whose_answer_was_lost_is_retried_and_executed_once(sim: Simulator) -> None:
    name = f"cam-{uuid.uuid4().hex[:8]}"

    def heal_then_sleep(seconds: float) -> None:
        faults(sim, latencyMs=0)  # the retry will be answered at once

    settings = settings_for(sim, timeout=0.8, organization_id=1001)
    with SamClient(settings, sleep=heal_then_sleep) as sam:
        sam.login()
        faults(sim, latencyMs=1500)  # the first attempt times out; the server still executes it later
        try:
            sam.add_camera(device_serial=f"S-{name}", name=name)
        finally:
            faults(sim, latencyMs=0)
        time.sleep(1.0)  # let the first, slow attempt reach the server's idempotency check
        assert [c.resource_name for c in sam.list_cameras()].count(name) == 1
    posts = [r for r in recorded(sim) if r["path"] == "/api/camera/add" and name in r["body"]]
    assert len(posts) >= 2  # the lost first attempt and at least one retry
    assert len({p["headers"]["idempotency-key"] for p in posts}) == 1
    assert len({p["body"] for p in posts}) == 1


def test_secrets_never_reach_the_logs(sam: SamClient, caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level(logging.DEBUG):
        login = sam.login()
        pins = [
            known(ru.pin_code).get_secret_value()
            for p in sam.get_organization_users()
            for ru in p.resource_user_response_list or []
        ]
        camera = sam.add_camera(
            device_serial=f"L-{uuid.uuid4().hex[:8]}", name="x", security_code="SECRET-SC-1"
        )
    text = caplog.text
    assert (
        "POST /api/auth/login -> 200" in text
        and "GET /api/enterprise/bulk/get-organization-users -> 200" in text
    )
    secrets = [
        known(login.token).get_secret_value(),
        known(login.mq_password).get_secret_value(),
        "SECRET-SC-1",
        *pins,
    ]
    secrets.append(known(camera.nc_code).get_secret_value())
    assert len(secrets) > 5
    for secret in filter(None, secrets):
        assert secret not in text
    assert '"password"' not in text and "Bearer" not in text


@pytest.fixture(scope="module")
def short_lived() -> Iterator[Simulator]:
    """Tokens that live 2 s, and pages numbered from 0."""
    with run_simulator("--alarm-rate", "0", "--token-ttl", "2", "--first-page", "0") as simulator:
        yield simulator


def login_count(sim: Simulator) -> int:
    return sum(r["path"] == "/api/auth/login" for r in recorded(sim))


def test_expired_token_is_renewed_once_for_all_threads(short_lived: Simulator) -> None:
    with make_client(short_lived) as sam:
        sam.list_cameras()
        assert login_count(short_lived) == 1
        time.sleep(2.2)
        errors: list[Exception] = []

        def worker() -> None:
            try:
                sam.list_cameras()
            except Exception as exc:  # noqa: BLE001  # a thread's failure, whatever it is, fails the test
                errors.append(exc)

        at_once(worker, 8)
        assert errors == []
        assert login_count(short_lived) == 2  # one re-login, not eight


def test_first_page_setting_matches_the_service(short_lived: Simulator) -> None:
    with make_client(short_lived, first_page=0) as sam:
        pid = known(sam.login().panels[0].resource_id)
        assert sam.list_activities([pid], page_size=3).page == 0
        total = sam.list_activities([pid], page_size=1).total_records
        walked = [a.event_id for a in sam.iter_activities([pid], page_size=10)]
        assert len(set(walked)) == len(walked) == total

"""Models: the spec's names as aliases, every field optional, unknown fields kept, secrets masked."""

from __future__ import annotations

import re
from datetime import datetime
from pathlib import Path

import pytest
from pydantic import SecretStr

from core.models import (
    ActivityPage,
    Bill,
    Camera,
    CameraSummary,
    LoginResult,
    PanelUserPair,
    RoleSummary,
    SamModel,
)
from core.settings import DOTENV, Settings
from tests.support.narrow import known

BULK_PAIR = {
    "resourceId": 7,
    "resourceModel": "AP-400",
    "resourceUserResponseList": [{"id": 1, "resourceId": 7, "userId": 9, "pinCode": "4321", "slotNo": "2"}],
    "organizationUserList": [
        {
            "userId": 9,
            "extendedRoles": [{"roleId": 3, "typePK": 11, "typeName": "org"}],
            "resources": [
                {
                    "resourceId": 7,
                    "childrenCoeffiecientSum": 2.5,
                    "parentResource": {"resourceId": 1, "resourceGroup": {"resourceGroupId": 4}},
                    "assets": [
                        {"id": 5, "dynamicFieldValues": [{"boolenValue": True, "dateValue": "2024-05-01"}]}
                    ],
                    "model": {"anything": "goes"},
                }
            ],
            "userPrivilegeGroups": [{"id": 2, "scopePk": 8, "user": {"userId": 9, "screenName": "x"}}],
            "userPrivilegeValidities": [{"id": 3, "period": "P1D", "validityStart": 1}],
            "notInTheSpec": {"kept": True},
        }
    ],
}


def test_bulk_pair_tree_parses_with_the_specs_spellings() -> None:
    pair = PanelUserPair.model_validate(BULK_PAIR)
    user = known(pair.organization_user_list)[0]
    resource = known(user.resources)[0]
    assert resource.children_coeffiecient_sum == 2.5
    assert known(known(resource.parent_resource).resource_group).resource_group_id == 4
    assert known(known(resource.assets)[0].dynamic_field_values)[0].boolen_value is True
    assert known(user.extended_roles)[0].type_pk == 11
    assert known(known(user.user_privilege_groups)[0].user).screen_name == "x"
    assert known(user.model_extra)["notInTheSpec"] == {"kept": True}
    dumped = pair.to_json_dict()
    assert dumped["organizationUserList"][0]["resources"][0]["childrenCoeffiecientSum"] == 2.5
    assert dumped["organizationUserList"][0]["notInTheSpec"] == {"kept": True}
    assert dumped["resourceUserResponseList"][0]["pinCode"] == "***"
    assert pair.to_json_dict(show_secrets=True)["resourceUserResponseList"][0]["pinCode"] == "4321"


def test_round_trip_by_alias_keeps_what_the_service_sent() -> None:
    assert PanelUserPair.model_validate(BULK_PAIR).to_json_dict(show_secrets=True) == BULK_PAIR


@pytest.mark.parametrize(
    ("model", "data", "secrets"),
    [
        (
            LoginResult,
            {"token": "tok-123", "mqPassword": "mq-pw-456", "mqUser": "mq"},
            ["tok-123", "mq-pw-456"],
        ),
        (Camera, {"securityCode": "SEC-789", "ncCode": "NC-012", "name": "cam"}, ["SEC-789", "NC-012"]),
        (CameraSummary, {"securityCode": "SEC-789", "resourceName": "cam"}, ["SEC-789"]),
        (PanelUserPair, BULK_PAIR, ["4321"]),
    ],
)
def test_secrets_never_show_in_repr_str_or_default_dump(
    model: type[SamModel], data: dict, secrets: list
) -> None:
    record = model.model_validate(data)
    for text in (
        repr(record),
        str(record),
        str(record.to_json_dict()),
        record.model_dump_json(by_alias=True),
    ):
        for secret in secrets:
            assert secret not in text


def test_every_field_is_optional_and_unknown_fields_are_kept() -> None:
    for model in (LoginResult, Camera, Bill, ActivityPage, PanelUserPair):
        assert model.model_validate({}).to_json_dict() == {}
    page = ActivityPage.model_validate({"page": 1, "activities": [{"eventId": "e1", "futureField": 3}]})
    assert known(page.activities)[0].event_id == "e1"
    assert page.to_json_dict()["activities"][0]["futureField"] == 3


def test_population_by_name_and_by_alias() -> None:
    # pydantic's synthesized __init__ names the aliases only; populate_by_name takes the field names too.
    by_name = RoleSummary(role_id=1, type_pk=2)  # pyright: ignore[reportCallIssue]
    assert by_name.to_json_dict() == {"roleId": 1, "typePK": 2}
    assert RoleSummary.model_validate({"roleId": 1, "typePK": 2}).type_pk == 2


def test_login_organizations_accept_string_ids() -> None:
    login = LoginResult.model_validate(
        {
            "organizations": [{"name": "A", "id": "101"}, {"name": "B", "id": "102"}],
            "organizationIds": [101, 102],
        }
    )
    assert login.organization_id_list() == [101, 102]
    assert LoginResult.model_validate({"organizationIds": [5]}).organization_id_list() == [5]


def test_bill_dates_parse_and_odd_formats_are_kept() -> None:
    bill = Bill.model_validate(
        {"billDate": "2024-05-01T10:00:00Z", "paymentDate": "05/2024", "state": "paid"}
    )
    assert isinstance(bill.bill_date, datetime)
    assert bill.payment_date == "05/2024"


def test_settings_read_environment_and_dotenv(monkeypatch: pytest.MonkeyPatch, tmp_path) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv(DOTENV)  # this folder's .env, as a user's (the suite reads none: tests/conftest.py)
    (tmp_path / ".env").write_text("SAM_PASSWORD=from-dotenv\nSAM_MAX_RETRIES=5\n")
    monkeypatch.setenv("SAM_BASE_URL", "http://127.0.0.1:1/api")
    monkeypatch.setenv("SAM_ORGANIZATION_ID", "42")
    monkeypatch.setenv("SAMOPS_DATA_DIR", str(tmp_path / "data"))
    settings = Settings()
    assert settings.base_url == "http://127.0.0.1:1/api"
    assert settings.organization_id == 42
    assert settings.max_retries == 5
    assert isinstance(settings.password, SecretStr)
    assert settings.password.get_secret_value() == "from-dotenv"
    assert "from-dotenv" not in repr(settings)
    assert settings.db_path == tmp_path / "data" / "cache.db"


def test_settings_defaults(monkeypatch: pytest.MonkeyPatch, tmp_path) -> None:
    monkeypatch.chdir(tmp_path)
    for name in ("SAM_BASE_URL", "SAM_ORGANIZATION_ID", "SAM_MAX_RETRIES", "SAM_FIRST_PAGE", "SAMOPS_DB"):
        monkeypatch.delenv(name, raising=False)
    settings = Settings()
    assert settings.base_url == "http://127.0.0.1:8080/api"
    assert (settings.max_retries, settings.first_page, settings.page_size) == (2, 1, 100)
    assert settings.organization_id is None


ROOT = Path(__file__).resolve().parents[3]


def test_env_example_documents_every_variable_of_the_architecture() -> None:
    documented = set(
        re.findall(r"`((?:SAM|SAMOPS|SLACK)_[A-Z_]+)`", (ROOT / "docs/architecture.md").read_text())
    )
    lines = (ROOT / ".env.example").read_text().splitlines()
    listed = {line.split("=", 1)[0]: i for i, line in enumerate(lines) if re.match(r"[A-Z_]+=", line)}
    assert documented and documented <= set(listed)
    for name, index in listed.items():
        above = next(line for line in reversed(lines[:index]) if not re.match(r"[A-Z_]+=", line))
        assert above.startswith("# "), f"{name} has no comment"


def test_env_example_loads_as_the_defaults(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv(DOTENV)
    for name in ("SAM_BASE_URL", "SAM_ORGANIZATION_ID", "SAMOPS_DB", "SAMOPS_DATA_DIR", "SAM_PASSWORD"):
        monkeypatch.delenv(name, raising=False)
    (tmp_path / ".env").write_text((ROOT / ".env.example").read_text())
    settings = Settings()
    assert settings.organization_id is None and settings.db is None
    assert settings.base_url == "http://127.0.0.1:8080/api" and settings.password.get_secret_value() == "demo"

"""The camera form: fields checked, the codes kept out of summaries and reprs."""

from __future__ import annotations

from bot.forms.camera import camera_from_values


def test_camera_form_checks_fields_and_keeps_codes_out_of_summary_and_repr() -> None:
    form, errors = camera_from_values(
        {
            "name": "Lobby",
            "brand": "Hikvision",
            "serial": "D123",
            "security_code": "SEKRET1",
            "nc_code": "NCX9",
        }
    )
    assert errors == {} and form is not None
    assert "SEKRET1" not in form.summary() + repr(form) and "NCX9" not in form.summary() + repr(form)
    _, errors = camera_from_values({"name": " ", "brand": "", "serial": "a b", "subscription": "x"})
    assert set(errors) == {"name", "brand", "serial", "security_code", "subscription"}

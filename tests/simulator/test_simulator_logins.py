"""The simulator's `POST /_sim/logins` control: refusing ends every session and answers every login 401, as a
service whose account password was changed; accepting again lets the same credentials in. Through the
simulator as a real process, over plain HTTP."""

from __future__ import annotations

import httpx

from tests.support.processes import run_simulator

LOGIN = {"screenName": "demo", "password": "demo"}


def test_refused_logins_end_sessions_until_accepted_again() -> None:
    with run_simulator("--orgs", "1", "--panels", "2") as sim, httpx.Client(timeout=10) as http:
        session = http.post(f"{sim.base_url}/auth/login", json=LOGIN).json()
        token = session["token"]
        listing = {"page": 1, "pageSize": 1}
        bearer = {"Authorization": f"Bearer {token}", "OrganizationId": str(session["organizationIds"][0])}
        assert http.post(f"{sim.base_url}/activities", json=listing, headers=bearer).status_code == 200

        assert http.post(f"{sim.root_url}/_sim/logins", json={"refuse": True}).json() == {"refuse": True}
        assert http.post(f"{sim.base_url}/activities", json=listing, headers=bearer).status_code == 401
        refused = http.post(f"{sim.base_url}/auth/login", json=LOGIN)
        assert refused.status_code == 401 and "invalid screenName or password" in refused.text

        assert http.post(f"{sim.root_url}/_sim/logins", json={"refuse": "yes"}).status_code == 400
        http.post(f"{sim.root_url}/_sim/logins", json={"refuse": False})
        again = http.post(f"{sim.base_url}/auth/login", json=LOGIN)
        assert again.status_code == 200 and again.json()["token"] != token

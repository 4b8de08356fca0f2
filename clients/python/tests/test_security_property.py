"""The property test of issue 41 against the real binary: random users files (roles, grants,
row rules with $user), random users and requests (get, fetch with sort and limit, count,
saves, live subscriptions), every answer and notification checked against an independent
evaluation of the rules here: 0 objects, IDs or change entries delivered that the rules
forbid, and 0 permitted objects withheld.

One server; each group of cases writes a new users file and reloads it with SIGHUP.
`DOCSTORE_SECURITY_CASES` sets the number of cases (default 1000), `DOCSTORE_SECURITY_SEED`
the seed.
"""

from __future__ import annotations

import json
import os
import random
import signal
import time
from typing import Any, Callable, Dict, List, Optional, Tuple

import pytest

from security_support import secret_hash, write_model, write_users
from support import RawConnection

CASES = int(os.environ.get("DOCSTORE_SECURITY_CASES", "1000"))
SEED = int(os.environ.get("DOCSTORE_SECURITY_SEED", str(random.randrange(1 << 30))))
CASES_PER_FILE = 20
NAMES = ["ann", "bob", "cy", "dee"]
TEAMS = ["red", "blue", None]

Obj = Dict[str, Any]

# Rules: (the server's text, the same rule evaluated here). `u` is the user's name.
NOTE_RULES: List[Tuple[str, Callable[[Obj, str], bool]]] = [
    ("owner == $user", lambda o, u: o["owner"] == u),
    ("level > 5", lambda o, u: o["level"] > 5),
    ("team == 'red'", lambda o, u: o["team"] == "red"),
    ("owner == $user OR level >= 8", lambda o, u: o["owner"] == u or o["level"] >= 8),
    ("owner != $user AND level < 4", lambda o, u: o["owner"] != u and o["level"] < 4),
    ("team == nil", lambda o, u: o["team"] is None),
]
MEMO_RULES: List[Tuple[str, Callable[[Obj, str], bool]]] = [
    ("owner == $user", lambda o, u: o["owner"] == u),
    ("public == YES", lambda o, u: o["public"] is True),
    ("public == YES OR owner == $user", lambda o, u: o["public"] is True or o["owner"] == u),
]
RULES = {"Note": NOTE_RULES, "Memo": MEMO_RULES}
OPERATIONS = ["read", "insert", "update", "delete"]
# Fetch predicates the client adds (server text, evaluated here).
FETCH_PREDICATES = {
    "Note": [(None, lambda o: True), ("level < 6", lambda o: o["level"] < 6), ("owner == 'bob'", lambda o: o["owner"] == "bob")],
    "Memo": [(None, lambda o: True), ("public == NO", lambda o: o["public"] is False)],
}


class Policy:
    """A user's grants, evaluated here: the OR of the roles and the grants' rules."""

    def __init__(self, name: str, roles: List[str], grants: List[Tuple[str, List[str], Optional[int]]]) -> None:
        self.name, self.roles, self.grants = name, roles, grants

    def allows(self, operation: str, entity: str, obj: Obj) -> bool:
        if "writer" in self.roles or "admin" in self.roles:
            return True
        if "reader" in self.roles and operation == "read":
            return True
        for grant_entity, operations, rule in self.grants:
            if grant_entity == entity and operation in operations:
                if rule is None or RULES[entity][rule][1](obj, self.name):
                    return True
        return False

    def may_at_all(self, operation: str, entity: str) -> bool:
        if "writer" in self.roles or "admin" in self.roles or ("reader" in self.roles and operation == "read"):
            return True
        return any(e == entity and operation in ops for e, ops, _ in self.grants)

    def entry(self) -> Dict[str, Any]:
        grants = []
        for entity, operations, rule in self.grants:
            grant: Dict[str, Any] = {"entity": entity, "operations": operations}
            if rule is not None:
                grant["rule"] = RULES[entity][rule][0]
            grants.append(grant)
        return {"name": self.name, "secret": secret_hash("pw-" + self.name), "roles": self.roles, "grants": grants}


def random_policy(rng: random.Random, name: str) -> Policy:
    roles = [rng.choice(["reader", "writer"])] if rng.random() < 0.15 else []
    grants = []
    for _ in range(rng.randrange(0, 4)):
        entity = rng.choice(["Note", "Memo"])
        operations = sorted(rng.sample(OPERATIONS, rng.randrange(1, 5)), key=OPERATIONS.index)
        rule = None if rng.random() < 0.2 else rng.randrange(len(RULES[entity]))
        grants.append((entity, operations, rule))
    return Policy(name, roles, grants)


class World:
    """The objects as the test knows them: by ID, with entity, version and values; and the
    last change applied (its object before and after)."""

    def __init__(self) -> None:
        self.objects: Dict[str, Obj] = {}
        self.last_change: Dict[str, Any] = {}

    def of(self, entity: str) -> List[str]:
        return [i for i, o in self.objects.items() if o["entity"] == entity]


def rpc(connection: RawConnection, method: str, params: Any = None, notifications: Optional[list] = None) -> Dict[str, Any]:
    message: Dict[str, Any] = {"jsonrpc": "2.0", "id": 1, "method": method}
    if params is not None:
        message["params"] = params
    connection.send_line(message)
    while True:
        line = connection.read_line()
        assert line is not None, "the connection closed while waiting for %s" % method
        answer = json.loads(line)
        if "id" in answer:
            return answer
        assert notifications is not None, "an unexpected notification: %r" % answer
        notifications.append(answer)


def values_of(entity: str, values: Dict[str, Any]) -> Obj:
    keys = ["owner", "team", "level", "title"] if entity == "Note" else ["owner", "public", "text"]
    return {k: values.get(k) for k in keys}


@pytest.mark.deadline(600)
def test_random_users_and_requests_see_exactly_what_the_rules_allow(start_server, tmp_path):
    rng = random.Random(SEED)
    print("seed", SEED, "cases", CASES)
    model = write_model(tmp_path)
    users_path = tmp_path / "users.json"
    admin_entry = {"name": "root", "secret": secret_hash("pw-root"), "roles": ["admin"], "grants": []}
    write_users(users_path, [admin_entry])
    server = start_server(model=model, extra_args=["--users", str(users_path)])
    admin = RawConnection(server.host, server.port)
    assert "result" in rpc(admin, "hello", {"user": "root", "secret": "pw-root", "client": "root"})
    world = World()
    inserts = []
    for index in range(40):
        if index % 3 == 2:
            values = {"owner": rng.choice(NAMES), "public": rng.random() < 0.5, "text": "m%03d" % index}
            inserts.append({"id": "t%d" % index, "entity": "Memo", "values": values})
        else:
            values = {"owner": rng.choice(NAMES), "team": rng.choice(TEAMS), "level": rng.randrange(10), "title": "n%03d" % index}
            inserts.append({"id": "t%d" % index, "entity": "Note", "values": values})
    answer = rpc(admin, "save", {"insert": inserts})
    for insert in inserts:
        world.objects[answer["result"]["ids"][insert["id"]]] = dict(values_of(insert["entity"], insert["values"]), entity=insert["entity"], version=1)

    checked = {"get": 0, "fetch": 0, "count": 0, "save": 0, "notification": 0}
    generation = 0
    case = 0
    while case < CASES:
        generation += 1
        policies = {name: random_policy(rng, name) for name in NAMES}
        probe = {"name": "probe%d" % generation, "secret": secret_hash("pw-probe"), "roles": [], "grants": []}
        write_users(users_path, [admin_entry, probe] + [p.entry() for p in policies.values()])
        os.kill(server.pid, signal.SIGHUP)
        wait_for_reload(server, probe["name"])
        connections = {}
        for name in NAMES:
            connections[name] = RawConnection(server.host, server.port)
            assert "result" in rpc(connections[name], "hello", {"user": name, "secret": "pw-" + name}), name
        # A live subscription of one user, checked at the end of the group.
        watcher = rng.choice(NAMES)
        watched_entity = rng.choice(["Note", "Memo", None])
        subscription = RawConnection(server.host, server.port)
        assert "result" in rpc(subscription, "hello", {"user": watcher, "secret": "pw-" + watcher})
        sub_params = {"entity": watched_entity} if watched_entity else {}
        sub_answer = rpc(subscription, "subscribe", sub_params)
        expected_notifications: List[Dict[str, Any]] = []
        subscribed = "result" in sub_answer
        if not subscribed:
            assert sub_answer["error"]["code"] == -32011
            assert watched_entity is not None and not policies[watcher].may_at_all("read", watched_entity)
        for _ in range(min(CASES_PER_FILE, CASES - case)):
            case += 1
            name = rng.choice(NAMES)
            policy, connection = policies[name], connections[name]
            kind = rng.choice(["get", "fetch", "count", "save", "save", "admin-save"])
            if kind == "get":
                ids = rng.sample(list(world.objects), rng.randrange(1, 12))
                result = rpc(connection, "get", {"ids": ids})["result"]
                expected = {i for i in ids if policy.allows("read", world.objects[i]["entity"], world.objects[i])}
                returned = {o["id"] for o in result["objects"] if o is not None}
                assert returned == expected, (SEED, case, name)
                assert set(result["missing"]) == set(ids) - expected
                checked["get"] += 1
            elif kind in ("fetch", "count"):
                entity = rng.choice(["Note", "Memo"])
                text, test = rng.choice(FETCH_PREDICATES[entity])
                params: Dict[str, Any] = {"entity": entity}
                if text:
                    params["predicate"] = text
                sort_key = "level" if entity == "Note" else "owner"
                tie = "title" if entity == "Note" else "text"
                if kind == "count":
                    params["resultType"] = "count"
                else:
                    params["sort"] = [{"key": sort_key}, {"key": tie}]
                    params["limit"] = rng.randrange(1, 8)
                answer = rpc(connection, "fetch", params)
                if not policy.may_at_all("read", entity):
                    assert answer["error"]["code"] == -32011
                    continue
                visible = [(i, o) for i, o in world.objects.items()
                           if o["entity"] == entity and test(o) and policy.allows("read", entity, o)]
                if kind == "count":
                    assert answer["result"]["count"] == len(visible), (SEED, case, name, params)
                    checked["count"] += 1
                else:
                    visible.sort(key=lambda p: (p[1][sort_key], p[1][tie]))
                    expected_ids = [i for i, _ in visible[: params["limit"]]]
                    assert [o["id"] for o in answer["result"]["objects"]] == expected_ids, (SEED, case, name, params)
                    checked["fetch"] += 1
            else:
                saver = policies[name] if kind == "save" else None
                conn = connection if kind == "save" else admin
                save, changes = random_save(rng, world)
                answer = rpc(conn, "save", save)
                allowed = saver is None or save_allowed(saver, world, changes)
                if allowed:
                    assert "result" in answer, (SEED, case, name, save, answer)
                    apply(world, changes, answer["result"])
                    if subscribed:
                        record = expected_record(policies[watcher], watched_entity, changes, world)
                        if record is not None:
                            expected_notifications.append(record)
                else:
                    assert answer.get("error", {}).get("code") == -32011, (SEED, case, name, save, answer)
                checked["save"] += 1
        if subscribed:
            # A last commit every watcher sees (its own?) is not guaranteed: compare what arrived.
            received = []
            deadline = time.monotonic() + 5
            while len(received) < len(expected_notifications) and time.monotonic() < deadline:
                line = try_read(subscription, max(0.01, deadline - time.monotonic()))
                if line is None:
                    break
                received.append(json.loads(line)["params"])
            extra = try_read(subscription, 0.2)
            assert extra is None, "a notification the rules forbid: %s" % extra
            assert len(received) == len(expected_notifications), (SEED, generation, received, expected_notifications)
            for got, want in zip(received, expected_notifications):
                assert sorted(o["id"] for o in got["inserted"]) == sorted(want["inserted"]), (SEED, got, want)
                assert sorted(o["id"] for o in got["updated"]) == sorted(want["updated"]), (SEED, got, want)
                assert sorted(got["deleted"]) == sorted(want["deleted"]), (SEED, got, want)
                assert sorted(got.get("removed", [])) == sorted(want["removed"]), (SEED, got, want)
                checked["notification"] += 1
        for connection in list(connections.values()) + [subscription]:
            connection.close()
    print("checked", checked)
    assert checked["get"] > 0 and checked["fetch"] > 0 and checked["save"] > 0


def try_read(connection: RawConnection, timeout: float) -> Optional[bytes]:
    """A line, or None when none comes within `timeout` (or the connection closed)."""
    try:
        return connection.read_line(timeout=timeout)
    except (TimeoutError, OSError):
        return None


def wait_for_reload(server, probe: str) -> None:
    deadline = time.monotonic() + 10
    delay = 0.05
    while True:
        connection = RawConnection(server.host, server.port)
        answer = rpc(connection, "hello", {"user": probe, "secret": "pw-probe"})
        connection.close()
        if "result" in answer:
            return
        assert time.monotonic() < deadline, "the users file was not reloaded"
        delay = min(delay * 2, 2.0)
        time.sleep(delay + 0.05)


def random_save(rng: random.Random, world: World):
    """A save of one change: an update (level, owner, team or public), an insert or a delete."""
    kind = rng.choice(["update", "update", "update", "insert", "delete"])
    if kind == "insert" or len(world.objects) < 10:
        entity = rng.choice(["Note", "Memo"])
        if entity == "Note":
            values = {"owner": rng.choice(NAMES), "team": rng.choice(TEAMS), "level": rng.randrange(10), "title": "i%06d" % rng.randrange(10 ** 6)}
        else:
            values = {"owner": rng.choice(NAMES), "public": rng.random() < 0.5, "text": "i%06d" % rng.randrange(10 ** 6)}
        return {"insert": [{"id": "x", "entity": entity, "values": values}]}, ("insert", entity, values)
    target = rng.choice(list(world.objects))
    obj = world.objects[target]
    if kind == "delete":
        return {"delete": [{"id": target, "version": obj["version"]}]}, ("delete", target, None)
    if obj["entity"] == "Note":
        key = rng.choice(["level", "owner", "team"])
        value = {"level": rng.randrange(10), "owner": rng.choice(NAMES), "team": rng.choice(TEAMS)}[key]
    else:
        key = rng.choice(["owner", "public"])
        value = rng.choice(NAMES) if key == "owner" else (not obj["public"])
    return {"update": [{"id": target, "version": obj["version"], "values": {key: value}}]}, ("update", target, {key: value})


def save_allowed(policy: Policy, world: World, change) -> bool:
    kind, target, values = change
    if kind == "insert":
        entity = target
        return policy.allows("insert", entity, dict(values_of(entity, values)))
    obj = world.objects[target]
    if kind == "delete":
        return policy.allows("delete", obj["entity"], obj)
    after = dict(obj, **values)
    return policy.allows("update", obj["entity"], obj) and policy.allows("update", obj["entity"], after)


def apply(world: World, change, result) -> None:
    kind, target, values = change
    change_record = {"kind": kind}
    if kind == "insert":
        new_id = result["ids"]["x"]
        world.objects[new_id] = dict(values_of(target, values), entity=target, version=1)
        change_record.update(id=new_id, before=None, after=dict(world.objects[new_id]))
    elif kind == "delete":
        change_record.update(id=target, before=dict(world.objects[target]), after=None)
        del world.objects[target]
    else:
        before = dict(world.objects[target])
        obj = world.objects[target]
        changed = any(obj[k] != v for k, v in values.items())
        obj.update(values)
        if changed:
            obj["version"] += 1
        change_record.update(id=target, before=before, after=dict(obj), changed=changed)
    world.last_change = change_record


def expected_record(policy: Policy, watched: Optional[str], change, world: World):
    record = world.last_change
    obj = record["after"] or record["before"]
    entity = obj["entity"]
    if watched is not None and entity != watched:
        return None
    if record["kind"] == "update" and not record.get("changed", True):
        return None  # a save that changes nothing is no commit
    readable_before = record["before"] is not None and policy.allows("read", entity, record["before"])
    readable_after = record["after"] is not None and policy.allows("read", entity, record["after"])
    out = {"inserted": [], "updated": [], "deleted": [], "removed": []}
    if record["kind"] == "insert" and readable_after:
        out["inserted"].append(record["id"])
    elif record["kind"] == "update":
        if readable_after:
            out["updated"].append(record["id"])
        elif readable_before:
            out["removed"].append(record["id"])
    elif record["kind"] == "delete" and readable_before:
        out["deleted"].append(record["id"])
    return out if any(out.values()) else None

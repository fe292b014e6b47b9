"""The storage boundary (issue 21): every SQL statement of the product lives in core/cache (writes) or
core/read (reads), and bot/, dashboard/ and samops/ reach them only through the public faces of those two
packages (their `__init__.py`, with an explicit `__all__`).

Read from the source with `ast`, so a module that is never imported by a test is held to it too:
- no call of `.execute`, `.executemany`, `.executescript` or `.query` outside those two folders, no
  connection opened there (`sqlite3.connect`, `sqlite_utils.Database`) nor its rows read (`.cursor()`,
  `.fetchall()`…), and no string that begins an SQL statement (English prose, as in a docstring, is not one);
- in bot/, dashboard/ and samops/, no import of a module inside core.cache or core.read, and no name from
  them (imported, or read as `cache.X` after `from core import cache`) that their `__all__` does not list.
The simulator is a separate service with its own storage and is not checked.
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.support.processes import ROOT

PRODUCT = ("bot", "core", "dashboard", "samops")
STORAGE = ("core/cache", "core/read")  # where SQL may be
CLIENTS = ("bot", "dashboard", "samops")  # who may see only the faces
FACES = ("core.cache", "core.read")
SQL_CALLS = frozenset({"execute", "executemany", "executescript", "query"})
# Holding a connection of one's own is the other way round the faces: opening one, or reading its rows.
CONNECTION_CALLS = frozenset({"cursor", "fetchall", "fetchone", "fetchmany"})
OPENERS = frozenset({("sqlite3", "connect"), ("sqlite_utils", "Database"), ("apsw", "Connection")})

# The start of an SQL statement, in the house's spelling (keywords in capitals): a string that begins so is
# SQL, while prose that merely mentions "select" or "delete from the cache" is not.
SQL_STATEMENT = re.compile(
    r"\s*(?:SELECT\s|INSERT\s+(?:OR\s+[A-Z]+\s+)?INTO\s|REPLACE\s+INTO\s|UPDATE\s+\S+\s+SET\s|DELETE\s+FROM\s"
    r"|CREATE\s+(?:TEMP\s+|TEMPORARY\s+|UNIQUE\s+|VIRTUAL\s+)?(?:TABLE|INDEX|VIEW|TRIGGER)\s"
    r"|DROP\s+(?:TABLE|INDEX|VIEW|TRIGGER)\s|ALTER\s+TABLE\s|PRAGMA\s+\w|WITH\s+(?:RECURSIVE\s+)?\w+\s+AS\s*\("
    r"|BEGIN(?:\s+(?:IMMEDIATE|EXCLUSIVE|DEFERRED))?\s*;?\s*$|COMMIT\s*;?\s*$|ROLLBACK\b|VACUUM\b|ATTACH\s)"
)


@dataclass(frozen=True)
class Finding:
    path: str
    line: int
    what: str

    def __str__(self) -> str:
        return f"{self.path}:{self.line}: {self.what}"


def modules(root: Path, packages: tuple[str, ...]) -> list[Path]:
    return sorted(p for package in packages for p in (root / package).rglob("*.py"))


def _in(path: str, folders: tuple[str, ...]) -> bool:
    return any(path == f or path.startswith(f + "/") for f in folders)


def _text_of(node: ast.expr) -> str | None:
    """The literal text of a string or an f-string (each `{…}` as a placeholder)."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    if isinstance(node, ast.JoinedStr):
        return "".join(_text_of(v) or "x" for v in node.values)
    return None


def _opens_or_reads_a_connection(func: ast.expr) -> bool:
    if not isinstance(func, ast.Attribute):
        return False
    if func.attr in CONNECTION_CALLS:
        return True
    return isinstance(func.value, ast.Name) and (func.value.id, func.attr) in OPENERS


def sql_findings(source: str, path: str) -> list[Finding]:
    """SQL held by the module at `path` (relative, with slashes): calls that run it and statements."""
    found: list[Finding] = []
    for node in ast.walk(ast.parse(source)):
        if (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and node.func.attr in SQL_CALLS
        ):
            found.append(Finding(path, node.lineno, f"calls .{node.func.attr}()"))
        elif isinstance(node, ast.Call) and _opens_or_reads_a_connection(node.func):
            found.append(Finding(path, node.lineno, f"holds a connection: {ast.unparse(node.func)}()"))
        elif isinstance(node, ast.Constant | ast.JoinedStr):
            text = _text_of(node)
            if text is not None and SQL_STATEMENT.match(text):
                found.append(Finding(path, node.lineno, f"holds SQL: {text.strip()[:60]!r}"))
    return found


def public_names(root: Path, face: str) -> frozenset[str]:
    """The `__all__` of a face, read from its source."""
    tree = ast.parse((root / face.replace(".", "/") / "__init__.py").read_text())
    for node in tree.body:
        if isinstance(node, ast.Assign) and any(
            isinstance(t, ast.Name) and t.id == "__all__" for t in node.targets
        ):
            value: list[str] = ast.literal_eval(node.value)
            return frozenset(value)
    raise AssertionError(f"{face} has no __all__")


def import_findings(source: str, path: str, public: dict[str, frozenset[str]]) -> list[Finding]:
    """Imports of core.cache / core.read by the module at `path` that pass by their public face."""
    found: list[Finding] = []
    # local name -> face: `from core import cache`, `import core.read as r`
    aliases: dict[str, str] = {}
    tree = ast.parse(source)

    def check(face: str, name: str, line: int) -> None:
        if name.startswith("_") or name not in public[face]:
            found.append(Finding(path, line, f"uses {face}.{name}, which {face}.__all__ does not list"))

    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module:
            if node.module in public:
                for alias in node.names:
                    check(node.module, alias.name, node.lineno)
            elif any(node.module.startswith(face + ".") for face in public):
                found.append(Finding(path, node.lineno, f"imports from {node.module}, inside a face"))
            elif node.module == "core":
                for alias in node.names:
                    if f"core.{alias.name}" in public:
                        aliases[alias.asname or alias.name] = f"core.{alias.name}"
        elif isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name in public:
                    aliases[alias.asname or alias.name] = alias.name
                    if alias.asname is None:
                        aliases["core"] = "core"  # `import core.cache`: read as core.cache.X
                elif any(alias.name.startswith(face + ".") for face in public):
                    found.append(Finding(path, node.lineno, f"imports {alias.name}, inside a face"))
    for node in ast.walk(tree):
        if not isinstance(node, ast.Attribute):
            continue
        if isinstance(node.value, ast.Name) and aliases.get(node.value.id) in public:
            check(aliases[node.value.id], node.attr, node.lineno)
        elif (
            isinstance(node.value, ast.Attribute)
            and isinstance(node.value.value, ast.Name)
            and aliases.get(node.value.value.id) == "core"
            and f"core.{node.value.attr}" in public
        ):
            check(f"core.{node.value.attr}", node.attr, node.lineno)
    return found


def tree_findings(root: Path) -> list[Finding]:
    """Every breach of the boundary in the product under `root`."""
    public = {face: public_names(root, face) for face in FACES}
    found: list[Finding] = []
    for path in modules(root, PRODUCT):
        rel = path.relative_to(root).as_posix()
        source = path.read_text()
        if not _in(rel, STORAGE):
            found += sql_findings(source, rel)
        if _in(rel, CLIENTS):
            found += import_findings(source, rel, public)
    return found


def test_no_sql_and_no_private_storage_import_in_the_product() -> None:
    assert len(modules(ROOT, CLIENTS)) > 50  # the tree is read at all
    assert [str(f) for f in tree_findings(ROOT)] == []


@pytest.mark.parametrize("face", FACES)
def test_every_public_name_of_a_face_is_there(face: str) -> None:
    import importlib

    module = importlib.import_module(face)
    names = public_names(ROOT, face)
    assert sorted(names) == sorted(module.__all__)
    assert [n for n in sorted(names) if not hasattr(module, n)] == []


# The checker itself, on planted code: it must be able to fail.

PLANTED_EXECUTE = 'def panel_count(db):\n    return db.execute("SELECT 1").fetchone()[0]\n'


def test_the_checker_flags_an_execute_planted_in_a_bot_module(tmp_path: Path) -> None:
    for face in FACES:  # a product tree of its own, the faces copied from the real one
        folder = tmp_path / face.replace(".", "/")
        folder.mkdir(parents=True)
        (folder / "__init__.py").write_text((ROOT / face.replace(".", "/") / "__init__.py").read_text())
    (tmp_path / "bot").mkdir()
    (tmp_path / "bot" / "planted.py").write_text(PLANTED_EXECUTE)
    (tmp_path / "core" / "read" / "fine.py").write_text(PLANTED_EXECUTE)  # where SQL belongs
    found = [str(f) for f in tree_findings(tmp_path)]
    assert found == [
        "bot/planted.py:2: holds a connection: db.execute('SELECT 1').fetchone()",
        "bot/planted.py:2: calls .execute()",
        "bot/planted.py:2: holds SQL: 'SELECT 1'",
    ]


@pytest.mark.parametrize(
    "source",
    [
        'db.executemany("x", rows)',
        "db.conn.executescript(script)",
        'rows = db.query("x")',
        'SQL = "SELECT a, b FROM t WHERE c = ?"',
        'sql = f"SELECT {columns} FROM {table} WHERE id IN ({marks})"',
        'SQL = ("INSERT INTO notify_state (key, value) VALUES (?, ?)"\n " ON CONFLICT(key) DO NOTHING")',
        'x = "INSERT OR REPLACE INTO panel_access (a) VALUES (?)"',
        'x = "UPDATE alarm_state SET state = ? WHERE event_id = ?"',
        'x = "DELETE FROM notify_state WHERE key = ?"',
        'x = "CREATE UNIQUE INDEX idx ON t (a)"',
        'x = "PRAGMA journal_mode = WAL"',
        'x = "WITH recent AS (SELECT 1) SELECT * FROM recent"',
        "import sqlite3\nrows = sqlite3.connect(path).cursor().fetchall()",
        "from core.sqlite_lib import sqlite_utils\ndb = sqlite_utils.Database(path)",
        "rows = cur.fetchone()",
    ],
)
def test_the_checker_flags_sql(source: str) -> None:
    assert sql_findings(source, "bot/x.py")


@pytest.mark.parametrize(
    "source",
    [
        '"""Select the panel, then delete from the cache what it no longer lists; update the card."""',
        'TASK_UPDATE = "sam_task_update"',
        'text = "Select a time range"',
        'HELP = "Delete from this list with the button; Update settings in the TOML."',
        "st.query_params.get('tz')",
        'log.info("SELECTed %s", x)',
    ],
)
def test_the_checker_leaves_prose_and_other_calls(source: str) -> None:
    assert sql_findings(source, "bot/x.py") == []


PUBLIC = {"core.cache": frozenset({"enqueue", "Card"}), "core.read": frozenset({"who_can"})}


@pytest.mark.parametrize(
    "source",
    [
        "from core.cache.outbox import enqueue",
        "from core.cache import outbox",
        "from core.cache import _private",
        "import core.read.who_can",
        "from core import cache\ncache.pending(db)",
        "from core import read as r\nr.panel_rows(db)",
        "import core.cache\ncore.cache.pending(db)",
        "def f():\n    from core.read.quiet import window\n",
    ],
)
def test_the_checker_flags_what_passes_by_the_face(source: str) -> None:
    assert import_findings(source, "bot/x.py", PUBLIC)


@pytest.mark.parametrize(
    "source",
    [
        "from core.cache import Card, enqueue",
        "from core import cache, read\ncache.enqueue(db, [])\nread.who_can(db, 1, 0, zone)",
        "import core.cache\ncore.cache.enqueue(db, [])",
        "from core import alarms, lifecycle",
    ],
)
def test_the_checker_accepts_the_faces(source: str) -> None:
    assert import_findings(source, "bot/x.py", PUBLIC) == []

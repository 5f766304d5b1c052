"""One error hierarchy (gnubg_blunder/errors.py): every exception class the
package defines derives from ``BlunderError``, and those that are the user's
mistake from ``UserError`` (so that they reach the top as one line, exit 2,
without being translated on the way); a class caught as a builtin error
(``ValueError``, ``OSError``, ``RuntimeError``) by existing code keeps that
base beside."""

from __future__ import annotations

import ast
import importlib
import inspect
import pkgutil
from pathlib import Path

import pytest

import gnubg_blunder
from gnubg_blunder.errors import BlunderError, StoreError, UserError

PACKAGE = Path(gnubg_blunder.__file__).resolve().parent
# modules that cannot be imported here: __main__ runs the command line; verify_in_gnubg runs
# inside gnubg (imports gnubg's own module).  Their classes are read from their source instead.
NOT_IMPORTED = {"gnubg_blunder.__main__", "gnubg_blunder.gnubg.verify_in_gnubg"}
# BaseException, not Exception, on purpose: a signal that no ``except Exception`` may take
CONTROL_FLOW = {"gnubg_blunder.watch._Stop"}
# the user's mistakes: one line, exit status 2, raised as they are (no ``raise UserError(str(exc))``)
USER_ERRORS = {
    "gnubg_blunder.quiz.core.QuizError",
    "gnubg_blunder.views.table_filters.FilterError",
    "gnubg_blunder.anki.sync.CollectionError",
}
# the builtin base each keeps (an ``except ValueError`` / ``OSError`` / ``RuntimeError`` takes it)
BUILTIN_BASES = {
    "gnubg_blunder.board.moves.IllegalMove": ValueError,
    "gnubg_blunder.views.table_filters.FilterError": ValueError,
    "gnubg_blunder.importers.sgf_syntax.SgfSyntaxError": ValueError,
    "gnubg_blunder.importers.sgf_values.SgfValueError": ValueError,
    "gnubg_blunder.importers.xg_format.container.XgFormatError": ValueError,
    "gnubg_blunder.importers.files.NotAMatchFile": OSError,
    "gnubg_blunder.gnubg.process.GnubgNotFound": RuntimeError,
    "gnubg_blunder.gnubg.verify.VerifyError": RuntimeError,
}


def _module_names() -> list:
    return sorted(m.name for m in pkgutil.walk_packages([str(PACKAGE)], "gnubg_blunder."))


def _exception_classes() -> dict:
    """{dotted name: class} of every exception class defined in an importable module."""
    found = {}
    for name in _module_names():
        if name in NOT_IMPORTED:
            continue
        module = importlib.import_module(name)
        for attr, value in vars(module).items():
            if inspect.isclass(value) and issubclass(value, BaseException) and value.__module__ == name:
                found[f"{name}.{attr}"] = value
    return found


@pytest.fixture(scope="module")
def classes() -> dict:
    return _exception_classes()


def test_the_walk_finds_the_known_classes(classes):
    """The walk reaches every layer (the store's classes too)."""
    for name in ("gnubg_blunder.errors.UserError", "gnubg_blunder.importers.records.MatchImportError",
                 "gnubg_blunder.store.damage.DamagedDatabase", "gnubg_blunder.store.pg_sql.PgConnectionLost",
                 *USER_ERRORS, *BUILTIN_BASES, *CONTROL_FLOW):
        assert name in classes, name


def test_every_exception_class_is_a_blunder_error(classes):
    outside = sorted(name for name, cls in classes.items()
                     if not issubclass(cls, BlunderError) and name not in CONTROL_FLOW)
    assert outside == [], f"exception classes outside the hierarchy: {outside}"
    for name in CONTROL_FLOW:
        assert not issubclass(classes[name], Exception), name


def test_the_users_mistakes_are_user_errors(classes):
    for name in USER_ERRORS:
        assert issubclass(classes[name], UserError), name
    assert classes["gnubg_blunder.quiz.core.QuizError"].exit_code == 2 == UserError.exit_code
    assert StoreError.exit_code == BlunderError.exit_code == 1


def test_the_builtin_bases_are_kept(classes):
    for name, base in BUILTIN_BASES.items():
        cls = classes[name]
        assert issubclass(cls, base) and cls.__mro__[1] is base, name  # the builtin first: its __str__, __init__


def test_the_unimported_modules_define_no_exception_class():
    """Read from the source: a class there whose base names an error or an exception."""
    for name in NOT_IMPORTED:
        path = PACKAGE.joinpath(*name.split(".")[1:]).with_suffix(".py")
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ClassDef):
                bases = [ast.unparse(b) for b in node.bases]
                assert not any(b.endswith(("Error", "Exception")) for b in bases), (name, node.name, bases)


def test_messages_are_kept():
    """The classes re-parented keep their messages (``str``) and their
    builtin's attributes."""
    import errno

    from gnubg_blunder.importers.files import NotAMatchFile
    from gnubg_blunder.importers.sgf_syntax import SgfSyntaxError
    from gnubg_blunder.importers.xg_format.container import XgFormatError
    from gnubg_blunder.quiz.core import QuizError
    from gnubg_blunder.views.table_filters import FilterError

    assert str(QuizError("nothing to ask")) == "nothing to ask"
    assert str(FilterError("no column 'x'")) == "no column 'x'"
    assert str(XgFormatError("f.xg", "bad magic")) == "f.xg: bad magic"
    syntax = SgfSyntaxError("f.sgf", "unclosed value", 3, 7)
    assert isinstance(syntax, ValueError) and "f.sgf" in str(syntax) and syntax.line == 3
    not_a_file = NotAMatchFile("a folder")
    assert isinstance(not_a_file, OSError) and not_a_file.strerror == "a folder"
    assert OSError(errno.ENOENT, "x").errno == errno.ENOENT  # the builtin untouched


def test_no_translation_of_our_own_errors_remains():
    """No ``except QuizError/FilterError/CollectionError`` only to raise
    ``UserError(str(exc))``: they are UserErrors and reach the top as they are."""
    for path in PACKAGE.rglob("*.py"):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if isinstance(node, ast.ExceptHandler) and node.type is not None:
                caught = ast.unparse(node.type)
                assert not any(c in caught for c in ("QuizError", "FilterError", "CollectionError")), (
                    path.relative_to(PACKAGE), node.lineno, caught)


# -- store errors classified by kind (store/error_kinds.py), not by their text --------------------

def test_sqlite_errors_are_classified_by_their_code(tmp_path):
    import sqlite3

    from gnubg_blunder.store.error_kinds import error_kind

    db = tmp_path / "locked.db"
    holder = sqlite3.connect(db, isolation_level=None)
    holder.execute("CREATE TABLE t(x)")
    holder.execute("BEGIN EXCLUSIVE")
    other = sqlite3.connect(db, timeout=0, isolation_level=None)
    try:
        with pytest.raises(sqlite3.OperationalError) as busy:
            other.execute("SELECT * FROM t")
    finally:
        other.close()
        holder.close()
    assert error_kind(busy.value) == "busy"
    junk = tmp_path / "junk.db"
    junk.write_bytes(b"this is not an SQLite file" * 100)
    with pytest.raises(sqlite3.DatabaseError) as damaged:
        sqlite3.connect(junk).execute("SELECT * FROM sqlite_master")
    assert error_kind(damaged.value) == "damaged"
    # an error made without SQLite's code (every one of Python 3.9 and 3.10): SQLite's words for the kind
    assert error_kind(sqlite3.OperationalError("database or disk is full")) == "full"
    assert error_kind(sqlite3.OperationalError("disk I/O error (simulated)")) is None
    assert error_kind(ValueError("database is locked")) is None  # not a database error at all


def test_the_store_s_own_errors_carry_their_kind_and_the_words_do_not_decide():
    from gnubg_blunder.commands import Context
    from gnubg_blunder.pipeline import store_error
    from gnubg_blunder.store.error_kinds import error_kind

    ctx = Context(db_path="/nonexistent/x.db")
    assert error_kind(StoreError("cannot set it to WAL mode (database is locked)", kind="busy")) == "busy"
    assert store_error(StoreError("x", kind="busy"), ctx)[0].startswith("database is locked (database ")
    # a store error without a kind is the store's one line, whatever words it holds
    reason, per_file = store_error(StoreError("the words 'database is locked' inside"), ctx)
    assert (reason, per_file) == ("database /nonexistent/x.db: the words 'database is locked' inside", False)

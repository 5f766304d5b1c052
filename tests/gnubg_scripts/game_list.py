"""Runs INSIDE gnubg's GUI (``gnubg -q -c FILE``, the file's one line
``>exec(open(THIS).read())``): loads each match of GAME_LIST_FILES (one
path a line) and writes, for each of its games, the rows of gnubg's own
game-record window as gnubg filled them: its "#" column, the text of the
two players' cells (None: empty), whether the row spans both columns, and
the two cells' positions (below) — read from the GTK widget itself
(its GtkListStore, through ctypes into the GTK 2 library gnubg runs), so
the numbering is gnubg's, not a reading of its source.  Then the filled
cells of every third row and of each row with a cube action are selected as a click does (the tree view's cursor set on that row
and column: gnubg's own handler puts the game at that record) and
``gnubg.positionid()`` read: the board gnubg then shows, before the
record, from the side of the player it has on roll.  The JSON goes to
GAME_LIST_OUT (written whole, then renamed into place).

Shares no code with gnubg-blunder.
"""

import ctypes
import json
import os

import gnubg

gtk = ctypes.CDLL("libgtk-x11-2.0.so.0")
gobject = ctypes.CDLL("libgobject-2.0.so.0")
P = ctypes.c_void_p


class GList(ctypes.Structure):
    pass


GList._fields_ = [("data", P), ("next", ctypes.POINTER(GList)), ("prev", ctypes.POINTER(GList))]


class TreeIter(ctypes.Structure):
    _fields_ = [("stamp", ctypes.c_int), ("user_data", P), ("user_data2", P), ("user_data3", P)]


class GValue(ctypes.Structure):
    _fields_ = [("g_type", ctypes.c_size_t), ("data0", ctypes.c_uint64), ("data1", ctypes.c_uint64)]


gtk.gtk_window_list_toplevels.restype = ctypes.POINTER(GList)
gtk.gtk_container_get_children.restype = ctypes.POINTER(GList)
gtk.gtk_container_get_children.argtypes = [P]
gtk.gtk_container_get_type.restype = ctypes.c_size_t
gtk.gtk_tree_view_get_type.restype = ctypes.c_size_t
gtk.gtk_tree_view_get_model.argtypes = [P]
gtk.gtk_tree_view_get_model.restype = P
gtk.gtk_tree_model_get_n_columns.argtypes = [P]
gtk.gtk_tree_model_get_column_type.argtypes = [P, ctypes.c_int]
gtk.gtk_tree_model_get_column_type.restype = ctypes.c_size_t
gtk.gtk_tree_model_get_iter_first.argtypes = [P, ctypes.POINTER(TreeIter)]
gtk.gtk_tree_model_iter_next.argtypes = [P, ctypes.POINTER(TreeIter)]
gtk.gtk_tree_model_get_value.argtypes = [P, ctypes.POINTER(TreeIter), ctypes.c_int, ctypes.POINTER(GValue)]
gtk.gtk_tree_view_get_column.argtypes = [P, ctypes.c_int]
gtk.gtk_tree_view_get_column.restype = P
gtk.gtk_tree_view_set_cursor.argtypes = [P, P, P, ctypes.c_int]
gtk.gtk_tree_path_new_from_string.argtypes = [ctypes.c_char_p]
gtk.gtk_tree_path_new_from_string.restype = P
gtk.gtk_tree_path_free.argtypes = [P]
gobject.g_object_get_data.argtypes = [P, ctypes.c_char_p]
gobject.g_object_get_data.restype = ctypes.POINTER(ctypes.c_int)
gobject.g_type_check_instance_is_a.argtypes = [P, ctypes.c_size_t]
gobject.g_type_name.argtypes = [ctypes.c_size_t]
gobject.g_type_name.restype = ctypes.c_char_p
gobject.g_value_get_int.argtypes = [ctypes.POINTER(GValue)]
gobject.g_value_get_string.argtypes = [ctypes.POINTER(GValue)]
gobject.g_value_get_string.restype = ctypes.c_char_p
gobject.g_value_get_boolean.argtypes = [ctypes.POINTER(GValue)]
gobject.g_value_unset.argtypes = [ctypes.POINTER(GValue)]

CUBE_WORDS = ("Double", "Redouble", "Beaver", "Raccoon", "Take", "Drop")
# gnubg's game list: "#", the two players' move texts, their two records, two styles, "combined"
GAME_LIST_TYPES = ["gint", "gchararray", "gchararray", "gpointer", "gpointer"]


def glist(pointer):
    while pointer:
        yield pointer.contents.data
        pointer = pointer.contents.next


def tree_views(widget):
    if gobject.g_type_check_instance_is_a(widget, gtk.gtk_tree_view_get_type()):
        yield widget
    if gobject.g_type_check_instance_is_a(widget, gtk.gtk_container_get_type()):
        for child in glist(gtk.gtk_container_get_children(widget)):
            yield from tree_views(child)


def game_list():
    """(the tree view, its model, the model's "combined" column)."""
    for top in glist(gtk.gtk_window_list_toplevels()):
        for view in tree_views(top):
            model = gtk.gtk_tree_view_get_model(view)
            if not model:
                continue
            n = gtk.gtk_tree_model_get_n_columns(model)
            types = [gobject.g_type_name(gtk.gtk_tree_model_get_column_type(model, i)).decode() for i in range(n)]
            if types[:5] == GAME_LIST_TYPES and types[-1] == "gboolean":
                return view, model, n - 1
    raise RuntimeError("gnubg's game list was not found among its widgets")


def player_columns(view) -> dict:
    """{player 0/1: the view's column showing that player's records} (gnubg tags them "player")."""
    out = {}
    for i in range(8):
        column = gtk.gtk_tree_view_get_column(view, i)
        if not column:
            break
        player = gobject.g_object_get_data(column, b"player")
        if player:
            out[player.contents.value] = column
    return out


def select(view, columns, index: int, player: int) -> None:
    """Put the cursor on row ``index`` (from 0), ``player``'s column.  GTK 2
    emits "cursor-changed" before it moves the focus column: the second call
    gives gnubg's handler the right column."""
    path = gtk.gtk_tree_path_new_from_string(str(index).encode())
    for _ in range(2):
        gtk.gtk_tree_view_set_cursor(view, path, columns[player], 0)
    gtk.gtk_tree_path_free(path)


def value(model, it, column, kind):
    gv = GValue()
    gtk.gtk_tree_model_get_value(model, ctypes.byref(it), column, ctypes.byref(gv))
    try:
        if kind == "int":
            return gobject.g_value_get_int(ctypes.byref(gv))
        if kind == "bool":
            return bool(gobject.g_value_get_boolean(ctypes.byref(gv)))
        text = gobject.g_value_get_string(ctypes.byref(gv))
        return None if text is None else text.decode("utf-8", "replace")
    finally:
        gobject.g_value_unset(ctypes.byref(gv))


def rows():
    view, model, combined = game_list()
    out = []
    it = TreeIter()
    ok = gtk.gtk_tree_model_get_iter_first(model, ctypes.byref(it))
    while ok:
        out.append([value(model, it, 0, "int"), value(model, it, 1, "str"), value(model, it, 2, "str"),
                    value(model, it, combined, "bool")])
        ok = gtk.gtk_tree_model_iter_next(model, ctypes.byref(it))
    columns = player_columns(view)
    for index, row in enumerate(out):  # the position gnubg shows when a cell is selected
        row.append([None, None])
        # every third row and each row with a cube action (gnubg replays the game from its start for each
        # selection: every cell of a long game would take seconds)
        cube = any(t and t.split()[0] in CUBE_WORDS for t in row[1:3])
        if index % 3 and not cube:
            continue
        for player in (0, 1):
            if row[1 + player] is not None and not row[3]:
                select(view, columns, index, player)
                row[4][player] = gnubg.positionid()
    return out


gnubg.command("set display off")  # no board drawn for each selected cell (10 ms a cell, not 150)
gnubg.command("set confirm new off")  # a match moved to an earlier record is replaced without a question
result = []
with open(os.environ["GAME_LIST_FILES"], encoding="utf-8") as fh:
    files = [line.strip() for line in fh if line.strip()]
for path in files:
    gnubg.command('load match "%s"' % path)
    n_games = len(gnubg.match(analysis=0, boards=0, statistics=0)["games"])
    gnubg.command("first game")
    games = []
    for g in range(n_games):
        if g:
            gnubg.command("next game")
        games.append(rows())
    result.append({"file": path, "games": games})
out = os.environ["GAME_LIST_OUT"]
with open(out + ".part", "w", encoding="utf-8") as fh:
    json.dump(result, fh)
os.replace(out + ".part", out)

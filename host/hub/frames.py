"""Incremental frames: what changed from one public frame of a game to the next.

A public frame (``{"state": ..., "notices": [...]}``) carries the game's whole public history, so
it grows with the game.  Between two frames of one game only a little changes (a tower lifted, a
turn added to the history, the notices), so the board pushes, the hub stores and the spectators
receive a *patch* instead: a list of operations that turns the previous frame into the next one.

    ["set", path, value]   the value at path (a list of keys and list indexes) becomes value
    ["del", path]          the key at path is removed
    ["add", path, items]   the list at path is extended by items

A patch is a function of the two public frames alone, so it tells nobody anything the public frames
did not (the privacy property holds for patches as for frames).  The same rules are applied by the
hub's pages (``applyPatch`` in pages/hub.js); keep the two in step.
"""

from __future__ import annotations

import copy

KEYFRAME = 100  # a board sends the whole frame at least every this many events of a game


def diff(old, new, path=None) -> list:
    """The operations turning ``old`` into ``new`` (both JSON values); [] if they are equal."""
    path = path or []
    if old == new:
        return []
    if isinstance(old, dict) and isinstance(new, dict):
        ops: list = []
        for k, v in new.items():
            if k not in old:
                ops.append(["set", path + [k], v])
            elif old[k] != v:
                ops.extend(diff(old[k], v, path + [k]))
        for k in old:
            if k not in new:
                ops.append(["del", path + [k]])
        return ops
    if isinstance(old, list) and isinstance(new, list) and old and len(new) > len(old) and new[:len(old)] == old:
        return [["add", path, new[len(old):]]]
    return [["set", path, new]]


def apply(frame, ops: list, in_place: bool = False, fresh: bool = False):
    """``frame`` with the operations done (a new value, unless ``in_place``: then ``frame`` itself,
    changed; ``fresh``: the patch's values are the caller's to give away, they are not copied).
    ValueError if an operation does not fit the frame (a patch of another frame)."""
    out = frame if in_place else copy.deepcopy(frame)
    own = (lambda v: v) if fresh else copy.deepcopy
    for op in ops:
        if not isinstance(op, list) or len(op) < 2 or not isinstance(op[1], list):
            raise ValueError(f"not a patch operation: {str(op)[:80]}")
        kind, path = op[0], op[1]
        if not path:
            if kind != "set" or len(op) != 3:
                raise ValueError("only 'set' may replace the whole frame")
            out = copy.deepcopy(op[2])
            continue
        try:
            parent = out
            for key in path[:-1]:
                parent = parent[key]
            last = path[-1]
            if kind == "set" and len(op) == 3:
                parent[last] = own(op[2])  # a key, or a list index that exists
            elif kind == "del" and len(op) == 2:
                del parent[last]
            elif kind == "add" and len(op) == 3 and isinstance(op[2], list) and isinstance(parent[last], list):
                parent[last].extend(own(op[2]))
            else:
                raise ValueError(f"not a patch operation: {str(op)[:80]}")
        except (KeyError, IndexError, TypeError) as exc:
            raise ValueError(f"the patch does not fit the frame at {path!r}") from exc
    return out


def trial(frame, ops: list, undo: list, placed: set) -> bool:
    """True if the operations fit ``frame`` as :func:`apply` does them, found by doing them on
    ``frame`` itself, without a copy: each change is recorded in ``undo`` (:func:`undo` puts
    ``frame`` back as it was, its keys' order too), so several patches in a row may be tried before
    it.  False if they do not fit, or were not tried: the values of the operations are placed
    uncopied, so an operation inside a value placed (``placed``: the paths set or extended so far,
    by this and earlier patches of the same trial) is not tried, nor one on the whole frame
    (:func:`apply`, on a copy, decides those)."""
    for op in ops:
        if not isinstance(op, list) or len(op) < 2 or not isinstance(op[1], list) or not op[1]:
            return False
        kind, path = op[0], op[1]
        key = tuple(path)
        for n in range(1, len(key)):
            if key[:n] in placed:
                return False
        try:
            parent = frame
            for step in path[:-1]:
                parent = parent[step]
            last = path[-1]
            if kind == "set" and len(op) == 3:
                if type(parent) is dict and last not in parent:
                    parent[last] = op[2]
                    undo.append((1, parent, last, None))
                else:
                    old = parent[last]
                    parent[last] = op[2]
                    undo.append((0, parent, last, old))
                placed.add(key)
            elif kind == "del" and len(op) == 2:
                if type(parent) is dict:
                    items = list(parent.items())
                    del parent[last]
                    undo.append((2, parent, None, items))
                else:
                    old = parent[last]
                    del parent[last]
                    undo.append((3, parent, last, old))
            elif kind == "add" and len(op) == 3 and isinstance(op[2], list) and isinstance(parent[last], list):
                target = parent[last]
                undo.append((4, target, len(target), None))
                target.extend(op[2])
                placed.add(key)
            else:
                return False
        except (KeyError, IndexError, TypeError):
            return False
    return True


def undo(changes: list) -> None:
    """Put back what :func:`trial` changed (the changes recorded, newest first)."""
    for kind, parent, key, old in reversed(changes):
        if kind == 0:
            parent[key] = old
        elif kind == 1:
            del parent[key]
        elif kind == 2:
            parent.clear()
            parent.update(old)
        elif kind == 3:
            parent.insert(key, old)
        else:
            del parent[key:]
    changes.clear()


def check(ops) -> None:
    """ValueError naming what is wrong with a patch's shape (before anything is stored)."""
    if not isinstance(ops, list):
        raise ValueError("a list of operations is expected")
    for n, op in enumerate(ops):
        if type(op) is not list or not op or type(op[0]) is not str or len(op) != SHAPE.get(op[0], 0):
            raise ValueError(f"[{n}]: an operation [set|del|add, path, value] is expected")
        path = op[1]
        if (type(path) is not list or (not path and op[0] != "set")
                or (op[0] == "add" and type(op[2]) is not list)):
            raise ValueError(f"[{n}]: an operation [set|del|add, path, value] is expected")
        for k in path:
            if type(k) is not str and (type(k) is not int or k < 0):
                raise ValueError(f"[{n}]: an operation [set|del|add, path (keys and list indexes from 0), value] "
                                 "is expected")


SHAPE = {"set": 3, "del": 2, "add": 3}


def is_patch(data: dict) -> bool:
    return "patch" in data

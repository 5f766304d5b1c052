"""codec/candidates.second_cost: the first two equities of a stored list, read
without decoding it, give what equities() gives (issue 29, the references)."""

import json
import random

from gnubg_blunder.codec import candidates as C


def _expected(blob):
    eqs = C.equities(blob)
    if len(eqs) >= 2 and eqs[0] is not None and eqs[1] is not None:
        return max(0.0, float(eqs[0]) - float(eqs[1]))
    return None


def _lists():
    rng = random.Random(29)
    out = []
    for trial in range(400):
        n = rng.choice([0, 1, 2, 3, 18, 40])
        def eq():
            r = rng.random()
            if r < 0.1:
                return None
            if r < 0.5:
                return round(rng.uniform(-1, 1), 6)  # millionths: stored as int32
            return rng.uniform(-1, 1)  # a float of more decimals: stored as float64
        cands = [{"move": rng.choice(["24/18 13/11", "8/5(2)", None, "bar/22*"]), "equity": eq(),
                  "position_id": rng.choice([None, "4HPwATDgc/ABMA"]), "probs": None,
                  "depth": rng.choice([None, "2-ply"])} for _ in range(n)]
        if trial % 7 == 0:
            for c in cands:
                c["equity"] = None
        out.append(C.encode_dicts(cands))
        out.append(json.dumps(cands))  # a list stored before format 1
    return out + [None]


def test_second_cost_is_the_first_two_equities_of_the_list():
    for blob in _lists():
        assert C.second_cost(blob) == _expected(blob), blob
        if isinstance(blob, bytes):
            assert C.second_cost(memoryview(blob)) == _expected(blob)  # PostgreSQL's bytea

"""Outsider baselines for tournaments (twoply, oneply, sampler), written from RULES.md and the engine API only.

A name is a base name and options joined by `_`: `twoply`, `twoply_t0.3` (a
0.3 s budget a move), `sampler_medium` (predicts medium instead of hard),
`sampler_medium_t0.5`, `sampler_twoply` (reads the twoply outsider: what reading
is worth against the strongest player that does not read). Pairings split on `-`, so names never hold one.
"""

BASES = ("twoply", "oneply", "sampler")
DEFAULT_BUDGET = {"twoply": 1.0, "oneply": 0.25, "sampler": 1.0}
TARGETS = ("easy", "medium", "hard", "deep", "twoply")


def parse(name):
    """(base, options dict) for an outsider name, or None if `name` is not one."""
    if not isinstance(name, str):
        return None
    parts = name.split("_")
    base = parts[0]
    if base not in BASES:
        return None
    opts = {"budget": DEFAULT_BUDGET[base]}
    for part in parts[1:]:
        if part in TARGETS and base == "sampler" and "target" not in opts:
            opts["target"] = part
        elif part.startswith("t") and "seen_t" not in opts:
            try:
                budget = float(part[1:])
            except ValueError:
                return None
            if not 0.01 <= budget <= 60:
                return None
            opts["budget"] = budget
            opts["seen_t"] = True
        else:
            return None
    opts.pop("seen_t", None)
    return base, opts


def is_name(name):
    return parse(name) is not None


def make(name, seed):
    """A fresh outsider player for `name` with `seed`; ValueError if the name is not one."""
    parsed = parse(name)
    if parsed is None:
        raise ValueError("not an outsider name: %r (%s, options _tSECONDS and, for sampler, _LEVEL)"
                         % (name, ", ".join(BASES)))
    base, opts = parsed
    if base == "twoply":
        from tools.tournament.outsiders.twoply import TwoPlyPlayer

        return TwoPlyPlayer(seed, budget=opts["budget"])
    if base == "oneply":
        from tools.tournament.outsiders.oneply import OnePlyPlayer

        return OnePlyPlayer(seed, budget=opts["budget"])
    from tools.tournament.outsiders.sampler import SamplerPlayer

    return SamplerPlayer(seed, target=opts.get("target", "hard"), budget=opts["budget"])

"""Exact zero-sum matrix games for the outsider searchers: value and both mixed strategies by the simplex method."""

_EPS = 1e-9


def solve(m):
    """(value, row strategy, column strategy) of the game m (list of rows; the row player maximises).

    A pure saddle point is taken at once; otherwise the linear programme
    max sum(y) s.t. A y <= 1, y >= 0 (A = m shifted to be positive) is solved
    by the simplex method with Bland's rule (no cycling on the many ties of a
    game full of equal wins and losses). The row strategy is read from the
    final objective row (the dual).
    """
    rows = len(m)
    cols = len(m[0])
    # saddle point: max of row minima == min of column maxima
    best_r = 0
    best_v = None
    for i in range(rows):
        v = min(m[i])
        if best_v is None or v > best_v:
            best_v = v
            best_r = i
    worst_c = 0
    worst_v = None
    for j in range(cols):
        v = max(m[i][j] for i in range(rows))
        if worst_v is None or v < worst_v:
            worst_v = v
            worst_c = j
    if best_v >= worst_v:
        p = [0.0] * rows
        q = [0.0] * cols
        p[best_r] = 1.0
        q[worst_c] = 1.0
        return float(best_v), p, q
    lo = min(min(r) for r in m)
    hi = max(max(r) for r in m)
    scale = float(hi - lo) if hi > lo else 1.0
    # entries in [1, 2]: well conditioned whatever the payoff scale
    a = [[1.0 + (x - lo) / scale for x in r] for r in m]
    width = cols + rows + 1
    t = []
    for i in range(rows):
        row = a[i] + [0.0] * rows + [1.0]
        row[cols + i] = 1.0
        t.append(row)
    obj = [-1.0] * cols + [0.0] * rows + [0.0]
    basis = [cols + i for i in range(rows)]
    for _ in range(200 * (rows + cols)):
        # entering column: the first with a negative reduced cost (Bland)
        e = -1
        for j in range(width - 1):
            if obj[j] < -_EPS:
                e = j
                break
        if e < 0:
            break
        # leaving row: minimum ratio, ties to the smallest basis index (Bland)
        r = -1
        best = 0.0
        for i in range(rows):
            x = t[i][e]
            if x > _EPS:
                ratio = t[i][-1] / x
                if r < 0 or ratio < best - _EPS or (ratio <= best + _EPS and basis[i] < basis[r]):
                    r = i
                    best = ratio
        if r < 0:
            break  # unbounded cannot happen with positive entries; stay safe
        pr = t[r]
        pv = pr[e]
        for j in range(width):
            pr[j] /= pv
        for i in range(rows):
            if i != r:
                ri = t[i]
                f = ri[e]
                if f != 0.0:
                    for j in range(width):
                        ri[j] -= f * pr[j]
        f = obj[e]
        for j in range(width):
            obj[j] -= f * pr[j]
        basis[r] = e
    total = obj[-1]
    if total <= _EPS:
        return float(best_v), _pure(rows, best_r), _pure(cols, worst_c)
    v = 1.0 / total
    y = [0.0] * cols
    for i in range(rows):
        if basis[i] < cols:
            y[basis[i]] = t[i][-1]
    q = [max(0.0, x * v) for x in y]
    p = [max(0.0, obj[cols + i] * v) for i in range(rows)]
    p = _norm(p, best_r)
    q = _norm(q, worst_c)
    value = (v - 1.0) * scale + lo
    return value, p, q


def _pure(n, k):
    p = [0.0] * n
    p[k] = 1.0
    return p


def _norm(p, fallback):
    s = sum(p)
    if s <= _EPS:
        return _pure(len(p), fallback)
    return [x / s for x in p]


def sample(p, rng):
    """An index drawn from the distribution p with random.Random rng."""
    x = rng.random()
    acc = 0.0
    last = 0
    for i, w in enumerate(p):
        if w > 0:
            last = i
            acc += w
            if x < acc:
                return i
    return last

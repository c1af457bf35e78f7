"""A deliberately plain list-and-set model of RULES.md, written independently of engine/, for differential tests."""

DIRS8 = [(-1, 0), (-1, 1), (0, 1), (1, 1), (1, 0), (1, -1), (0, -1), (-1, -1)]
LINES4 = [(0, 1), (1, 0), (1, 1), (1, -1)]


def on_board(r, c):
    return 0 <= r < 9 and 0 <= c < 9


class RefGame:
    """State: board as a list of 81 chars '.BWe', eggs as a list oldest first."""

    def __init__(self, board=None, eggs=()):
        self.board = list(board) if board else ["."] * 81
        self.eggs = list(eggs)
        self.result = "ongoing"
        self.sudden_death = False
        self.winning = {"B": 0, "W": 0}
        self.captures = {"B": 0, "W": 0}
        self._judge(was_sudden_death=True)

    def play(self, b, w):
        if self.result != "ongoing":
            raise ValueError("game over")
        for m in (b, w):
            if not (0 <= m < 81) or self.board[m] != ".":
                raise ValueError("illegal")
        board = self.board
        self.captures = {"B": 0, "W": 0}
        if b == w:
            board[b] = "e"
            self.eggs.append(b)
        else:
            board[b] = "B"
            board[w] = "W"
            newcomers = [(b, "B"), (w, "W")]
            while True:
                clamps = set()
                for n, p in newcomers:
                    enemy = ("W" if p == "B" else "B", "e")
                    r0, c0 = divmod(n, 9)
                    for dr, dc in DIRS8:
                        cells = [(r0 + k * dr, c0 + k * dc) for k in range(4)]
                        if not all(on_board(r, c) for r, c in cells):
                            continue
                        idx = [r * 9 + c for r, c in cells]
                        if board[idx[1]] in enemy and board[idx[2]] in enemy and board[idx[3]] == p:
                            clamps.add((p, frozenset(idx)))
                if not clamps:
                    break
                count = {"B": 0, "W": 0}
                middles = set()
                for p, cells in clamps:
                    count[p] += 1
                    middles |= {c for c in cells if board[c] != p}
                for c in middles:
                    if board[c] == "e":
                        self.eggs.remove(c)
                    board[c] = "."
                for p in "BW":
                    self.captures[p] += count[p]
                for _ in range(min(count["B"], count["W"])):
                    if self.eggs:
                        board[self.eggs.pop(0)] = "."
                q = "B" if count["B"] > count["W"] else "W"
                hatched = []
                for _ in range(abs(count["B"] - count["W"])):
                    if self.eggs:
                        c = self.eggs.pop(0)
                        board[c] = q
                        hatched.append((c, q))
                if not hatched:
                    break
                newcomers = hatched
        self._judge(self.sudden_death)

    def winning_cells(self, p):
        cells = set()
        for dr, dc in LINES4:
            for r in range(9):
                for c in range(9):
                    # start of a run only
                    if board_at(self.board, r - dr, c - dc) == p or board_at(self.board, r, c) != p:
                        continue
                    run = []
                    rr, cc = r, c
                    while board_at(self.board, rr, cc) == p:
                        run.append(rr * 9 + cc)
                        rr, cc = rr + dr, cc + dc
                    if len(run) >= 5:
                        cells |= set(run)
        return cells

    def _judge(self, was_sudden_death):
        wb = len(self.winning_cells("B"))
        ww = len(self.winning_cells("W"))
        self.winning = {"B": wb, "W": ww}
        if wb != ww:
            self.result = "black" if wb > ww else "white"
            self.sudden_death = False
        else:
            self.sudden_death = wb > 0
            if "." not in self.board:
                self.result = "draw"
                self.sudden_death = False


def board_at(board, r, c):
    return board[r * 9 + c] if on_board(r, c) else None

"""A slow, plainly written Stratego rules engine, used only to cross-check the Numba kernels.

It follows ``spec/rules.md`` and the interpretation documented in
``deepnash.game.kernels`` directly, with none of the kernels' devices: pieces
carry an identity (so "the same piece" is a comparison, not a chain of
squares), repeated boards are compared as whole tuples (no Zobrist hashing),
and the move history is a plain list.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from deepnash.game.pieces import BOMB, FLAG, MARSHAL, MINER, SCOUT, SPY
from deepnash.game.variant import Variant

LAKE = "lake"
DIRECTIONS = ((1, 0), (-1, 0), (0, 1), (0, -1))  # up, down, right, left: the kernels' order
CHASE_MEMORY = 64  # boards of a chase remembered, as in the kernels

MOVE, ATTACKER_WON, DEFENDER_WON, BOTH_REMOVED, FLAG_CAPTURED = range(5)
FLAG_TAKEN, NO_MOVES, BOTH_STUCK, MOVE_LIMIT, NO_ATTACK_LIMIT = 1, 2, 3, 4, 5


@dataclass(frozen=True)
class Pc:
    owner: int
    type: int
    id: int


@dataclass(frozen=True)
class Played:
    piece: int
    frm: int
    to: int


def battle(attacker: int, defender: int) -> int:
    """The result code of ``attacker`` (type) attacking ``defender`` (type), straight from the rules."""
    if defender == FLAG:
        return FLAG_CAPTURED
    if defender == BOMB:
        return ATTACKER_WON if attacker == MINER else DEFENDER_WON
    if attacker == SPY and defender == MARSHAL:
        return ATTACKER_WON
    if attacker == defender:
        return BOTH_REMOVED
    return ATTACKER_WON if attacker > defender else DEFENDER_WON


@dataclass
class RefGame:
    variant: Variant
    board: list = field(default_factory=list)
    revealed: set = field(default_factory=set)
    moved: set = field(default_factory=set)
    history: tuple = field(default_factory=lambda: ([], []))
    turn: int = 0
    ply: int = 0
    since_attack: int = 0
    chaser: int | None = None
    chase_square: int = -1
    chase_boards: list = field(default_factory=list)
    done: bool = False
    winner: int | None = None
    termination: int = 0

    @classmethod
    def start(cls, variant: Variant, red, blue, turn: int = 0) -> "RefGame":
        g = cls(variant, board=[None] * 100, history=([], []), turn=turn)
        for sq in variant.lakes:
            g.board[sq] = LAKE
        for owner, placed in enumerate((red, blue)):
            for sq in range(100):
                if placed[sq] >= 0:
                    g.board[sq] = Pc(owner, int(placed[sq]), 100 * owner + sq)
        g._end_if_stuck()
        return g

    def copy(self) -> "RefGame":
        return RefGame(
            self.variant, list(self.board), set(self.revealed), set(self.moved),
            (list(self.history[0]), list(self.history[1])), self.turn, self.ply, self.since_attack,
            self.chaser, self.chase_square, list(self.chase_boards), self.done, self.winner, self.termination,
        )

    # -- what is where ------------------------------------------------------
    def own(self, sq: int, p: int) -> bool:
        x = self.board[sq]
        return isinstance(x, Pc) and x.owner == p

    def position(self) -> tuple:
        return tuple((x.owner, x.type) if isinstance(x, Pc) else x for x in self.board)

    def next_to_enemy(self, sq: int, p: int, board=None) -> bool:
        board = self.board if board is None else board
        r, c = divmod(sq, 10)
        for dr, dc in DIRECTIONS:
            if 0 <= r + dr < 10 and 0 <= c + dc < 10:
                x = board[(r + dr) * 10 + c + dc]
                if isinstance(x, Pc) and x.owner != p:
                    return True
        return False

    # -- legality ------------------------------------------------------------
    def legal_moves(self, p: int | None = None) -> list[tuple[int, int]]:
        return list(self.moves(self.turn if p is None else p))

    def can_move(self, p: int) -> bool:
        return next(self.moves(p), None) is not None

    def moves(self, p: int):
        """The legal moves of ``p``: by origin square, then direction (up, down, right, left), then distance."""
        for sq in range(100):
            pc = self.board[sq]
            if not isinstance(pc, Pc) or pc.owner != p or pc.type in (FLAG, BOMB):
                continue
            for dr, dc in DIRECTIONS:
                r, c = sq // 10 + dr, sq % 10 + dc
                while 0 <= r < 10 and 0 <= c < 10:
                    t = r * 10 + c
                    x = self.board[t]
                    if x == LAKE or self.own(t, p):
                        break
                    if self.allowed(p, sq, t):
                        yield sq, t
                    if x is not None or pc.type != SCOUT:
                        break
                    r, c = r + dr, c + dc

    def allowed(self, p: int, f: int, t: int) -> bool:
        """The repetition rules (the move itself is pseudo-legal)."""
        if self.variant.two_squares and self.breaks_two_squares(p, f, t):
            return False
        if self.variant.more_squares and self.breaks_more_squares(p, f, t):
            return False
        return True

    def breaks_two_squares(self, p: int, f: int, t: int) -> bool:
        n = self.variant.two_squares_limit
        previous = self.history[p][-n:]
        if len(previous) < n or any(m.piece != self.board[f].id for m in previous):
            return False
        segments = [(m.frm, m.to) for m in previous] + [(f, t)]
        if len({s // 10 for seg in segments for s in seg}) == 1:
            coord = [(a % 10, b % 10) for a, b in segments]  # all along one rank
        elif len({s % 10 for seg in segments for s in seg}) == 1:
            coord = [(a // 10, b // 10) for a, b in segments]  # all along one file
        else:
            return False
        forward = [b > a for a, b in coord]
        if any(forward[i] == forward[i + 1] for i in range(len(forward) - 1)):
            return False
        # the square borders each segment crosses: border k lies between coordinates k and k+1
        crossed = [set(range(min(a, b), max(a, b))) for a, b in coord]
        return bool(set.intersection(*crossed))

    def breaks_more_squares(self, p: int, f: int, t: int) -> bool:
        if self.chaser != p or self.board[t] is not None:
            return False
        after = list(self.board)
        after[t], after[f] = after[f], None
        if not self.next_to_enemy(t, p, after):
            return False  # not a chasing move
        last = self.history[p][-1] if self.history[p] else None
        if last is not None and (last.frm, last.to) == (t, f):
            return False  # back to where the piece came from in the previous turn
        position = tuple((x.owner, x.type) if isinstance(x, Pc) else x for x in after)
        return position in self.chase_boards[-CHASE_MEMORY:]

    # -- playing -------------------------------------------------------------
    def push(self, f: int, t: int) -> int:
        assert not self.done and (f, t) in self.legal_moves(), (f, t)
        p = self.turn
        pc = self.board[f]
        target = self.board[t]
        before = self.position()
        self.history[p].append(Played(pc.id, f, t))
        self.moved.add(pc.id)
        rows, cols = abs(t // 10 - f // 10), abs(t % 10 - f % 10)
        if rows + cols > 1:
            self.revealed.add(pc.id)  # a Scout that moved more than one square
        self.board[f] = None
        if target is None:
            result = MOVE
            self.board[t] = pc
        else:
            result = battle(pc.type, target.type)
            if result in (ATTACKER_WON, FLAG_CAPTURED):
                self.board[t] = pc
                self.revealed.add(pc.id)
            elif result == DEFENDER_WON:
                self.revealed.add(target.id)
            else:
                self.board[t] = None
        self._follow_chase(p, f, t, target is not None, before)
        self.ply += 1
        self.since_attack = 0 if target is not None else self.since_attack + 1
        self.turn = 1 - p
        v = self.variant
        if result == FLAG_CAPTURED:
            self._finish(p, FLAG_TAKEN)
        elif v.max_moves and self.ply >= v.max_moves:
            self._finish(None, MOVE_LIMIT)
        elif v.max_moves_without_attack and self.since_attack >= v.max_moves_without_attack:
            self._finish(None, NO_ATTACK_LIMIT)
        else:
            self._end_if_stuck()
        return result

    def _follow_chase(self, p: int, f: int, t: int, attack: bool, before: tuple) -> None:
        if not self.variant.more_squares:
            return
        threat = not attack and self.next_to_enemy(t, p)
        if attack:
            continues = False
        elif self.chaser is None:
            continues = False
        elif self.chaser != p:
            cr, cc = divmod(self.chase_square, 10)
            continues = abs(cr - f // 10) + abs(cc - f % 10) == 1  # the threatened piece runs away
        else:
            continues = threat
            if threat:
                self.chase_square = t
        if continues:
            self.chase_boards.append(self.position())
        elif threat:
            self.chaser, self.chase_square, self.chase_boards = p, t, [before, self.position()]
        else:
            self.chaser, self.chase_square, self.chase_boards = None, -1, []

    def _finish(self, winner: int | None, termination: int) -> None:
        self.done, self.winner, self.termination = True, winner, termination

    def _end_if_stuck(self) -> None:
        if self.can_move(self.turn):
            return
        if self.can_move(1 - self.turn):
            self._finish(1 - self.turn, NO_MOVES)
        else:
            self._finish(None, BOTH_STUCK)

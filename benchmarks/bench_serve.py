"""What one machine's ``deepnash serve`` holds: many people playing at once, over real WebSockets (issue 117).

Starts the real server (``deepnash serve`` in a subprocess, on 127.0.0.1 only, with a fresh SQLite
database in a temporary folder), then opens ``--games`` WebSocket clients at once.  Each plays a
cheap bot (``--bot``) for ``--moves`` moves or to the game's end, choosing its moves at random
from its own state messages (attacks first); ``--search-games`` more play the shipped searching
agent (``--search-agent``) for ``--search-moves`` moves.  While they play, the lobby
(``GET /api/options``) is asked every half second, from a process of its own.

After each move a client must receive exactly two state messages carrying its own token, with
the ply growing by one each (the person's move, then the agent's reply); a message that does not
come within ``--timeout`` seconds is lost, one with another ply is out of order.  The latency of a
move is from sending it to receiving the agent's reply.

    python benchmarks/bench_serve.py                     # 200 games of 100 moves, and 4 against the search
    python benchmarks/bench_serve.py --games 20 --json   # one JSON object

JSON keys: ``games``, ``games_completed``, ``search_games``, ``search_completed``, ``moves``,
``messages_lost``, ``messages_reordered``, ``errors`` (error messages received, first few under
``error_samples``), ``p50_ms``, ``p99_ms`` (the cheap games' move latency), ``search_p50_ms``,
``search_p99_ms``, ``lobby_ms`` (median), ``lobby_max_ms``, ``lobby_requests``, ``peak_rss_mb`` (the
server's VmHWM), ``db_mb`` (the database with its write-ahead log), ``wall_s``.

The functions ``start_server``, ``stop_server`` and ``Player`` are used by ``tests/play/test_restart.py``.
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import urllib.error
import urllib.request
from pathlib import Path

import numpy as np
import websocket

FILES = "abcdefghij"


def free_port() -> int:
    """A TCP port free on 127.0.0.1 now."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start_server(db: Path, port: int, *args: str, wait: float = 60.0) -> subprocess.Popen:
    """``deepnash serve --host 127.0.0.1 --port PORT --db DB ARGS...`` in a subprocess, once it answers.

    Raises:
        RuntimeError: it exited or did not answer ``GET /api/options`` within ``wait`` seconds (with its stderr).
    """
    cmd = [sys.executable, "-c", "from deepnash.cli import main; main()", "serve", "--host", "127.0.0.1",
           "--port", str(port), "--db", str(db), *args]
    log = tempfile.TemporaryFile("w+")  # not a pipe: a full pipe would stall the server
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=log, text=True)
    proc.log = log
    deadline = time.monotonic() + wait
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            log.seek(0)
            raise RuntimeError(f"the server exited with status {proc.returncode}: {log.read().strip()}")
        try:
            urllib.request.urlopen(f"http://127.0.0.1:{port}/api/options", timeout=5).read()
            return proc
        except (urllib.error.URLError, ConnectionError, TimeoutError):
            time.sleep(0.1)
    stop_server(proc)
    raise RuntimeError(f"the server did not answer within {wait:g} s")


def stop_server(proc: subprocess.Popen, sig: int = signal.SIGTERM) -> None:
    """Send ``sig`` (SIGKILL: a crash) and wait for the process to end (killed after 30 s)."""
    if proc.poll() is None:
        proc.send_signal(sig)
        try:
            proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(timeout=30)
    proc.log.close()


def square(sq: int) -> str:
    return f"{FILES[sq % 10]}{sq // 10 + 1}"


class Player:
    """One person's game over a WebSocket: moves chosen from its own state messages, every answer checked.

    Args:
        port: the server's port on 127.0.0.1.
        seed: seeds the moves chosen.
        variant, color, opponent: the game asked for.
        timeout: seconds to wait for each message.

    Attributes:
        token: the game's token, once started.
        state: the last state message.
        latencies: seconds from sending each move to receiving the agent's reply.
        lost, reordered, errors: messages that did not come, came with an unexpected ply, or were errors
            (``error_texts`` holds them).
    """

    def __init__(self, port: int, seed: int, variant: str = "classic", color: str = "red",
                 opponent: str | None = None, timeout: float = 120.0):
        self.base = f"http://127.0.0.1:{port}"
        self.url = f"ws://127.0.0.1:{port}/ws"
        self.rng = np.random.default_rng(seed)
        self.variant, self.color, self.opponent, self.timeout = variant, color, opponent, timeout
        self.ws: websocket.WebSocket | None = None
        self.token: str | None = None
        self.state: dict = {}
        self.latencies: list[float] = []
        self.lost = self.reordered = self.errors = 0
        self.error_texts: list[str] = []

    def _receive(self, expected: int = 1) -> dict | None:
        """The next message if it is one of this game's states; ``None`` (counted) if it is an error, another
        game's, or does not come (then the ``expected`` messages still to come are lost)."""
        try:
            msg = json.loads(self.ws.recv())
        except (websocket.WebSocketException, OSError):
            self.lost += expected
            return None
        if msg.get("type") != "state":
            self.errors += 1
            self.error_texts.append(msg.get("error", str(msg)))
            return None
        if msg.get("token") != self.token:
            self.reordered += 1  # another game's message
            return None
        return msg

    def start(self) -> dict:
        """Ask for a random setup, connect and start the game; the first state (``None`` if refused)."""
        req = urllib.request.Request(f"{self.base}/api/setup", headers={"Content-Type": "application/json"},
                                     data=json.dumps({"variant": self.variant, "color": self.color}).encode())
        placement = json.loads(urllib.request.urlopen(req, timeout=self.timeout).read())["placement"]
        self.ws = websocket.create_connection(self.url, timeout=self.timeout)
        msg = {"type": "new", "variant": self.variant, "color": self.color, "placement": placement}
        if self.opponent is not None:
            msg["opponent"] = self.opponent
        self.ws.send(json.dumps(msg))
        first = json.loads(self.ws.recv())
        if first.get("type") == "state":
            self.token, self.state = first["token"], first
        else:
            self.errors += 1
            self.error_texts.append(first.get("error", str(first)))
        return self.state if self.token else None

    def rejoin(self) -> dict | None:
        """Connect again and join the game with its token; the state (``None``: an error, counted)."""
        self.close()
        self.ws = websocket.create_connection(self.url, timeout=self.timeout)
        self.ws.send(json.dumps({"type": "join", "token": self.token}))
        msg = self._receive()
        if msg is not None:
            self.state = msg
        return msg

    def choose(self) -> str:
        """A legal move of the last state: an attack if there is one, else any, at random."""
        board, legal = self.state["board"], self.state["legal"]
        attacks = [m for m in legal if board[m[1]]["owner"] == 1 - self.state["you"]]
        f, t = (attacks or legal)[int(self.rng.integers(len(attacks or legal)))]
        return f"{square(f)}-{square(t)}"

    def send_move(self) -> float:
        """Send a move of the last state without waiting for the answers; the time it was sent."""
        sent = time.perf_counter()
        self.ws.send(json.dumps({"type": "move", "move": self.choose()}))
        return sent

    def move(self) -> bool:
        """Play one move and read both answers; whether the game can go on from the last state."""
        ply, sent = self.state["ply"], self.send_move()
        mine = self._receive(expected=2)
        if mine is None:
            return False
        reply = self._receive()
        if reply is None:
            return False
        self.latencies.append(time.perf_counter() - sent)
        self.reordered += (mine["ply"] != ply + 1) + (reply["ply"] != (ply + 1 if mine["over"] else ply + 2))
        self.state = reply
        return not reply["over"] and bool(reply["legal"])

    def play(self, moves: int | None) -> bool:
        """Play ``moves`` moves (``None``: to the end) or until the game ends; whether no message went astray."""
        before = (self.lost, self.reordered, self.errors)
        count = 0
        while not self.state["over"] and self.state["legal"] and (moves is None or count < moves):
            count += 1
            if not self.move():
                break
        return (self.lost, self.reordered, self.errors) == before

    def record(self) -> str:
        """The game's Gravon XML record (HTTP; the game must be over)."""
        return urllib.request.urlopen(f"{self.base}/api/games/{self.token}/record", timeout=self.timeout).read().decode()

    def close(self) -> None:
        if self.ws is not None:
            self.ws.close()
            self.ws = None


#: Times ``GET URL`` twice a second until the file STOP exists (at most COUNT times), one line of seconds each.
LOBBY_PROBE = """
import os, sys, time, urllib.request
url, stop, count = sys.argv[1], sys.argv[2], int(sys.argv[3])
for _ in range(count):
    if os.path.exists(stop):
        break
    t = time.perf_counter()
    urllib.request.urlopen(url, timeout=60).read()
    print(time.perf_counter() - t, flush=True)
    time.sleep(0.5)
"""


def _vmhwm_mb(pid: int) -> float:
    """The process's peak resident memory (``VmHWM``), MiB."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
    raise RuntimeError(f"no VmHWM in /proc/{pid}/status")


def _percentile(values: list[float], q: float) -> float | None:
    return round(float(np.percentile(values, q)) * 1000, 1) if values else None


def run(args: argparse.Namespace) -> dict:
    """Start the server, play every game at once, and measure (see the module docstring)."""
    with tempfile.TemporaryDirectory(prefix="bench_serve_") as tmp:
        db = Path(tmp) / "games.sqlite3"
        port = free_port()
        total = args.games + args.search_games
        server_args = ["--allow", args.bot, "--max-games", str(total)]
        if args.search_games:
            server_args += ["--allow", args.search_agent]
        if args.think_threads:
            server_args += ["--think-threads", str(args.think_threads)]
        proc = start_server(db, port, *server_args)
        cheap = [Player(port, k, args.variant, ("red", "blue")[k % 2], args.bot, args.timeout) for k in range(args.games)]
        search = [Player(port, 10_000 + k, args.variant, ("red", "blue")[k % 2], args.search_agent, args.timeout)
                  for k in range(args.search_games)]
        players = cheap + search
        ready = threading.Barrier(total + 1, timeout=args.timeout * 2)
        done: list[bool] = [False] * total

        def client(i: int) -> None:
            p = players[i]
            try:
                started = p.start() is not None
            except (OSError, websocket.WebSocketException) as e:
                p.errors += 1
                p.error_texts.append(f"start: {e}")
                started = False
            try:
                ready.wait()
            except threading.BrokenBarrierError:
                return
            if started:
                done[i] = p.play(args.moves if i < args.games else args.search_moves)
            p.close()

        threads = [threading.Thread(target=client, args=(i,), daemon=True) for i in range(total)]
        t0 = time.perf_counter()
        try:
            for t in threads:
                t.start()
            ready.wait()  # every game started: now they all play
            stop = Path(tmp) / "stop"
            # The lobby is timed from a process of its own, so that the clients' threads do not slow its clock.
            probe = subprocess.Popen([sys.executable, "-c", LOBBY_PROBE, f"http://127.0.0.1:{port}/api/options",
                                      str(stop), str(int(args.timeout * 20))], stdout=subprocess.PIPE, text=True)
            for t in threads:
                t.join(timeout=max(1.0, args.timeout * 10 - (time.perf_counter() - t0)))
            wall = time.perf_counter() - t0
            stop.touch()
            lobby = [float(line) for line in probe.communicate(timeout=args.timeout)[0].split()]
            peak = _vmhwm_mb(proc.pid)
        finally:
            stop_server(proc)
        errors = [text for p in players for text in p.error_texts]
        cheap_lat = [x for p in cheap for x in p.latencies]
        search_lat = [x for p in search for x in p.latencies]
        return {
            "games": args.games, "games_completed": sum(done[:args.games]),
            "search_games": args.search_games, "search_completed": sum(done[args.games:]),
            "moves": sum(len(p.latencies) for p in players),
            "messages_lost": sum(p.lost for p in players), "messages_reordered": sum(p.reordered for p in players),
            "errors": len(errors), "error_samples": errors[:5],
            "p50_ms": _percentile(cheap_lat, 50), "p99_ms": _percentile(cheap_lat, 99),
            "search_p50_ms": _percentile(search_lat, 50), "search_p99_ms": _percentile(search_lat, 99),
            "lobby_ms": round(statistics.median(lobby) * 1000, 1) if lobby else None,
            "lobby_max_ms": round(max(lobby) * 1000, 1) if lobby else None, "lobby_requests": len(lobby),
            "peak_rss_mb": round(peak, 1),
            "db_mb": round(sum(f.stat().st_size for f in db.parent.glob(db.name + "*")) / 2**20, 1),  # and its WAL
            "wall_s": round(wall, 1),
        }


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--games", type=int, default=200, help="games against the cheap bot, all at once")
    ap.add_argument("--moves", type=int, default=100, help="moves each cheap game plays (or to its end)")
    ap.add_argument("--bot", default="random", choices=["random", "greedy"], help="the cheap bot")
    ap.add_argument("--search-games", type=int, default=4, help="games against the searching agent besides")
    ap.add_argument("--search-moves", type=int, default=20, help="moves each of those plays")
    ap.add_argument("--search-agent", default="shipped:classic", help="the searching agent's spec")
    ap.add_argument("--variant", default="classic", choices=["classic", "barrage"])
    ap.add_argument("--think-threads", type=int, default=None, help="the server's --think-threads (default: its own)")
    ap.add_argument("--timeout", type=float, default=120.0, help="seconds to wait for any one message")
    ap.add_argument("--json", action="store_true", help="print one JSON object")
    args = ap.parse_args(argv)
    if args.games < 1 or args.moves < 1 or args.search_games < 0 or args.search_moves < 1 or args.timeout <= 0:
        ap.error("--games, --moves and --search-moves must be at least 1, --search-games at least 0, --timeout > 0")
    report = run(args)
    if args.json:
        print(json.dumps(report))
        return
    print(f"{report['games_completed']} of {report['games']} games against {args.bot} completed "
          f"({args.moves} moves each or to the end), {report['search_completed']} of {report['search_games']} "
          f"against {args.search_agent} ({args.search_moves} moves); {report['moves']} moves in {report['wall_s']} s")
    print(f"messages lost {report['messages_lost']}, out of order {report['messages_reordered']}, "
          f"errors {report['errors']} {report['error_samples'] or ''}")
    print(f"move latency ({args.bot}): p50 {report['p50_ms']} ms, p99 {report['p99_ms']} ms; "
          f"({args.search_agent}): p50 {report['search_p50_ms']} ms, p99 {report['search_p99_ms']} ms")
    print(f"lobby while all play: median {report['lobby_ms']} ms, max {report['lobby_max_ms']} ms "
          f"({report['lobby_requests']} requests)")
    print(f"server peak memory {report['peak_rss_mb']} MiB; database {report['db_mb']} MiB")


if __name__ == "__main__":
    os.environ.setdefault("OMP_NUM_THREADS", "1")
    main()

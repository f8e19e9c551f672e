"""The package's shape, read from its source: imports between packages form a DAG, and the board
encoding stays inside ``game`` (``game.codes``) and the environment's kernels."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import deepnash

ROOT = Path(deepnash.__file__).resolve().parent


def _module_name(path: Path) -> list[str]:
    parts = ["deepnash", *path.relative_to(ROOT).with_suffix("").parts]
    return parts[:-1] if parts[-1] == "__init__" else parts


def _package(module: list[str]) -> str:
    """The layer a module belongs to: the first name under ``deepnash`` (``cli`` for ``deepnash/cli.py``)."""
    return module[1] if len(module) > 1 else "deepnash"


def package_imports() -> dict[str, dict[str, list[str]]]:
    """``{package: {imported package: [importing modules]}}`` over every import statement, those inside
    functions included, absolute and relative."""
    graph: dict[str, dict[str, list[str]]] = {}
    for path in sorted(ROOT.rglob("*.py")):
        module = _module_name(path)
        is_package = path.name == "__init__.py"
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            if isinstance(node, ast.Import):
                targets = [alias.name.split(".") for alias in node.names]
            elif isinstance(node, ast.ImportFrom):
                if node.level:
                    base = module if is_package else module[:-1]
                    base = base[: len(base) - node.level + 1]
                    targets = [base + (node.module.split(".") if node.module else [])]
                else:
                    targets = [(node.module or "").split(".")]
            else:
                continue
            for target in targets:
                if target[0] != "deepnash" or len(target) < 2:
                    continue
                src, dst = _package(module), _package(target)
                if src != dst:
                    graph.setdefault(src, {}).setdefault(dst, []).append(".".join(module))
    return graph


def _cycle(graph: dict[str, dict[str, list[str]]]) -> list[str] | None:
    state: dict[str, int] = {}
    stack: list[str] = []

    def visit(node: str) -> list[str] | None:
        state[node] = 1
        stack.append(node)
        for nxt in graph.get(node, {}):
            if state.get(nxt) == 1:
                return stack[stack.index(nxt):] + [nxt]
            if nxt not in state and (found := visit(nxt)):
                return found
        stack.pop()
        state[node] = 2
        return None

    for node in list(graph):
        if node not in state and (found := visit(node)):
            return found
    return None


def test_package_imports_form_a_dag():
    graph = package_imports()
    assert {"game", "infostate", "agents", "testtime", "train", "nn"} <= set(graph) | {
        d for deps in graph.values() for d in deps}
    cycle = _cycle(graph)
    assert cycle is None, "import cycle " + " -> ".join(cycle) + ": " + "; ".join(
        f"{a} -> {b} in {', '.join(sorted(set(graph[a][b])))}" for a, b in zip(cycle, cycle[1:]))


def test_the_cycle_finder_finds_a_planted_cycle():
    graph = package_imports()
    graph.setdefault("game", {})["agents"] = ["deepnash.game.planted"]
    assert _cycle(graph) is not None


def test_layers_sit_where_the_architecture_puts_them():
    graph = package_imports()
    below = {
        "game": set(),
        "notation": {"game"},
        "env": {"game", "notation"},
        "infostate": {"game", "notation", "env"},
        "nn": {"env", "game"},
    }
    for package, allowed in below.items():
        assert set(graph.get(package, {})) <= allowed, (package, graph.get(package))


#: Piece-code arithmetic written out: ``1 + 12 * p + t``, ``(v - 1) // 12``, ``(v - 1) % 12``.
_ARITHMETIC = re.compile(r"\b12\s*\*\s*\(?\s*\w|\)\s*//\s*12\b|\)\s*%\s*12\b|-\s*1\s*-\s*12")


def test_no_piece_code_arithmetic_outside_game():
    offenders = []
    for path in sorted(ROOT.rglob("*.py")):
        rel = path.relative_to(ROOT).as_posix()
        if rel.startswith("game/") or rel == "env/kernels.py":
            continue
        for n, line in enumerate(path.read_text().splitlines(), start=1):
            code = line.split("#", 1)[0]
            if _ARITHMETIC.search(code):
                offenders.append(f"{rel}:{n}: {line.strip()}")
    assert not offenders, "use game.codes instead:\n" + "\n".join(offenders)

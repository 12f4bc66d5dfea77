"""Benchmark: time of one "Where can this go?" answer, over example states and random legal continuations.

For every game: the example at the end of a game, the example before a move (BIOME Borneo also
its mid-game test state), and random legal continuations of the latter, each built by playing
listed spots. Every player asks about every piece they could hold (up to ``--per-player``).
Prints per game the count, median, p95 and maximum of ``find_hints`` in ms of CPU time (the work
of one answer on one core, which a busy shared machine does not inflate), the p95 of wall time
beside it, then the p95 of all.

Run pinned to one core: ``taskset -c 1 python bench/hints.py``.
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import time
from pathlib import Path

from scoring import BoardState, find_game, game_ids
from scoring.catalog import read_data
from scoring.hints import apply_place, find_hints, holdable, market_choices

ROOT = Path(__file__).resolve().parents[1]
MIDGAME = {"borneo": ROOT / "tests" / "scoring" / "hint_states" / "borneo_midgame.json"}


def starts(game_id: str) -> list[BoardState]:
    game = find_game(game_id)
    out = [game.load_state(read_data(game_id, n)) for n in ("example.json", "example_before.json")]
    if game_id in MIDGAME:
        out.append(game.load_state(json.loads(MIDGAME[game_id].read_text("utf-8"))))
    return out


def continuation(state: BoardState, rng: random.Random, turns: int) -> BoardState:
    """Play ``turns`` random listed spots (a random player, a random piece they could hold)."""
    for _ in range(turns):
        asks = [(c, p.id) for p in state.players for c in holdable(state, p.id)]
        rng.shuffle(asks)
        for component, player in asks[:12]:
            hints = find_hints(state, component, player)
            if hints.spots:
                state = apply_place(hints.before, rng.choice(hints.spots).place)
                break
        else:
            return state
    return state


def positions(game_id: str, rng: random.Random, walks: int) -> list[BoardState]:
    out = starts(game_id)
    for _ in range(walks):
        out.append(continuation(out[-1] if game_id not in MIDGAME else out[2], rng, rng.randint(1, 5)))
    return out


def timed(state: BoardState, component: str, player: str) -> tuple[float, float]:
    """(CPU ms, wall ms) of one answer."""
    c0, t0 = time.process_time(), time.perf_counter()
    find_hints(state, component, player)
    return (time.process_time() - c0) * 1000, (time.perf_counter() - t0) * 1000


def p95(values: list[float]) -> float:
    return statistics.quantiles(values, n=20, method="inclusive")[-1] if len(values) > 1 else values[0]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--walks", type=int, default=6, help="random continuations per game")
    parser.add_argument("--per-player", type=int, default=8, help="pieces asked about per player and position")
    parser.add_argument("--seed", type=int, default=32)
    args = parser.parse_args()
    rng = random.Random(args.seed)
    every: list[float] = []
    every_wall: list[float] = []
    print("| game | answers | median ms | p95 ms | max ms | p95 wall ms | market p95 ms |")
    print("|---|---|---|---|---|---|---|")
    for game_id in game_ids():
        cpu: list[float] = []
        wall: list[float] = []
        market: list[float] = []
        for state in positions(game_id, rng, args.walks):
            for p in state.players:
                held = list(holdable(state, p.id))
                rng.shuffle(held)
                for c in held[: args.per_player]:
                    ms, wall_ms = timed(state, c, p.id)
                    cpu.append(ms)
                    wall.append(wall_ms)
                c0 = time.process_time()
                market_choices(state, p.id)
                market.append((time.process_time() - c0) * 1000)
        every += cpu
        every_wall += wall
        print(
            f"| {game_id} | {len(cpu)} | {statistics.median(cpu):.1f} | {p95(cpu):.1f} | {max(cpu):.1f}"
            f" | {p95(wall):.1f} | {p95(market):.1f} |"
        )
    print(
        f"\nall games: {len(every)} answers, CPU p95 {p95(every):.1f} ms, max {max(every):.1f} ms;"
        f" wall p95 {p95(every_wall):.1f} ms"
    )


if __name__ == "__main__":
    main()

"""PHYLO move legality: one turn (up to three actions) from ``before`` to ``after``, every fault at once."""

from __future__ import annotations

import enum
import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from ..model import BoardState, ComponentId, Violation, parse_area
from ..words import Words
from .catalog import CardKind, Catalog, Duration, Effect, Species
from .table import (
    TABLE,
    GridCell,
    Need,
    Table,
    TableCard,
    affected_by,
    build_table,
    cells_in_reach,
    steps,
    target_problem,
)

ACTIONS_PER_TURN = 3


class Rule(enum.Enum):
    """Every rule a PHYLO move can break; the values are the stable violation codes."""

    NOT_ADJACENT = Need.ISOLATED.value
    INCOMPATIBLE_ENVIRONMENT = Need.ENVIRONMENT.value
    NO_FOOD = Need.FOOD.value
    PREY_TOO_LARGE = Need.SCALE.value
    NO_CHAIN = Need.CHAIN.value
    WRONG_ORIENTATION = "phylo/wrong_orientation"
    CARD_TURNED = "phylo/card_turned"
    NOT_YOUR_CARD = "phylo/not_your_card"
    CANNOT_MOVE = "phylo/cannot_move"
    MOVE_TOO_FAR = "phylo/move_too_far"
    TOO_MANY_ACTIONS = "phylo/too_many_actions"
    CARD_REMOVED = "phylo/card_removed"
    NOT_DISCARDED = "phylo/not_discarded"
    HOME_MOVED = "phylo/home_moved"
    INVASIVE_MISMATCH = "phylo/invasive_mismatch"
    EVENT_TARGET = "phylo/event_target"
    EVENT_NOT_RESOLVED = "phylo/event_not_resolved"
    EVENT_PLACEMENT = "phylo/event_placement"
    GAME_OVER = "phylo/game_over"


@dataclass(frozen=True, slots=True)
class PlayedEvent:
    """An event card played this turn and the species card it was played on."""

    card: str
    target: str


def _v(
    rule: Rule, message: str, cells: tuple[GridCell, ...] = (), components: tuple[str, ...] = ()
) -> Violation:
    return Violation(rule.value, message, tuple(cells), TABLE, tuple(ComponentId(c) for c in components))


def played_events(after: BoardState, before_table: Table, after_table: Table) -> tuple[PlayedEvent, ...]:
    """Events named in ``extras.events`` plus persistent events newly lying on the table."""
    out: dict[str, PlayedEvent] = {}
    for entry in after.extras.get("events", ()) or ():
        out[entry["card"]] = PlayedEvent(entry["card"], entry["target"])
    before_events = {e.id for e in before_table.events}
    for te in after_table.events:
        if te.id not in before_events and te.id not in out:
            out[te.id] = PlayedEvent(te.id, te.target)
    return tuple(out.values())


def active_player(
    before: BoardState, after: BoardState, tb: Table, ta: Table, catalog: Catalog
) -> str | None:
    """Whose turn: ``extras.active``, else the player the first new or moved card faces.

    A turn may change nothing that faces its player: an immediate event only leaves its card
    in the player's own pile, and a reaction turn may only discard the cards that kept no
    food chain. Then the event card's pile, or else the one owner of those discarded cards,
    names the player.
    """
    named = after.extras.get("active")
    if isinstance(named, str):
        return named
    for card in ta.by_id.values():
        old = tb.by_id.get(card.id)
        if old is None or old.cell != card.cell:
            return card.owner
    for te in ta.events:
        if te.id not in {e.id for e in tb.events}:
            return te.owner
    players = {p.id for p in after.players}
    for entry in after.extras.get("events", ()) or ():
        placed = after.placement_of(entry["card"])
        if placed is not None and placed.area != TABLE:
            pile_owner = parse_area(placed.area).owner or ""
            if pile_owner in players:
                return pile_owner
    owners = {
        old.owner
        for old in tb.by_id.values()
        if old.species and old.id not in ta.by_id and not tb.is_viable(old.id)
    }
    if len(owners) == 1:
        return owners.pop()
    return None


def game_over(state: BoardState, table: Table) -> bool:
    """The game has ended: the last pick-up card was drawn and the final turns are played.

    ``extras.end = {"last_card_drawn_by": player, "turns_since": n}`` counts the turns
    finished after the drawer's own final turn. The opponent's last turn makes it over,
    unless that turn left the drawer with non-viable cards: then one reaction turn more.
    """
    end = state.extras.get("end")
    if not isinstance(end, Mapping):
        return False
    turns = end.get("turns_since", 0)
    drawer = end.get("last_card_drawn_by")
    if turns >= 2:
        return True
    if turns == 1:
        return not any(
            c.owner == drawer and not table.is_viable(c.id) for c in table.by_id.values() if c.species
        )
    return False


def _similar(invader: Species, victim: Species) -> bool:
    """RULING: a "similar" species shares the invader's kingdom and FOODCHAIN#."""
    return invader.kingdom == victim.kingdom and invader.foodchain == victim.foodchain


def _placement_faults(card: TableCard, ta: Table, verb: str) -> list[Violation]:
    """A played or moved species must touch a card and have a viable food chain where it ends."""
    support = ta.support.get(card.id)
    if support is None or support.viable:
        return []
    need = support.need or Need.CHAIN
    rule = Rule(need.value)
    return [_v(rule, f"{card.name} {verb}: {support.reason}", (card.cell,), (card.id,))]


def check_move(
    catalog: Catalog, before: BoardState, after: BoardState, *, keywords: bool
) -> tuple[Violation, ...]:
    """Every rule the turn from ``before`` to ``after`` breaks (empty when legal)."""
    tb, ta = build_table(before, catalog), build_table(after, catalog)
    if game_over(before, tb):
        if _table_signature(before) != _table_signature(after):
            return (_v(Rule.GAME_OVER, "the game is over: the table may not change any more"),)
        return ()
    out: list[Violation] = []
    words = Words.of("phylo", before, after)
    active = active_player(before, after, tb, ta, catalog)
    events = played_events(after, tb, ta)
    actions = len(events)

    found, expected_discards = _event_cards(catalog, events, tb, ta)
    out += found
    out += _turned(tb, ta)
    # -- new species (plays, invasive plays) -----------------------------------
    endangered = {
        c.id for c in tb.by_id.values() if c.species and c.owner == active and not tb.is_viable(c.id)
    }
    invaded: set[str] = set()
    new_cards = [c for c in ta.by_id.values() if c.species and c.id not in tb.by_id]
    for card in new_cards:
        actions += 1
        s = card.species
        if s is None:
            continue
        if active is not None and card.owner != active:
            out.append(
                _v(
                    Rule.WRONG_ORIENTATION,
                    f"{card.name} must face the player who plays it ({words.player(active)})",
                    (card.cell,),
                    (card.id,),
                )
            )
        old = tb.cards.get(card.cell)
        freed = old is None or old.id in ta.by_id or old.id in expected_discards or old.id in endangered
        if old is not None and not freed:
            if old.species is None:
                reason = "a HOME card cannot be replaced"
            elif not keywords:
                reason = "keywords are switched off in this game"
            elif not s.is_invasive:
                reason = f"{s.common_name} is not INVASIVE"
            elif not _similar(s, old.species):
                reason = f"{old.name} is not a similar species (needs kingdom {s.kingdom} and FOODCHAIN#{s.foodchain})"
            else:
                reason = ""
                invaded.add(old.id)
            if reason:
                out.append(
                    _v(
                        Rule.INVASIVE_MISMATCH,
                        f"{card.name} played on top of {old.name}: {reason}",
                        (card.cell,),
                        (card.id, old.id),
                    )
                )
                invaded.add(old.id)
        out.extend(_placement_faults(card, ta, "played"))

    moved, move_actions = _moves(tb, ta, active, words)
    out += moved
    actions += move_actions
    # -- cards that left the table -------------------------------------------------
    for old in tb.by_id.values():
        if old.id in ta.by_id or old.species is None:
            continue
        if old.id in expected_discards or old.id in invaded or old.id in endangered:
            continue
        out.append(
            _v(
                Rule.CARD_REMOVED,
                f"{old.name} left the table though no rule removed it",
                (old.cell,),
                (old.id,),
            )
        )

    # -- the reaction window closes ---------------------------------------------------
    for cid in sorted(endangered):
        card = ta.by_id.get(cid)
        if card is not None and not ta.is_viable(cid):
            out.append(
                _v(
                    Rule.NOT_DISCARDED,
                    f"{card.name} had no food chain at the start of {words.player(active or '')}'s turn and still has none:"
                    " it goes to the discard pile",
                    (card.cell,),
                    (cid,),
                )
            )

    if actions > ACTIONS_PER_TURN:
        out.append(_v(Rule.TOO_MANY_ACTIONS, f"{actions} actions in one turn; a turn has {ACTIONS_PER_TURN}"))
    return tuple(out)


def _event_cards(catalog: Catalog, events: tuple[PlayedEvent, ...], tb: Table, ta: Table) -> tuple[list[Violation], dict[str, str]]:
    """The event cards played this turn: where each lies and what it discards. Returns the
    faults and the cards the events discard (card id -> event name)."""
    out: list[Violation] = []
    # -- event cards ----------------------------------------------------------
    expected_discards: dict[str, str] = {}
    after_events = {te.id: te for te in ta.events}
    for pe in events:
        ev = catalog.event_of(pe.card)
        if ev is None:
            continue
        target = tb.by_id.get(pe.target)
        if target is None or target.species is None:
            out.append(
                _v(
                    Rule.EVENT_TARGET,
                    f"{ev.name}: {Words('phylo', {}).name(pe.target)} is not a species card on the table",
                    (),
                    (pe.card, pe.target),
                )
            )
            continue
        problem = target_problem(ev, target)
        if problem:
            out.append(
                _v(
                    Rule.EVENT_TARGET,
                    f"{ev.name} on {target.name}: {problem}",
                    (target.cell,),
                    (pe.card, target.id),
                )
            )
            continue
        if ev.effect is Effect.DISCARD:
            for cell in cells_in_reach(ev, target.cell, list(tb.cards)):
                victim = tb.cards[cell]
                if affected_by(ev, victim):
                    expected_discards[victim.id] = ev.name
        lying = after_events.get(pe.card)
        if ev.duration is Duration.IMMEDIATE and lying is not None:
            out.append(
                _v(
                    Rule.EVENT_PLACEMENT,
                    f"{ev.name} takes effect at once and goes to the discard pile",
                    (lying.cell,),
                    (pe.card,),
                )
            )
        if ev.duration is Duration.PERSISTENT and (lying is None or lying.target != target.id):
            out.append(
                _v(
                    Rule.EVENT_PLACEMENT,
                    f"{ev.name} stays on the table on {target.name}",
                    (target.cell,),
                    (pe.card,),
                )
            )
    for vid, ev_name in expected_discards.items():
        if vid in ta.by_id:
            card = ta.by_id[vid]
            out.append(
                _v(
                    Rule.EVENT_NOT_RESOLVED,
                    f"{ev_name} discards {card.name}, but it is still on the table",
                    (card.cell,),
                    (vid,),
                )
            )

    return out, expected_discards


def _turned(tb: Table, ta: Table) -> list[Violation]:
    """HOME cards never move, turn or leave; no card turns away from its owner."""
    out: list[Violation] = []
    # -- HOME cards and turned cards -------------------------------------------
    for old in tb.by_id.values():
        new = ta.by_id.get(old.id)
        if old.kind is CardKind.HOME and (
            new is None or new.cell != old.cell or new.rotation != old.rotation
        ):
            out.append(
                _v(
                    Rule.HOME_MOVED,
                    "the HOME card never moves, turns or leaves",
                    (old.cell,),
                    (old.id,),
                )
            )
        elif new is not None and new.rotation != old.rotation:
            out.append(
                _v(
                    Rule.CARD_TURNED,
                    f"{old.name} was turned: a card keeps facing its owner",
                    (new.cell,),
                    (old.id,),
                )
            )
    old_events = {e.id: e for e in tb.events}
    for te in ta.events:
        prev = old_events.get(te.id)
        if prev is not None and prev.rotation != te.rotation:
            out.append(
                _v(
                    Rule.CARD_TURNED,
                    f"{te.event.name} was turned: a card keeps facing its owner",
                    (te.cell,),
                    (te.id,),
                )
            )

    return out


def _moves(tb: Table, ta: Table, active: str | None, words: Words) -> tuple[list[Violation], int]:
    """Cards moved this turn: only by their owner, as far as MOVE (or FLIGHT) allows. Returns
    the faults and the actions the moves took."""
    out: list[Violation] = []
    actions = 0
    # -- moves ------------------------------------------------------------------
    for card in ta.by_id.values():
        old = tb.by_id.get(card.id)
        if old is None or old.cell == card.cell or card.kind is CardKind.HOME or card.species is None:
            continue
        s = card.species
        if active is not None and old.owner != active:
            out.append(
                _v(
                    Rule.NOT_YOUR_CARD,
                    f"{card.name} belongs to {words.player(old.owner)}: only its owner moves it",
                    (old.cell, card.cell),
                    (card.id,),
                )
            )
        dist = steps(old.cell, card.cell, flight=s.flight)
        if s.move == 0:
            out.append(
                _v(
                    Rule.CANNOT_MOVE,
                    f"{card.name} has no MOVE number and cannot move",
                    (old.cell, card.cell),
                    (card.id,),
                )
            )
            actions += 1
        else:
            needed = math.ceil(dist / s.move)
            if needed > ACTIONS_PER_TURN:
                kind = "FLIGHT" if s.flight else "MOVE"
                hint = "" if s.flight else " (diagonal steps need FLIGHT)"
                out.append(
                    _v(
                        Rule.MOVE_TOO_FAR,
                        f"{card.name} went {dist} steps; {kind} {s.move}"
                        f" allows at most {s.move * ACTIONS_PER_TURN} in one turn{hint}",
                        (old.cell, card.cell),
                        (card.id,),
                    )
                )
                needed = ACTIONS_PER_TURN
            actions += needed
        out.extend(_placement_faults(card, ta, "moved"))

    return out, actions



def _table_signature(state: BoardState) -> frozenset[tuple[Any, ...]]:
    return frozenset((p.component, p.cell, p.rotation, p.on) for p in state.placements if p.area == TABLE)

"""Stage 3: decoded markers -> components of one game, one sighting per physical component.

A QR payload names its component; a tag id names it through the game's catalog (a
board's anchor tags name their board). Markers of one component are fused when they
sit where its printed face puts them; two markers that sit on one face but name
different components are a disagreement, reported and never scored. Codes that are not
this game's are foreign: kept with their position, never scored. A back tag (the one tag
printed on every back of a kind, see ``scoring.markers``) is neither: it is a face-down
card, kept with its position as ``FaceDown`` and never a component.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from functools import cache, lru_cache
from typing import Any

import cv2
import numpy as np

from scoring import find_game
from scoring.payload import ComponentRef, ForeignCode, encode, parse_payload

from .detect import Detection, MarkerKind
from .plane import (
    apply_homographies,
    apply_homography,
    weighted_dlt,
    weighted_dlts,
)
from .sightings import (
    WEIGHTS,
    Catalog,
    Disagreement,
    Duplicate,
    FaceDown,
    Foreign,
    Identified,
    Mark,
    MarkRole,
    Sighting,
    catalog_for,
    on_table,
)

__all__ = [
    "Catalog",
    "Disagreement",
    "Duplicate",
    "FaceDown",
    "Foreign",
    "Identified",
    "Mark",
    "MarkRole",
    "Sighting",
    "WEIGHTS",
    "catalog_for",
    "identify",
    "on_table",
]


#: Recent answers about the very objects they were computed for (a marker's homography, a
#: face's fused fit, whether a board's markers make one face): a frame identifies its markers
#: again after each later look, nearly all of them unchanged.
_SEEN: dict[tuple[int, ...], tuple[tuple[object, ...], Any]] = {}
#: What a remembered answer is of, first in its key (so that answers never mix).
_MARKER, _FACE, _ONE_FACE = object(), object(), object()


def _recalled(objects: tuple[object, ...]) -> Any | None:
    """What was remembered lately for these same objects, or None."""
    known = _SEEN.get(tuple(map(id, objects)))
    if known is not None and all(a is b for a, b in zip(known[0], objects)):
        return known[1]
    return None


def _remember(objects: tuple[object, ...], value: Any) -> None:
    """Keep an answer (bounded; a lost entry is only computed again, so threads may share it)."""
    if len(_SEEN) >= 4096:
        _SEEN.clear()
    _SEEN[tuple(map(id, objects))] = (objects, value)


def _remembered(objects: tuple[object, ...], compute: Callable[[], Any]) -> Any:
    """``compute()``, or what it gave for these same objects lately."""
    value = _recalled(objects)
    if value is None:
        value = compute()
        _remember(objects, value)
    return value


def _mark_homography(det: Detection, mark: Mark) -> np.ndarray:
    return _remembered((_MARKER, det, mark), lambda: cv2.getPerspectiveTransform(mark._corners32, det.corners.astype(np.float32)))


@lru_cache(maxsize=4096)
def _printed(game: str, component: str) -> str:
    """The payload printed on a component (asked once per component and frame, so kept)."""
    return encode(game, component)


@lru_cache(maxsize=4096)
def _parsed(text: str) -> ComponentRef | ForeignCode:
    """A QR text's reading (the same codes are read in every frame of a table)."""
    return parse_payload(text)


def _fused_homography(dets: Sequence[Detection], marks: Sequence[Mark]) -> np.ndarray:
    src = np.vstack([m.face_corners() for m in marks])
    dst = np.vstack([d.corners for d in dets])
    w = np.concatenate([np.full(4, WEIGHTS[d.kind]) for d in dets])
    return weighted_dlt(src, dst, w)


def _fused_homographies(faces: Sequence[tuple[Sequence[Detection], Sequence[Mark]]]) -> list[np.ndarray]:
    """``_fused_homography`` of many faces: those with the same number of markers solved in
    one stacked fit (one face of one marker keeps OpenCV's exact four-point solution). A face
    fitted lately from the very same markers keeps its fit."""
    out: list[np.ndarray] = [np.empty(0)] * len(faces)
    keys = [(_FACE, *dets, *marks) for dets, marks in faces]
    by_size: dict[int, list[int]] = {}
    for k, (dets, _) in enumerate(faces):
        known = _recalled(keys[k])
        if known is not None:
            out[k] = known
            continue
        by_size.setdefault(len(dets), []).append(k)
    for size, same in by_size.items():
        if size == 1:
            for k in same:
                out[k] = _fused_homography(*faces[k])
            continue
        src = np.array([np.concatenate([m._corners for m in faces[k][1]]) for k in same])
        dst = np.array([np.concatenate([d.corners for d in faces[k][0]]) for k in same], dtype=np.float64)
        w = np.array([[WEIGHTS[d.kind] for d in faces[k][0] for _ in range(4)] for k in same])
        for k, h in zip(same, weighted_dlts(src, dst, w)):
            out[k] = h
    for key, h in zip(keys, out):
        _remember(key, h)
    return out


def _name(det: Detection, catalog: Catalog) -> tuple[Mark | None, Foreign | None]:
    """Which printed marker a detection is, or why it is foreign."""
    if det.kind is MarkerKind.QR:
        text = det.payload or ""
        ref = _parsed(text)
        if not isinstance(ref, ComponentRef):
            return None, Foreign(text, ref.reason, det)
        if ref.game != catalog.game:
            return None, Foreign(text, _from_another_game(ref.game), det)
        if ref.edition != 1 or text != _printed(catalog.game, ref.component):
            return None, Foreign(text, f"a code of edition {ref.edition}, not this one", det)
        mark = catalog.qr_marks.get(ref.component)
        if mark is None:
            return None, Foreign(text, f"no component {ref.component!r} in this edition", det)
        return mark, None
    tag = det.tag_id if det.tag_id is not None else -1
    mark = catalog.by_tag.get(tag)
    if mark is None:
        owner = _tag_owner(tag)
        reason = _from_another_game(owner) if owner else "a tag that is not part of this game's edition"
        return None, Foreign(f"tag {tag}", reason, det)
    return mark, None


def tag_printed_elsewhere(s: Sighting) -> bool:
    """Read by one tag alone, whose id another game prints too."""
    if len(s.detections) != 1 or s.detections[0].tag_id is None:
        return False
    tag = s.detections[0].tag_id
    return _tag_owner(tag) is None and _tag_games(tag) > 1


@cache
def _tag_games(tag: int) -> int:
    from scoring import games

    return sum(1 for g in games() if tag in catalog_for(g.id).by_tag)


@cache
def _tag_owner(tag: int | None) -> str | None:
    """The one game that prints this tag id, if only one does (tag-only tokens have ids of
    their own across games, so a token of another game is named as such)."""
    from scoring import games

    owners = [g.id for g in games() if tag in catalog_for(g.id).by_tag]
    return owners[0] if len(owners) == 1 else None


def _face_reach(items: Sequence[tuple[Detection, Mark, np.ndarray]]) -> tuple[np.ndarray, list[float]]:
    """Each marker's guess of its face's image centre, and how far (px) another guess of the
    same face may lie from it: 0.4 of the face's shorter side at the marker's scale."""
    h = np.array([it[2] for it in items])
    half = np.array([[[m.component.size_mm[0] / 2, m.component.size_mm[1] / 2]] for _, m, _ in items])
    centres = apply_homographies(h, half)[:, 0]
    corners = np.array([d.corners for d, _, _ in items])
    e = corners[:, [1, 2, 3, 0]] - corners
    sides = np.sqrt(e[..., 0] ** 2 + e[..., 1] ** 2).sum(axis=1) / 4
    radii = [0.4 * min(m.component.size_mm) * (float(s) / m.size_mm) for s, (_, m, _) in zip(sides, items)]
    return centres, radii


def _clusters(centres: np.ndarray, radii: Sequence[float]) -> list[list[int]]:
    """Group one component's markers whose faces land on the same place in the image
    (``_face_reach`` of its markers)."""
    n = len(radii)
    if n == 1:
        return [[0]]
    parent = list(range(n))

    def root(i: int) -> int:
        while parent[i] != i:
            parent[i] = parent[parent[i]]
            i = parent[i]
        return i

    for i in range(n):
        for j in range(i + 1, n):
            if np.linalg.norm(centres[i] - centres[j]) < max(radii[i], radii[j]):
                parent[root(i)] = root(j)
    groups: dict[int, list[int]] = {}
    for i in range(n):
        groups.setdefault(root(i), []).append(i)
    return list(groups.values())


def _one_face(items: list[tuple[Detection, Mark, np.ndarray]]) -> bool:
    """Whether one face homography explains all of a component's markers.

    A large board seen in perspective puts its anchors' separate centre guesses far
    apart; one fit over all its markers still lands on every corner. Two copies of one
    component cannot share a fit: the same printed marker cannot land in two places.
    """
    dets = tuple(d for d, _, _ in items)
    marks = tuple(m for _, m, _ in items)
    return bool(_remembered((_ONE_FACE, *dets, *marks), lambda: _explains_all(dets, marks)))


def _explains_all(dets: Sequence[Detection], marks: Sequence[Mark]) -> bool:
    """``_one_face`` computed: one fit over all the markers lands on every corner."""
    if len({(m.role, m.x_mm, m.y_mm) for m in marks}) < len(marks):
        return False
    h = _fused_homography(dets, marks)
    for d, m in zip(dets, marks):
        err = np.linalg.norm(apply_homography(h, m.face_corners()) - d.corners, axis=1).max()
        if not np.isfinite(err) or err > max(2.0, 0.12 * d.side_px):
            return False
    return True


def _where_mark(sighting: Sighting, role: MarkRole, catalog: Catalog) -> tuple[np.ndarray, float] | None:
    """Predicted image centre and side (px) of one of the sighting's own printed markers."""
    c = sighting.component
    if role is MarkRole.QR:
        mark = catalog.qr_marks.get(c.id)
    else:
        mark = catalog.by_tag.get(c.tag)
    if mark is None:
        return None
    pts = apply_homography(sighting.face_to_image, mark.face_corners())
    side = float(np.mean(np.linalg.norm(pts - np.roll(pts, -1, axis=0), axis=1)))
    return pts.mean(axis=0), side


def _other_role(role: MarkRole) -> MarkRole | None:
    """The marker a single marker's face also carries (none beside a board's anchor)."""
    if role is MarkRole.ANCHOR:
        return None
    return MarkRole.QR if role is MarkRole.TAG else MarkRole.TAG


def _maybe_near(singles: Sequence[Sighting], foreign: Sequence[Foreign], catalog: Catalog) -> list[bool]:
    """Per one-marker sighting: whether any other single or foreign marker lies near where its
    face's other marker would be (all at once). A loose, wider test: those flagged are checked
    exactly one by one, the rest (nearly all) cannot disagree with anything."""
    out = [False] * len(singles)
    rows, hs, corners = [], [], []
    for a, s in enumerate(singles):
        other = _other_role(s.marks[0].role)
        if other is None:
            continue
        c = s.component
        mark = catalog.qr_marks.get(c.id) if other is MarkRole.QR else catalog.by_tag.get(c.tag)
        if mark is None:
            continue
        rows.append(a)
        hs.append(s.face_to_image)
        corners.append(mark._corners)
    if not rows or len(singles) + len(foreign) < 2:
        return out
    pts = apply_homographies(np.array(hs), np.array(corners))
    side = np.linalg.norm(pts - pts[:, [1, 2, 3, 0]], axis=2).mean(axis=1)
    seen = np.array([s.detections[0].centre for s in singles] + [f.detection.centre for f in foreign])
    dist = np.linalg.norm(pts.mean(axis=1)[:, None, :] - seen[None, :, :], axis=2)
    close = dist < 0.4 * side[:, None] * (1 + 1e-6) + 1e-9
    close[np.arange(len(rows)), rows] = False
    for a, hit in zip(rows, close.any(axis=1)):
        out[a] = bool(hit)
    return out


def _from_another_game(game_id: str) -> str:
    return f"from another game ({find_game(game_id).name})"


def _their_tags(foreign: Sequence[Foreign]) -> list[tuple[int, str, np.ndarray, float]]:
    """Where other games' components whose QR code was read show their own tags: (tag id, game,
    image centre, side in pixels). Tags are numbered per game, so such a tag may name one of
    this game's components too."""
    out: list[tuple[int, str, np.ndarray, float]] = []
    for f in foreign:
        if f.detection.kind is not MarkerKind.QR:
            continue
        ref = parse_payload(f.text)
        if not isinstance(ref, ComponentRef):
            continue
        theirs = catalog_for(ref.game)
        qr = theirs.qr_marks.get(ref.component)
        if qr is None:
            continue
        h = _mark_homography(f.detection, qr)
        for tag, mark in _tags_of(ref.game, ref.component):
            corners = apply_homography(h, mark.face_corners())
            side = float(np.linalg.norm(corners - np.roll(corners, 1, axis=0), axis=1).mean())
            out.append((tag, ref.game, corners.mean(axis=0), side))
    return out


@lru_cache(maxsize=4096)
def _tags_of(game_id: str, component: str) -> tuple[tuple[int, Mark], ...]:
    return tuple((t, m) for t, m in catalog_for(game_id).by_tag.items()
                 if m.component.id == component and m.role is MarkRole.TAG)


def _on_their_face(det: Detection, theirs: Sequence[tuple[int, str, np.ndarray, float]]) -> str | None:
    """The other game whose read component shows this very tag where its face prints it."""
    for tag, game, centre, side in theirs:
        if tag == det.tag_id and float(np.linalg.norm(det.centre - centre)) < 0.5 * side:
            return game
    return None


def _attributed(f: Foreign, theirs: Sequence[tuple[int, str, np.ndarray, float]]) -> Foreign:
    if f.detection.kind is not MarkerKind.TAG or f.reason.startswith("from another game"):
        return f
    game = _on_their_face(f.detection, theirs)
    return f if game is None else Foreign(f.text, _from_another_game(game), f.detection)


def identify(detections: Iterable[Detection], catalog: Catalog) -> Identified:
    """Name every detection, fuse each component's markers, and set aside what cannot be trusted."""
    foreign: list[Foreign] = []
    face_down: list[FaceDown] = []
    per_component: dict[str, list[tuple[Detection, Mark, np.ndarray]]] = {}
    named = [(det, *_name(det, catalog)) for det in detections]
    foreign = [bad for _, _, bad in named if bad is not None]
    theirs = _their_tags(foreign)
    if theirs:  # a tag on another game's read component, where it prints its tag, is that game's
        foreign = [_attributed(f, theirs) for f in foreign]
    for det, mark, bad in named:
        if bad is not None or mark is None:
            continue
        game = _on_their_face(det, theirs) if theirs and det.kind is MarkerKind.TAG else None
        if game is not None:  # another game's component, its code read: its tag is its own
            foreign.append(Foreign(f"tag {det.tag_id}", _from_another_game(game), det))
            continue
        if mark.role is MarkRole.BACK:
            back = mark.component
            face_down.append(FaceDown(back.kind, catalog.game, det, _mark_homography(det, mark), back.size_mm))
            continue
        per_component.setdefault(mark.component.id, []).append(
            (det, mark, _mark_homography(det, mark))
        )

    several = [it for items in per_component.values() if len(items) > 1 for it in items]
    centres, radii = _face_reach(several) if several else (np.zeros((0, 2)), [])
    faces: list[tuple[str, tuple[Detection, ...], tuple[Mark, ...], np.ndarray | None]] = []
    at = 0
    for cid, items in per_component.items():
        if len(items) == 1:
            groups = [[0]]
        else:
            groups = _clusters(centres[at : at + len(items)], radii[at : at + len(items)])
            at += len(items)
        if len(groups) > 1 and _one_face(items):
            groups = [list(range(len(items)))]
        for group in groups:
            dets = tuple(items[i][0] for i in group)
            marks = tuple(items[i][1] for i in group)
            faces.append((cid, dets, marks, items[group[0]][2] if len(group) == 1 else None))
    fused = iter(_fused_homographies([(dets, marks) for _, dets, marks, h in faces if h is None]))
    located: dict[str, list[Sighting]] = {}
    for cid, dets, marks, h in faces:
        comp = marks[0].component
        located.setdefault(cid, []).append(
            Sighting(comp, _printed(catalog.game, comp.id), dets, marks, next(fused) if h is None else h)
        )

    sightings: list[Sighting] = []
    duplicated: list[Duplicate] = []
    for cid, found in located.items():
        if len(found) > 1:
            coded = [s for s in found if any(m.role is MarkRole.QR for m in s.marks)]
            lone = [s for s in found if s not in coded]
            if len(coded) == 1 and lone and all(tag_printed_elsewhere(s) for s in lone):
                # The component is read by its code; a tag alone elsewhere that another game
                # prints too is most likely that game's component, not a second copy.
                sightings.append(coded[0])
                foreign += [Foreign(f"tag {s.detections[0].tag_id}", f"a tag another game prints too; {cid} is read"
                                    " by its code elsewhere", s.detections[0]) for s in lone]
                continue
            duplicated.append(Duplicate(cid, tuple(found)))
        else:
            sightings.append(found[0])

    disagreements: list[Disagreement] = []
    rejected: set[int] = set()
    used_foreign: set[int] = set()
    disagreements += _disputed([s for s in sightings if len(s.marks) == 1], foreign, catalog, rejected, used_foreign)
    disagreements.extend(_tags_of_another_game(sightings, foreign, catalog, rejected, used_foreign))
    face_down, not_ours = _backs_of_another_game(face_down, foreign, sightings)
    return Identified(
        tuple(s for s in sightings if id(s) not in rejected),
        tuple(f for k, f in enumerate(foreign) if k not in used_foreign) + tuple(not_ours),
        tuple(duplicated),
        tuple(disagreements),
        tuple(face_down),
        any(_of_another_game(f, catalog.game) for f in foreign),
    )


def _only_ours(s: Sighting, game_id: str) -> bool:
    """Read by its code, or by tag ids no other game uses (a steep view may decode no code)."""
    return any(m.role is MarkRole.QR for m in s.marks) or all(_tag_owner(d.tag_id) == game_id for d in s.detections)


def _of_another_game(f: Foreign, game_id: str) -> bool:
    """A marker another game prints: its component's code, or a tag id that only it uses."""
    if f.detection.kind is MarkerKind.QR:
        ref = parse_payload(f.text)
        return isinstance(ref, ComponentRef) and ref.game != game_id
    tag = f.detection.tag_id
    return tag is not None and _tag_owner(tag) not in (None, game_id)


def _disputed(
    singles: Sequence[Sighting], foreign: Sequence[Foreign], catalog: Catalog, rejected: set[int], used_foreign: set[int]
) -> list[Disagreement]:
    """A component read by one marker whose other marker, where its face prints it, reads
    another component or a foreign code: neither is trusted (both are added to ``rejected``,
    the foreign code to ``used_foreign``)."""
    disagreements: list[Disagreement] = []
    near = _maybe_near(singles, foreign, catalog)
    for s, maybe in zip(singles, near):
        if not maybe:
            continue
        own = s.marks[0].role
        if own is MarkRole.ANCHOR:
            continue
        other = MarkRole.QR if own is MarkRole.TAG else MarkRole.TAG
        where = _where_mark(s, other, catalog)
        if where is None:
            continue
        centre, side = where
        for t in singles:
            if t is s or t.marks[0].role is not other or id(t) in rejected:
                continue
            if np.linalg.norm(t.detections[0].centre - centre) < 0.4 * side:
                rejected.update((id(s), id(t)))
                disagreements.append(
                    Disagreement(
                        (s.component.id, t.component.id),
                        (s.detections[0], t.detections[0]),
                        f"the {own.value} reads {s.component.name} but the {other.value}"
                        f" on the same face reads {t.component.name}",
                    )
                )
        for k, f in enumerate(foreign):
            kind = MarkerKind.QR if other is MarkRole.QR else MarkerKind.TAG
            if f.detection.kind is not kind or k in used_foreign:
                continue
            if np.linalg.norm(f.detection.centre - centre) < 0.4 * side:
                used_foreign.add(k)
                rejected.add(id(s))
                disagreements.append(
                    Disagreement(
                        (s.component.id, f.text),
                        (s.detections[0], f.detection),
                        f"the {own.value} reads {s.component.name} but the {other.value}"
                        f" on the same face is {f.text!r} ({f.reason})",
                    )
                )
    return disagreements


def _backs_of_another_game(
    face_down: Sequence[FaceDown], foreign: Sequence[Foreign], sightings: Sequence[Sighting]
) -> tuple[list[FaceDown], list[Foreign]]:
    """Tags are numbered per game, so a back tag may be another game's component tag: not a
    face-down card when it lies on a face of another game whose code was read, or when the
    frame shows three or more codes of other games and none of this one."""
    if not face_down:
        return [], []
    faces = _other_game_faces(foreign)
    if not faces:
        return list(face_down), []
    own_codes = sum(1 for s in sightings if any(m.role is MarkRole.QR for m in s.marks))
    wrong_table = own_codes == 0 and len(faces) >= 3
    kept: list[FaceDown] = []
    moved: list[Foreign] = []
    for f in face_down:
        x, y = (float(v) for v in f.detection.centre)
        on_other = any(
            cv2.pointPolygonTest(outline.astype(np.float32).reshape(-1, 1, 2), (x, y), False) >= 0
            for _, _, outline in faces
        )
        if on_other or wrong_table:
            tag = f.detection.tag_id
            moved.append(Foreign(f"tag {tag}", "a tag of another game's component, not a card back of this game", f.detection))
        else:
            kept.append(f)
    return kept, moved


def _other_game_faces(foreign: Sequence[Foreign]) -> list[tuple[int, Foreign, np.ndarray]]:
    """Faces of other games' components whose QR code was read: (index, code, image outline)."""
    out: list[tuple[int, Foreign, np.ndarray]] = []
    for k, f in enumerate(foreign):
        if f.detection.kind is not MarkerKind.QR:
            continue
        ref = parse_payload(f.text)
        if not isinstance(ref, ComponentRef):
            continue
        mark = catalog_for(ref.game).qr_marks.get(ref.component)
        if mark is None:
            continue
        w, h = mark.component.size_mm
        corners = np.array([[0, 0], [w, 0], [w, h], [0, h]], float)
        out.append((k, f, apply_homography(_mark_homography(f.detection, mark), corners)))
    return out


def _tags_of_another_game(
    sightings: Sequence[Sighting],
    foreign: Sequence[Foreign],
    catalog: Catalog,
    rejected: set[int],
    used_foreign: set[int],
) -> list[Disagreement]:
    """Tags are numbered per game, so a tag read alone may belong to another game's component.

    A tag-only sighting is not trusted when it lies on the face of another game's component
    whose QR code was read, or when the frame shows three or more codes of other games and
    nothing only this game prints (the photo is most likely of another game's table).
    """
    faces = _other_game_faces(foreign)
    if not faces:
        return []
    wrong_table = len(faces) >= 3 and not any(_only_ours(s, catalog.game) for s in sightings)
    out: list[Disagreement] = []
    for s in sightings:
        if id(s) in rejected or any(m.role is not MarkRole.TAG for m in s.marks):
            continue
        centre = s.detections[0].centre
        hit = next(
            (
                (k, f)
                for k, f, outline in faces
                if cv2.pointPolygonTest(
                    outline.astype(np.float32).reshape(-1, 1, 2),
                    (float(centre[0]), float(centre[1])),
                    False,
                )
                >= 0
            ),
            None,
        )
        if hit is None and not wrong_table:
            continue
        rejected.add(id(s))
        if hit is not None:
            k, f = hit
            used_foreign.add(k)
            message = (
                f"the tag reads {s.component.name} of {find_game(catalog.game).name}, but it lies on a component of"
                f" another game whose code reads {f.text!r}"
            )
            out.append(Disagreement((s.component.id, f.text), (s.detections[0], f.detection), message))
        else:
            message = (
                f"the tag reads {s.component.name} of {find_game(catalog.game).name}, but this table shows codes of"
                " other games and none of this one: is the right game chosen?"
            )
            out.append(Disagreement((s.component.id,), (s.detections[0],), message))
    return out

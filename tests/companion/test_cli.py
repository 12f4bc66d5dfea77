"""The command line on every registered game: score, check, and one-line errors for bad input."""

from __future__ import annotations

import json
import re
from importlib import resources
from pathlib import Path

import pytest

from companion.cli import main
from scoring import find_game, game_ids

GAMES = game_ids()


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def data_file(game: str, name: str) -> Path:
    return Path(str(resources.files("scoring").joinpath("data", game, name)))


def test_games_lists_every_game(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "games", "--json")
    assert code == 0
    assert [g["id"] for g in json.loads(out)] == list(GAMES)


@pytest.mark.parametrize("game", GAMES)
def test_score_example_prints_an_itemised_sheet(
    game: str, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, err = run(capsys, "score", str(data_file(game, "example.json")))
    assert code == 0, err
    assert "Winner:" in out and "total" in out
    code, out, _ = run(capsys, "score", "--example", game, "--json")
    sheet = json.loads(out)
    assert code == 0
    for p in sheet["players"]:
        assert p["total"] == sum(line["points"] for line in p["lines"])
    expected = find_game(game).score_sheet(find_game(game).load_state(find_game(game).example_state()))
    assert {p["player"]: p["total"] for p in sheet["players"]} == {
        s.player: s.total for s in expected.scores
    }


@pytest.mark.parametrize("game", GAMES)
def test_check_flags_the_example_illegal_move(
    game: str, capsys: pytest.CaptureFixture[str]
) -> None:
    before, after = data_file(game, "example_before.json"), data_file(game, "example_after.json")
    code, out, _ = run(capsys, "check", str(before), str(after), "--json")
    assert code == 1
    doc = json.loads(out)
    assert doc["legal"] is False and doc["violations"]
    assert all("/" in v["code"] and v["message"] for v in doc["violations"])
    code, out, _ = run(capsys, "check", str(before), str(before))
    assert code == 0 or "Illegal" in out  # same state twice: a game may demand a move


def test_bad_inputs_give_one_line_and_exit_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    game = GAMES[0]
    broken = tmp_path / "broken.json"
    broken.write_text("{not json", "utf-8")
    wrong = tmp_path / "wrong.json"
    doc = dict(find_game(game).example_state())
    doc["format"] = 99
    wrong.write_text(json.dumps(doc), "utf-8")
    binary = tmp_path / "binary.json"
    binary.write_bytes(b"\xff\xfe\x00garbage")
    nogame = tmp_path / "nogame.json"
    nogame.write_text("[]", "utf-8")
    cases = [
        (("score", str(tmp_path / "missing.json")), "no such file"),
        (("score", str(broken)), "not valid JSON"),
        (("score", str(wrong)), "'format' must be 1"),
        (("score", str(binary)), "not UTF-8"),
        (("score", str(nogame)), "no 'game' field"),
        (("score", str(tmp_path)), "is a directory"),
        (("score", "--example", "chess"), "unknown game 'chess'"),
        (("check", str(wrong), str(wrong)), "'format' must be 1"),
        (("score",), "give a STATE.json"),
    ]
    for argv, message in cases:
        code, out, err = run(capsys, *argv)
        assert code == 2, argv
        assert message in err, (argv, err)
        assert err.count("\n") == 1 and "Traceback" not in err


def test_print_errors_speak_of_the_command_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = str(tmp_path / "x.pdf")
    code, _, err = run(capsys, "print", "phylo", "--what", "tiles", "-o", out)
    assert code == 2 and "PHYLO has no tiles to print; it has cards" in err
    assert not (tmp_path / "x.pdf").exists()
    code, _, err = run(capsys, "print", "habitats", "--what", "stickers", "--label-sheet", "nope", "-o", out)
    assert code == 2 and "--label-sheet must be one of" in err
    code, _, err = run(capsys, "print", "habitats", "--bleed", "9", "-o", out)
    assert code == 2 and "--bleed must be within 0..5 mm" in err
    code, out_text, _ = run(capsys, "print", "phylo", "--what", "cards", "-o", out)
    assert code == 0 and (tmp_path / "x.pdf").read_bytes().startswith(b"%PDF")


@pytest.mark.parametrize("gid", ["habitats", "phylo"])
def test_scan_prints_the_board_and_the_score_of_a_sample_photo(gid: str, capsys: pytest.CaptureFixture[str]) -> None:
    import vision

    photo = vision.sample_photo(gid)
    code, out, _ = run(capsys, "scan", str(photo), "--game", gid)
    assert code == 0
    game = find_game(gid)
    truth = game.load_state(json.loads(photo.with_suffix(".json").read_text("utf-8")))
    assert f"Recognised {len(truth.placements)} component(s):" in out
    totals = [int(t) for t in re.findall(r"^\s+total\s+(-?\d+)$", out, re.M)]
    assert "Winner:" in out and sorted(totals) == sorted(s.total for s in game.score_sheet(truth).scores)
    # The caution stands next to the sheet exactly when something was not read (the PHYLO
    # sample shows a note's black squares, reported as unreadable tags).
    assert ("may be incomplete" in out) == ("Unreadable:" in out or "Problems:" in out)


def test_scan_says_what_it_could_not_read_next_to_the_score(capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    import dataclasses

    import vision
    from vision.problems import Problem, ProblemCode

    real = vision.recognise
    missing = Problem(ProblemCode.PLAYER_NOT_IN_VIEW, "no player board of Ben (ben) is in view; that player is left out of this reading")
    monkeypatch.setattr(vision, "recognise", lambda data, game_id: dataclasses.replace(real(data, game_id), problems=(missing,)))
    code, out, _ = run(capsys, "scan", str(vision.sample_photo("habitats")), "--game", "habitats")
    assert code == 0
    assert "Problems: 1\n  layout/player_not_in_view: no player board of Ben (ben) is in view" in out
    assert out.index("may be incomplete") < out.index("Winner:")

"""One test per rule of each Wolf Village role, of the sheriff title, of the night and dawn
order, of the house rules and of the night modes (seed 000, «Todos los roles»).

Players are named after the card they hold (Wolf, Seer, Doc, Vic...) so each test reads
like the table it describes. Every refusal also checks that the game is left unchanged.
"""

from __future__ import annotations

import copy
from typing import Any

import pytest

from rules import TABLE, Refused, replay
from rules.wolf_village import start

NO_POTION = {"heal": False, "poison": None}


# --------------------------------------------------------------------------- helpers


def doc(roles: str, seed: int = 7, actions: list[Any] | None = None, **options: Any) -> dict:
    """A fixed deck from 'Name:role Name:role ...' in seat order."""
    players = [entry.split(":") for entry in roles.split()]
    out: dict[str, Any] = {"seed": seed, "options": options, "players": players}
    if actions is not None:
        out["actions"] = actions
    return out


def new(roles: str, seed: int = 7, **options: Any):
    return start(doc(roles, seed, **options))


def answer(game, **answers: Any) -> None:
    """Each named player answers the decision the game asks of them, in the game's order."""
    todo = dict(answers)
    while todo:
        ready = [d for d in game.pending() if d.player in todo]
        assert ready, f"none of {sorted(todo)} is asked; pending: {game.pending()}"
        for d in ready:
            game.apply(d.player, d.action, todo.pop(d.player))


def vote_all(game, target: Any, **others: Any) -> None:
    """Every pending voter (or elector) picks `target`, except those given their own."""
    ballots = {d.player: others.get(d.player, target) for d in game.pending()}
    assert set(others) <= set(ballots), f"{sorted(others)} are not all asked: {game.pending()}"
    answer(game, **ballots)


def pending(game) -> list[tuple[str, str]]:
    return [(d.player, d.action) for d in game.pending()]


def of_type(game_or_events, kind: str) -> list[dict]:
    events = game_or_events if isinstance(game_or_events, list) else game_or_events.events
    return [e for e in events if e["type"] == kind]


def deaths(game) -> list[tuple[str, str]]:
    return [(e["player"], e["cause"]) for e in of_type(game, "death")]


def snapshot(game) -> dict[str, Any]:
    """Everything the game holds (public answers and private state), deep-copied."""
    state = {
        k: copy.deepcopy(v)
        for k, v in vars(game).items()
        # (_pending is what pending() answered last, kept until the next action: a cache,
        # compared through pending() below)
        if k not in {"_handlers", "rng", "setup", "options", "_pending"}
    }
    state["rng"] = game.rng.getstate()
    state["public"] = (
        pending(game),
        game.alive_names(),
        game.winner,
        list(game.winners),
        game.lovers_names(),
        game.sheriff_name(),
        game.pack_victim(),
        [game.current_role(p) for p in game.players],
    )
    return state


def refused(game, actor: Any, verb: Any, target: Any) -> str:
    """Assert the action is refused and changes nothing; return the reason."""
    before = snapshot(game)
    with pytest.raises(Refused) as info:
        game.apply(actor, verb, target)
    assert snapshot(game) == before
    assert info.value.reason
    return info.value.reason


def replay_refuses(base: dict, bad: list[Any]) -> dict:
    """Replaying `base` + `bad` stops at `bad` with the state of `base` alone."""
    good = replay(base)
    assert good["error"] is None, good["error"]
    tail = [*base["actions"], bad, ["Nobody", "vote", None]]  # after the error: never applied
    out = replay(dict(base, actions=tail))
    assert out["error"] is not None
    assert out["error"]["index"] == len(base["actions"])
    assert out["error"]["action"] == bad
    assert {k: v for k, v in out.items() if k != "error"} == {
        k: v for k, v in good.items() if k != "error"
    }
    return out["error"]


# --------------------------------------------------------------------------- werewolves

FIVE = "Wolf:werewolf Seer:seer Vic:villager Val:villager Ted:villager"


def test_werewolves_kill_their_victim_at_dawn():
    """«Cada noche eligen en secreto a un jugador para matarlo.»"""
    game = new(FIVE)
    answer(game, Wolf="Vic", Seer="Ted")
    assert deaths(game) == [("Vic", "werewolves")]
    assert "Vic" not in game.alive_names()


def test_werewolves_cannot_bite_their_own_pack():
    """«No pueden atacar a un miembro de su propia manada.»"""
    game = new("Wolf:werewolf Wolf2:werewolf Vic:villager Val:villager Ted:villager")
    assert "Wolf2" not in game.legal_targets("Wolf", "kill")
    refused(game, "Wolf", "kill", "Wolf2")
    refused(game, "Wolf", "kill", "Wolf")


def test_pack_victim_plurality_with_seeded_tiebreak():
    """«la víctima es el jugador que eligieron más lobos, y el azar decide los empates.»"""
    three = "Wolf:werewolf Wolf2:werewolf Wolf3:werewolf " + " ".join(
        f"V{i}:villager" for i in range(5)
    )
    for seed in range(10):
        game = new(three, seed=seed)
        answer(game, Wolf="V0", Wolf2="V1", Wolf3="V1")
        assert game.pack_victim() == "V1"

    two = "Wolf:werewolf Wolf2:werewolf Vic:villager Val:villager Ted:villager Kat:villager"
    seen = set()
    for seed in range(40):
        victims = set()
        for _ in range(2):  # the same seed always breaks the tie the same way
            game = new(two, seed=seed)
            answer(game, Wolf="Vic", Wolf2="Val")
            victims.add(game.pack_victim())
        assert len(victims) == 1
        assert victims <= {"Vic", "Val"}
        seen |= victims
    assert seen == {"Vic", "Val"}


def test_pack_victim_fixed_once_the_whole_pack_has_chosen():
    """«fijado en cuanto toda la manada ha elegido (por eso se le puede mostrar a la bruja)»"""
    game = new("Wolf:werewolf Wolf2:werewolf Witch:witch Vic:villager Val:villager Ted:villager")
    game.apply("Wolf", "kill", "Vic")
    assert game.pack_victim() is None
    assert of_type(game, "pack_victim") == []
    game.apply("Wolf2", "kill", "Vic")
    assert game.pack_victim() == "Vic"
    assert of_type(game, "pack_victim") == [{"type": "pack_victim", "player": "Vic"}]
    assert pending(game) == [("Witch", "witch")]


def test_pack_of_one_hunts_alone():
    """«Una manada de uno caza sola.»"""
    game = new(FIVE)
    assert pending(game) == [("Wolf", "kill")]
    game.apply("Wolf", "kill", "Val")
    assert game.pack_victim() == "Val"


def test_werewolves_win_when_as_many_as_the_others():
    """«Si quedan dos hombres lobo y otros dos jugadores, gana la manada.»"""
    game = new("Wolf:werewolf Wolf2:werewolf Vic:villager Val:villager Ted:villager")
    answer(game, Wolf="Ted", Wolf2="Ted")
    assert game.winner == "werewolves"
    assert game.winners == ["Wolf", "Wolf2"]
    assert of_type(game, "game_over")[-1]["winner"] == "werewolves"
    assert game.pending() == []


def test_village_wins_when_the_last_werewolf_dies():
    """«El pueblo gana cuando muere el último hombre lobo.»"""
    game = new(FIVE)
    answer(game, Wolf="Vic", Seer="Wolf")
    vote_all(game, "Wolf", Wolf="Seer")
    assert game.winner == "village"
    assert game.winners == ["Seer", "Vic", "Val", "Ted"]


# --------------------------------------------------------------------------- villager


def test_villager_has_no_night_power():
    """Aldeano: «Sin poderes especiales, solo tu ingenio y tu voto.»"""
    game = new(FIVE)
    while not of_type(game, "day"):
        assert all(d.player not in {"Vic", "Val", "Ted"} for d in game.pending())
        answer(game, **{d.player: "Vic" for d in game.pending()})
    assert ("Val", "vote") in pending(game)


# --------------------------------------------------------------------------- seer


@pytest.mark.parametrize(
    ("role", "werewolf"),
    [
        ("werewolf", True),
        ("villager", False),
        ("minion", False),
        ("fox", False),
        ("cursed", False),
        ("doctor", False),
        ("hunter", False),
        ("jester", False),
    ],
)
def test_seer_sees_only_werewolves_as_werewolf(role, werewolf):
    """«Solo un hombre lobo aparece como hombre lobo. El esbirro, el zorro y el maldito
    (hasta que se transforma) aparecen como «no es hombre lobo».»"""
    wolves = "" if role == "werewolf" else "Wolf:werewolf "
    game = new(f"{wolves}Seer:seer Them:{role} Vic:villager Val:villager Ted:villager")
    wolf = "Them" if role == "werewolf" else "Wolf"
    answer(game, **{wolf: "Vic"})
    game.apply("Seer", "inspect", "Them")
    assert of_type(game, "inspection") == [
        {"type": "inspection", "seer": "Seer", "target": "Them", "werewolf": werewolf}
    ]


def test_seer_cannot_inspect_herself():
    """«El vidente no puede mirarse a sí mismo.»"""
    game = new(FIVE)
    answer(game, Wolf="Vic")
    assert "Seer" not in game.legal_targets("Seer", "inspect")
    refused(game, "Seer", "inspect", "Seer")


def test_seer_chooses_a_living_player():
    """«Cada noche el vidente elige a otro jugador» — the dead are out of the game."""
    game = new(FIVE + " Kat:villager")
    answer(game, Wolf="Vic", Seer="Wolf")
    vote_all(game, None)
    game.apply("Wolf", "kill", "Val")
    assert "Vic" not in game.legal_targets("Seer", "inspect")
    refused(game, "Seer", "inspect", "Vic")


def test_seer_killed_tonight_still_sees():
    """«Un vidente muerto esta noche sigue viendo»."""
    game = new(FIVE)
    answer(game, Wolf="Seer", Seer="Wolf")
    assert ("Seer", "werewolves") in deaths(game)
    assert of_type(game, "inspection")[0]["werewolf"] is True
    events = game.events
    assert events.index(of_type(game, "inspection")[0]) < events.index(of_type(game, "dawn")[0])


# --------------------------------------------------------------------------- doctor

DOC6 = "Wolf:werewolf Seer:seer Doc:doctor Vic:villager Val:villager Ted:villager"


def test_doctor_protection_saves_the_pack_victim():
    """«Si los hombres lobo atacan a ese jugador, sobrevive.»"""
    game = new(DOC6)
    answer(game, Wolf="Vic", Seer="Wolf", Doc="Vic")
    assert deaths(game) == []
    assert of_type(game, "saved") == [{"type": "saved", "player": "Vic", "by": "doctor"}]


def test_doctor_self_protect_on_by_default():
    """«El médico puede protegerse a sí mismo: activado por defecto.»"""
    game = new(DOC6)
    answer(game, Wolf="Doc", Seer="Wolf")
    assert "Doc" in game.legal_targets("Doc", "protect")
    game.apply("Doc", "protect", "Doc")
    assert deaths(game) == []
    assert "Doc" in game.alive_names()


def test_doctor_self_protect_option_off():
    """Interruptor: «El médico puede protegerse a sí mismo» desactivado."""
    game = new(DOC6, doctor_self_protect=False)
    answer(game, Wolf="Doc", Seer="Wolf")
    assert "Doc" not in game.legal_targets("Doc", "protect")
    refused(game, "Doc", "protect", "Doc")


def test_doctor_cannot_repeat_by_default():
    """«Por defecto, el médico no puede proteger al mismo jugador dos noches seguidas.»"""
    game = new(DOC6)
    answer(game, Wolf="Vic", Seer="Wolf", Doc="Val")
    vote_all(game, None)
    answer(game, Wolf="Ted", Seer="Val")
    assert "Val" not in game.legal_targets("Doc", "protect")
    refused(game, "Doc", "protect", "Val")


def test_doctor_repeat_refused_in_replay_keeps_state():
    """«desactivado por defecto» (proteger al mismo jugador dos noches seguidas)."""
    base = doc(
        DOC6,
        actions=[
            ["Wolf", "kill", "Vic"], ["Seer", "inspect", "Wolf"], ["Doc", "protect", "Val"],
            *[[p, "vote", None] for p in ("Wolf", "Seer", "Doc", "Val", "Ted")],
            ["Wolf", "kill", "Ted"], ["Seer", "inspect", "Val"],
        ],
    )
    error = replay_refuses(base, ["Doc", "protect", "Val"])
    assert error["reason"]


def test_doctor_may_protect_again_after_a_night_between():
    """«dos noches seguidas»: only consecutive nights are forbidden."""
    game = new(DOC6 + " Kat:villager Lou:villager")
    answer(game, Wolf="Vic", Seer="Wolf", Doc="Val")
    vote_all(game, None)
    answer(game, Wolf="Ted", Seer="Kat", Doc="Kat")
    vote_all(game, None)
    answer(game, Wolf="Val", Seer="Val")
    assert "Val" in game.legal_targets("Doc", "protect")
    game.apply("Doc", "protect", "Val")
    assert ("Val", "werewolves") not in deaths(game)


def test_doctor_repeat_option():
    """«El médico puede repetir (proteger al mismo jugador dos noches seguidas)»."""
    game = new(DOC6, doctor_repeat=True)
    answer(game, Wolf="Vic", Seer="Wolf", Doc="Val")
    vote_all(game, None)
    answer(game, Wolf="Val", Seer="Ted")
    assert "Val" in game.legal_targets("Doc", "protect")
    game.apply("Doc", "protect", "Val")
    assert "Val" in game.alive_names()
    assert of_type(game, "saved")[-1] == {"type": "saved", "player": "Val", "by": "doctor"}


def test_doctor_does_not_stop_poison():
    """«Solo el mordisco de los hombres lobo. No detiene el veneno de la bruja»."""
    game = new(DOC6 + " Witch:witch")
    answer(game, Wolf="Vic", Seer="Wolf", Doc="Ted", Witch={"heal": False, "poison": "Ted"})
    assert ("Ted", "poison") in deaths(game)


def test_doctor_does_not_stop_grief():
    """«No detiene ... una muerte de pena»."""
    game = new(DOC6 + " Cupid:cupid")
    answer(game, Cupid=["Vic", "Ted"], Wolf="Vic", Seer="Wolf", Doc="Ted")
    assert deaths(game) == [("Vic", "werewolves"), ("Ted", "grief")]


def test_doctor_does_not_stop_the_hunter():
    """«No detiene ... el disparo del cazador»."""
    game = new(DOC6 + " Hunter:hunter")
    answer(game, Wolf="Hunter", Seer="Wolf", Doc="Val")
    answer(game, Hunter="Val")
    assert deaths(game) == [("Hunter", "werewolves"), ("Val", "hunter")]


def test_doctor_does_not_stop_the_seers_look_at_the_fox():
    """«No detiene ... la mirada del vidente al zorro.»"""
    game = new(DOC6 + " Fox:fox")
    answer(game, Wolf="Vic", Seer="Fox", Doc="Fox")
    assert ("Fox", "vanished") in deaths(game)


# --------------------------------------------------------------------------- witch

WITCH6 = "Wolf:werewolf Seer:seer Witch:witch Vic:villager Val:villager Ted:villager Kat:villager"


def test_witch_is_shown_the_pack_victim():
    """«De noche se le muestra la víctima de los hombres lobo.»"""
    game = new(WITCH6)
    answer(game, Wolf="Vic", Seer="Wolf")
    assert pending(game) == [("Witch", "witch")]
    assert game.pack_victim() == "Vic"


def test_witch_heal_saves_the_victim():
    """«La poción curativa puede salvar a esa víctima».«la poción curativa de la bruja salvó
    a su víctima. Nadie murió.»"""
    game = new(WITCH6)
    answer(game, Wolf="Vic", Seer="Wolf", Witch={"heal": True, "poison": None})
    assert deaths(game) == []
    assert of_type(game, "saved") == [{"type": "saved", "player": "Vic", "by": "witch"}]


def test_witch_may_heal_herself():
    """«aunque sea la propia bruja». «Puede curarse a sí misma.»"""
    game = new(WITCH6)
    answer(game, Wolf="Witch", Seer="Wolf", Witch={"heal": True, "poison": None})
    assert "Witch" in game.alive_names()
    assert deaths(game) == []


def test_witch_cannot_poison_herself():
    """«No puede envenenarse a sí misma.»"""
    game = new(WITCH6)
    answer(game, Wolf="Vic", Seer="Wolf")
    assert {"heal": False, "poison": "Witch"} not in game.legal_targets("Witch", "witch")
    refused(game, "Witch", "witch", {"heal": False, "poison": "Witch"})


def test_witch_poison_kills_that_same_night():
    """«El veneno mata esa misma noche a cualquier otro jugador que la bruja elija.»"""
    game = new(WITCH6)
    answer(game, Wolf="Vic", Seer="Wolf", Witch={"heal": False, "poison": "Wolf"})
    assert deaths(game) == [("Vic", "werewolves"), ("Wolf", "poison")]
    assert game.winner == "village"


def test_witch_may_use_both_potions_same_night():
    """«Puede usar las dos pociones en la misma noche.»"""
    game = new(WITCH6)
    answer(game, Wolf="Vic", Seer="Wolf", Witch={"heal": True, "poison": "Ted"})
    assert deaths(game) == [("Ted", "poison")]
    assert of_type(game, "saved") == [{"type": "saved", "player": "Vic", "by": "witch"}]


def test_witch_each_potion_once_per_game():
    """«cada una sirve una sola vez en toda la partida.»"""
    game = new(WITCH6 + " Lou:villager")
    answer(game, Wolf="Vic", Seer="Wolf", Witch={"heal": True, "poison": None})
    vote_all(game, None)
    answer(game, Wolf="Val", Seer="Vic")
    assert {"heal": True, "poison": None} not in game.legal_targets("Witch", "witch")
    refused(game, "Witch", "witch", {"heal": True, "poison": None})  # healing twice
    game.apply("Witch", "witch", {"heal": False, "poison": "Ted"})
    vote_all(game, None)
    game.apply("Wolf", "kill", "Kat")
    assert game.legal_targets("Witch", "witch") == []
    refused(game, "Witch", "witch", {"heal": False, "poison": "Lou"})  # poisoning twice


def test_witch_without_potions_has_no_night_power():
    """«Cuando ya gastó las dos, la bruja no tiene más poder nocturno.»"""
    game = new(WITCH6 + " Lou:villager")
    answer(game, Wolf="Vic", Seer="Wolf", Witch={"heal": True, "poison": "Ted"})
    vote_all(game, None)
    answer(game, Wolf="Val", Seer="Vic")
    assert len(of_type(game, "dawn")) == 2
    assert ("Witch", "witch") not in pending(game)


def test_witch_killed_tonight_still_poisons():
    """«una bruja muerta esta noche sigue envenenando»."""
    game = new(WITCH6)
    answer(game, Wolf="Witch", Seer="Vic", Witch={"heal": False, "poison": "Val"})
    assert deaths(game) == [("Witch", "werewolves"), ("Val", "poison")]


def test_doctor_and_witch_save_same_victim_doctor_credited_potion_spent():
    """«La víctima vive y la mañana se lo atribuye al médico. La poción curativa de la bruja
    se gasta igualmente.»"""
    game = new(WITCH6 + " Doc:doctor")
    answer(game, Wolf="Vic", Seer="Wolf", Doc="Vic", Witch={"heal": True, "poison": None})
    assert deaths(game) == []
    assert of_type(game, "saved") == [{"type": "saved", "player": "Vic", "by": "doctor"}]
    vote_all(game, None)
    answer(game, Wolf="Val", Seer="Vic", Doc="Ted")
    assert {"heal": True, "poison": None} not in game.legal_targets("Witch", "witch")


# --------------------------------------------------------------------------- hunter

HUNT = "Wolf:werewolf Wolf2:werewolf Hunter:hunter Seer:seer Vic:villager Val:villager Ted:villager"


def test_hunter_shoots_when_killed_at_night():
    """«Cuando muere, de noche o en una votación, dispara al instante a un jugador vivo»."""
    game = new(HUNT)
    answer(game, Wolf="Hunter", Wolf2="Hunter", Seer="Vic")
    assert pending(game) == [("Hunter", "shoot")]
    game.apply("Hunter", "shoot", "Wolf")
    assert deaths(game) == [("Hunter", "werewolves"), ("Wolf", "hunter")]


def test_hunter_shoots_when_voted_out():
    """«Cuando muere, de noche o en una votación, dispara al instante»."""
    game = new(HUNT)
    answer(game, Wolf="Vic", Wolf2="Vic", Seer="Val")
    vote_all(game, "Hunter", Hunter="Wolf")
    assert pending(game) == [("Hunter", "shoot")]
    game.apply("Hunter", "shoot", "Wolf2")
    assert deaths(game)[-2:] == [("Hunter", "vote"), ("Wolf2", "hunter")]


def test_hunter_shoots_on_any_death():
    """«El cazador muere de pena o envenenado. Dispara igualmente. Cualquier muerte cuenta.»"""
    game = new(HUNT + " Witch:witch")
    answer(game, Wolf="Vic", Wolf2="Vic", Seer="Val", Witch={"heal": False, "poison": "Hunter"})
    assert pending(game) == [("Hunter", "shoot")]
    assert ("Hunter", "poison") in deaths(game)

    game = new(HUNT + " Cupid:cupid")
    answer(game, Cupid=["Hunter", "Vic"], Wolf="Vic", Wolf2="Vic", Seer="Val")
    assert deaths(game) == [("Vic", "werewolves"), ("Hunter", "grief")]
    assert pending(game) == [("Hunter", "shoot")]


def test_hunter_shot_is_not_optional():
    """«El disparo no es opcional.» «dispara ... a un jugador vivo que elija.»"""
    game = new(HUNT)
    answer(game, Wolf="Hunter", Wolf2="Hunter", Seer="Val")
    refused(game, "Hunter", "shoot", None)
    refused(game, "Hunter", "shoot", "Hunter")
    refused(game, "Hunter", "shoot", "Nobody")
    assert None not in game.legal_targets("Hunter", "shoot")


def test_hunter_cannot_shoot_a_dead_player():
    """«dispara al instante a un jugador vivo que elija.»"""
    game = new(HUNT + " Witch:witch")
    answer(game, Wolf="Hunter", Wolf2="Hunter", Seer="Val", Witch={"heal": False, "poison": "Ted"})
    assert "Ted" not in game.legal_targets("Hunter", "shoot")
    refused(game, "Hunter", "shoot", "Ted")


def test_hunter_shot_drags_the_lover_and_kills_the_fox():
    """«Cada muerte arrastra consigo al enamorado del muerto.» «un disparo del cazador ...
    también pueden acabar con el zorro.»"""
    game = new(HUNT + " Cupid:cupid Fox:fox")
    answer(game, Cupid=["Fox", "Ted"], Wolf="Hunter", Wolf2="Hunter", Seer="Val")
    game.apply("Hunter", "shoot", "Fox")
    assert deaths(game) == [("Hunter", "werewolves"), ("Fox", "hunter"), ("Ted", "grief")]


def test_hunter_shot_comes_before_the_win_check():
    """«El disparo va primero. El juego comprueba si hay ganador solo después del disparo.»"""
    game = new("Wolf:werewolf Wolf2:werewolf Hunter:hunter Vic:villager Val:villager")
    answer(game, Wolf="Hunter", Wolf2="Hunter")
    assert game.winner is None  # two wolves against two others, but the hunter aims first
    game.apply("Hunter", "shoot", "Wolf")
    assert game.winner is None
    assert ("Vic", "vote") in pending(game)


# --------------------------------------------------------------------------- cupid

CUPID = "Cupid:cupid Wolf:werewolf Seer:seer Vic:villager Val:villager Ted:villager Kat:villager"


def test_cupid_links_two_players_on_the_first_night_only():
    """«Solo la primera noche, Cupido elige a dos jugadores que se enamoran»."""
    game = new(CUPID)
    assert pending(game) == [("Cupid", "link")]
    game.apply("Cupid", "link", ["Vic", "Val"])
    assert game.lovers_names() == ["Vic", "Val"]
    assert of_type(game, "lovers") == [{"type": "lovers", "players": ["Vic", "Val"]}]
    answer(game, Wolf="Ted", Seer="Wolf")
    vote_all(game, None)
    assert pending(game) == [("Wolf", "kill")]  # night 2: cupid is not called
    refused(game, "Cupid", "link", ["Seer", "Kat"])


def test_cupid_can_choose_himself():
    """«y puede elegirse a sí mismo como uno de ellos.»"""
    game = new(CUPID)
    game.apply("Cupid", "link", ["Cupid", "Ted"])
    assert game.lovers_names() == ["Cupid", "Ted"]


def test_cupid_must_link_two_different_players():
    """«elige a dos jugadores que se enamoran»."""
    game = new(CUPID)
    refused(game, "Cupid", "link", ["Vic", "Vic"])
    refused(game, "Cupid", "link", ["Vic"])
    refused(game, "Cupid", "link", ["Vic", "Val", "Ted"])
    refused(game, "Cupid", "link", ["Vic", "Nobody"])


def test_lovers_grief():
    """«Si un enamorado muere, el otro muere de pena».«Cada muerte arrastra consigo al
    enamorado del muerto.»"""
    game = new(CUPID)
    answer(game, Cupid=["Vic", "Seer"], Wolf="Seer", Seer="Wolf")
    assert deaths(game) == [("Seer", "werewolves"), ("Vic", "grief")]


def test_lovers_grief_after_a_vote():
    """«Si un enamorado muere, el otro muere de pena» (any death, also by the vote)."""
    game = new(CUPID)
    answer(game, Cupid=["Vic", "Val"], Wolf="Ted", Seer="Kat")
    vote_all(game, "Val", Val="Wolf")
    assert deaths(game)[-2:] == [("Val", "vote"), ("Vic", "grief")]


def test_lovers_of_different_sides_win_together_when_last_two():
    """«Los enamorados de bandos distintos ... ganan juntos si son los dos últimos con vida»."""
    game = new("Cupid:cupid Wolf:werewolf Vic:villager Val:villager")
    answer(game, Cupid=["Wolf", "Vic"], Wolf="Val")
    vote_all(game, "Cupid", Cupid="Wolf")
    assert game.winner == "lovers"
    assert game.winners == ["Wolf", "Vic"]


def test_lovers_of_the_same_side_play_with_their_team():
    """«Los enamorados del mismo bando siguen jugando con su equipo.»"""
    game = new(CUPID)
    answer(game, Cupid=["Vic", "Val"], Wolf="Ted", Seer="Kat")
    vote_all(game, "Wolf", Wolf="Vic")
    assert game.winner == "village"
    assert {"Vic", "Val", "Cupid"} <= set(game.winners)


# --------------------------------------------------------------------------- mason


def test_mason_pair():
    """«Los masones vienen en pareja: dos aldeanos que se conocen desde el principio»."""
    base = "Wolf:werewolf Seer:seer Vic:villager Val:villager "
    assert replay(doc(base + "Ma:mason Mb:mason", actions=[]))["error"] is None
    for masons in ("Ma:mason", "Ma:mason Mb:mason Mc:mason"):
        out = replay(doc(base + masons, actions=[]))
        assert out["error"] is not None
        assert out["error"]["index"] is None
        assert out["roles"] == {}


def test_masons_are_never_called():
    """«No tienen poder nocturno y el narrador nunca los llama.»"""
    game = new("Wolf:werewolf Seer:seer Ma:mason Mb:mason Vic:villager")
    assert pending(game) == [("Wolf", "kill")]
    game.apply("Wolf", "kill", "Vic")
    assert pending(game) == [("Seer", "inspect")]
    game.apply("Seer", "inspect", "Ma")
    assert of_type(game, "inspection")[0]["werewolf"] is False
    assert ("Ma", "vote") in pending(game)


# --------------------------------------------------------------------------- village idiot

IDIOT = "Wolf:werewolf Idiot:idiot Seer:seer Vic:villager Val:villager Ted:villager Kat:villager"


def test_idiot_survives_first_vote_then_cannot_vote():
    """«La primera vez que el pueblo vota para expulsar al tonto, este muestra su carta y sigue
    en la partida ... Desde entonces no puede votar.»"""
    game = new(IDIOT)
    answer(game, Wolf="Vic", Seer="Val")
    vote_all(game, "Idiot", Idiot="Wolf")
    assert of_type(game, "spared") == [{"type": "spared", "player": "Idiot"}]
    assert "Idiot" in game.alive_names()
    assert ("Idiot", "vote") not in deaths(game)
    answer(game, Wolf="Val", Seer="Ted")
    voters = {d.player for d in game.pending()}
    assert voters == {"Wolf", "Seer", "Ted", "Kat"}


def test_spared_idiot_voting_refused():
    """«nunca más podrá votar.»"""
    game = new(IDIOT)
    answer(game, Wolf="Vic", Seer="Val")
    vote_all(game, "Idiot", Idiot="Wolf")
    answer(game, Wolf="Val", Seer="Ted")
    refused(game, "Idiot", "vote", "Wolf")
    refused(game, "Idiot", "vote", None)


def test_idiot_second_vote_is_his_end():
    """«Una segunda votación en su contra es su fin.»"""
    game = new(IDIOT)
    answer(game, Wolf="Vic", Seer="Val")
    vote_all(game, "Idiot", Idiot="Wolf")
    answer(game, Wolf="Val", Seer="Ted")
    vote_all(game, "Idiot")
    assert deaths(game)[-1] == ("Idiot", "vote")
    assert len(of_type(game, "spared")) == 1


def test_idiot_can_be_killed_at_night():
    """«Los hombres lobo pueden matarlo igualmente de noche.»"""
    game = new(IDIOT)
    answer(game, Wolf="Idiot", Seer="Val")
    assert deaths(game) == [("Idiot", "werewolves")]


# --------------------------------------------------------------------------- cursed

CURSED = "Wolf:werewolf Cursed:cursed Seer:seer Vic:villager Val:villager Ted:villager Kat:villager"


def test_cursed_bitten_becomes_werewolf():
    """«Si los hombres lobo lo atacan de noche y nadie lo protege ni lo cura, no muere: se
    convierte en hombre lobo y juega con la manada desde entonces.»"""
    game = new(CURSED)
    answer(game, Wolf="Cursed", Seer="Vic")
    assert deaths(game) == []
    assert of_type(game, "transformed") == [{"type": "transformed", "player": "Cursed"}]
    assert game.current_role("Cursed") == "werewolf"
    assert replay(doc(CURSED, actions=[]))["roles"]["Cursed"] == "cursed"
    vote_all(game, None)
    assert sorted(pending(game)) == [("Cursed", "kill"), ("Wolf", "kill")]
    assert "Cursed" not in game.legal_targets("Wolf", "kill")
    refused(game, "Wolf", "kill", "Cursed")


def test_cursed_seen_as_not_werewolf_until_transformed():
    """«Hasta que se transforma, el vidente lo ve como «no es hombre lobo».»"""
    game = new(CURSED)
    answer(game, Wolf="Cursed", Seer="Cursed")
    assert of_type(game, "inspection")[-1]["werewolf"] is False
    vote_all(game, None)
    answer(game, Wolf="Vic", Cursed="Vic", Seer="Cursed")
    assert of_type(game, "inspection")[-1]["werewolf"] is True


def test_protected_cursed_neither_dies_nor_transforms():
    """«Los hombres lobo atacan al maldito, pero el médico lo protege. Gana la protección:
    nadie muere y nadie se transforma.»"""
    game = new(CURSED + " Doc:doctor")
    answer(game, Wolf="Cursed", Seer="Vic", Doc="Cursed")
    assert of_type(game, "transformed") == []
    assert game.current_role("Cursed") == "cursed"


def test_healed_cursed_does_not_transform():
    """«y nadie lo protege ni lo cura»."""
    game = new(CURSED + " Witch:witch")
    answer(game, Wolf="Cursed", Seer="Vic", Witch={"heal": True, "poison": None})
    assert of_type(game, "transformed") == []
    assert game.current_role("Cursed") == "cursed"


def test_transformed_cursed_wins_with_the_pack():
    """«se convierte en hombre lobo y juega con la manada desde entonces.»"""
    game = new("Wolf:werewolf Cursed:cursed Vic:villager Val:villager")
    game.apply("Wolf", "kill", "Cursed")
    assert game.winner == "werewolves"
    assert game.winners == ["Wolf", "Cursed"]


def test_bitten_cursed_lover_becomes_mixed_lover():
    """«un maldito enamorado de un aldeano pasa a ser, una vez mordido, un enamorado de bando
    distinto.»"""
    game = new("Cupid:cupid Wolf:werewolf Cursed:cursed Vic:villager Val:villager Ted:villager")
    answer(game, Cupid=["Cursed", "Vic"], Wolf="Cursed")
    assert game.lovers_mixed()
    vote_all(game, "Wolf", Wolf="Val")
    assert game.winner is None  # the bitten lover still lives: the village cannot win


# --------------------------------------------------------------------------- minion

MINION = "Wolf:werewolf Minion:minion Seer:seer Vic:villager Val:villager"


def test_minion_counts_with_the_others():
    """«Cuando el juego cuenta los dos bandos, el esbirro cuenta con todos los demás, no con
    los hombres lobo.»"""
    game = new(MINION)
    answer(game, Wolf="Seer", Seer="Vic")
    vote_all(game, "Vic", Vic="Wolf")
    # one werewolf against minion + Val: the pack has not won yet
    assert game.alive_names() == ["Wolf", "Minion", "Val"]
    assert game.winner is None


def test_village_wins_with_the_minion_alive():
    """«El pueblo gana cuando muere el último hombre lobo, esté vivo o no el esbirro.»"""
    game = new(MINION)
    answer(game, Wolf="Vic", Seer="Wolf")
    vote_all(game, "Wolf", Wolf="Seer")
    assert game.winner == "village"
    assert "Minion" in game.alive_names()
    assert "Minion" not in game.winners


def test_minion_wins_when_the_werewolves_win():
    """«El esbirro es un humano que juega para los hombres lobo y gana cuando ellos ganan.»"""
    game = new(MINION)
    answer(game, Wolf="Seer", Seer="Vic")
    vote_all(game, "Vic", Vic="Val")
    answer(game, Wolf="Val")
    assert game.winner == "werewolves"
    assert game.winners == ["Wolf", "Minion"]


def test_werewolves_may_kill_the_minion():
    """«los hombres lobo también pueden matarlo.»"""
    game = new(MINION)
    assert "Minion" in game.legal_targets("Wolf", "kill")
    answer(game, Wolf="Minion", Seer="Vic")
    assert deaths(game) == [("Minion", "werewolves")]


def test_minion_has_no_night_power():
    """«No tiene poder nocturno»."""
    game = new(MINION)
    assert pending(game) == [("Wolf", "kill")]
    game.apply("Wolf", "kill", "Vic")
    assert pending(game) == [("Seer", "inspect")]


# --------------------------------------------------------------------------- jester

JESTER = "Wolf:werewolf Jester:jester Seer:seer Vic:villager Val:villager Ted:villager"


def test_jester_wins_when_voted_out():
    """«Si el pueblo lo expulsa de día, el bufón gana solo ..., la partida termina y todos los
    demás pierden»."""
    game = new(JESTER)
    answer(game, Wolf="Vic", Seer="Val")
    vote_all(game, "Jester", Jester="Wolf")
    assert game.winner == "jester"
    assert game.winners == ["Jester"]
    assert game.pending() == []


def test_jester_killed_at_night_loses():
    """«Si el bufón muere de cualquier otra forma, de noche o por la flecha del cazador,
    pierde.»"""
    game = new(JESTER)
    answer(game, Wolf="Jester", Seer="Val")
    assert game.winner is None
    assert ("Wolf", "vote") in pending(game)


def test_jester_shot_by_the_hunter_loses():
    """«de noche o por la flecha del cazador, pierde.»"""
    game = new(JESTER + " Hunter:hunter")
    answer(game, Wolf="Hunter", Seer="Val")
    game.apply("Hunter", "shoot", "Jester")
    assert game.winner is None
    assert ("Jester", "hunter") in deaths(game)


def test_jester_in_love_voted_out_does_not_win():
    """«Un bufón enamorado que es expulsado no gana»."""
    game = new(JESTER + " Cupid:cupid Kat:villager")
    answer(game, Cupid=["Jester", "Kat"], Wolf="Vic", Seer="Val")
    vote_all(game, "Jester", Jester="Wolf")
    assert game.winner != "jester"
    assert deaths(game)[-2:] == [("Jester", "vote"), ("Kat", "grief")]


# --------------------------------------------------------------------------- fox

FOX = "Wolf:werewolf Fox:fox Seer:seer Vic:villager Val:villager Ted:villager"


def test_fox_is_unharmed_by_the_bite():
    """«Los hombres lobo no pueden matarlo: su mordisco no le hace nada.»"""
    game = new(FOX)
    answer(game, Wolf="Fox", Seer="Vic")
    assert deaths(game) == []
    assert of_type(game, "unharmed") == [{"type": "unharmed", "player": "Fox"}]
    assert "Fox" in game.alive_names()


def test_fox_vanishes_when_the_seer_looks_at_him():
    """«si el vidente mira al zorro, el zorro muere al amanecer ..., y al vidente se le sigue
    diciendo «no es hombre lobo».»"""
    game = new(FOX)
    answer(game, Wolf="Vic", Seer="Fox")
    assert of_type(game, "inspection")[0]["werewolf"] is False
    assert deaths(game) == [("Vic", "werewolves"), ("Fox", "vanished")]


def test_fox_vanishes_even_if_the_seer_dies_tonight():
    """«la mirada de un vidente al zorro sigue matando al zorro.»"""
    game = new(FOX)
    answer(game, Wolf="Seer", Seer="Fox")
    assert deaths(game) == [("Seer", "werewolves"), ("Fox", "vanished")]


def test_fox_can_be_poisoned_or_voted_out():
    """«Una votación, un disparo del cazador o el veneno de la bruja también pueden acabar con
    el zorro.»"""
    game = new(FOX + " Witch:witch")
    answer(game, Wolf="Vic", Seer="Val", Witch={"heal": False, "poison": "Fox"})
    assert ("Fox", "poison") in deaths(game)

    game = new(FOX)
    answer(game, Wolf="Vic", Seer="Val")
    vote_all(game, "Fox", Fox="Wolf")
    assert ("Fox", "vote") in deaths(game)


def test_fox_takes_the_victory_if_alive():
    """«Si el zorro está vivo cuando ganarían el pueblo o los hombres lobo, gana él solo en su
    lugar»."""
    game = new(FOX)
    answer(game, Wolf="Vic", Seer="Val")
    vote_all(game, "Wolf", Wolf="Fox")
    assert game.winner == "fox"
    assert game.winners == ["Fox"]


def test_fox_counts_with_the_others():
    """«Cuando el juego cuenta los dos bandos, el zorro cuenta con todos los demás.»"""
    game = new("Wolf:werewolf Fox:fox Vic:villager Val:villager")
    game.apply("Wolf", "kill", "Vic")
    assert game.winner is None  # one wolf against the fox and Val
    vote_all(game, "Val", Val="Wolf")
    assert game.winner == "fox"


# --------------------------------------------------------------------------- sheriff

SHER = "Wolf:werewolf Seer:seer Vic:villager Val:villager Ted:villager Kat:villager"


def sheriff_game(sheriff: str, roles: str = SHER, victim: str = "Kat"):
    """Night 1 (the wolf kills `victim`, the seer looks at Vic), then elect `sheriff`."""
    game = new(roles, sheriff=True)
    answer(game, Wolf=victim, Seer="Vic")
    vote_all(game, sheriff)
    assert game.sheriff_name() == sheriff
    return game


def test_sheriff_elected_on_day_one_before_the_vote():
    """«Si el anfitrión lo activa, el pueblo elige un alguacil el día 1, antes del debate»."""
    game = new(SHER, sheriff=True)
    answer(game, Wolf="Kat", Seer="Vic")
    assert {a for _, a in pending(game)} == {"elect"}
    assert len(pending(game)) == 5
    vote_all(game, "Seer", Wolf="Vic")
    assert game.sheriff_name() == "Seer"
    assert of_type(game, "sheriff") == [{"type": "sheriff", "player": "Seer", "how": "elected"}]
    assert {a for _, a in pending(game)} == {"vote"}


def test_village_may_elect_nobody():
    """«El pueblo puede también no elegir a nadie.»"""
    game = new(SHER, sheriff=True)
    answer(game, Wolf="Kat", Seer="Vic")
    vote_all(game, None)
    assert game.sheriff_name() is None
    assert of_type(game, "sheriff") == [{"type": "sheriff", "player": None, "how": "elected"}]
    assert {a for _, a in pending(game)} == {"vote"}


def test_no_sheriff_without_the_option():
    """«El alguacil es un título ... Si el anfitrión lo activa» (off for a fixed deck)."""
    game = new(SHER)
    answer(game, Wolf="Kat", Seer="Vic")
    assert {a for _, a in pending(game)} == {"vote"}
    refused(game, "Vic", "elect", "Seer")


def test_classic_preset_elects_a_sheriff():
    """«Cada partida Clásica elige además a un alguacil el día 1.»"""
    names = ["Ana", "Ben", "Cai", "Dan", "Eva", "Fay", "Gus", "Hal"]
    game = start({"seed": 3, "preset": "classic", "players": names})
    while not any(a in ("elect", "vote") for _, a in pending(game)):
        assert game.winner is None
        d = game.pending()[0]
        game.apply(d.player, d.action, game.legal_targets(d.player, d.action)[0])
    assert {a for _, a in pending(game)} == {"elect"}


def test_sheriff_vote_counts_double():
    """«El voto del alguacil vale doble»."""
    game = sheriff_game("Seer")
    answer(game, Seer="Wolf", Wolf="Vic", Vic="Val", Val="Ted", Ted="Seer")
    assert deaths(game)[-1] == ("Wolf", "vote")
    assert of_type(game, "tie") == []


def test_sheriff_breaks_tie():
    """«y el alguacil decide los empates.»"""
    game = sheriff_game("Seer")
    answer(game, Seer="Wolf", Vic="Val", Ted="Val", Wolf="Ted", Val="Ted")
    assert of_type(game, "tie") == [{"type": "tie", "players": ["Wolf", "Val", "Ted"]}]
    assert pending(game) == [("Seer", "break_tie")]
    assert sorted(game.legal_targets("Seer", "break_tie")) == ["Ted", "Val", "Wolf"]
    game.apply("Seer", "break_tie", "Wolf")
    assert deaths(game)[-1] == ("Wolf", "vote")
    assert game.winner == "village"


def test_break_tie_outside_the_tie_refused():
    """«el alguacil decide los empates» (only between the tied players, only on a tie)."""
    game = sheriff_game("Seer")
    refused(game, "Seer", "break_tie", "Wolf")  # no tie yet
    answer(game, Seer="Wolf", Vic="Val", Ted="Val", Wolf="Ted", Val="Ted")
    refused(game, "Seer", "break_tie", "Vic")
    refused(game, "Seer", "break_tie", None)
    refused(game, "Vic", "break_tie", "Wolf")
    refused(game, TABLE, "revote", None)


def test_badge_passes_on_death():
    """«Cuando el alguacil muere, pasa la placa a un jugador vivo que aún pueda votar»."""
    game = sheriff_game("Seer")
    vote_all(game, None)
    answer(game, Wolf="Seer", Seer="Val")
    assert pending(game) == [("Seer", "pass_badge")]
    game.apply("Seer", "pass_badge", "Vic")
    assert game.sheriff_name() == "Vic"
    assert of_type(game, "sheriff")[-1] == {"type": "sheriff", "player": "Vic", "how": "badge"}
    assert {a for _, a in pending(game)} == {"vote"}  # no new election
    # the heir's vote counts double
    answer(game, Vic="Wolf", Wolf="Val", Val="Ted", Ted="Vic")
    assert deaths(game)[-1] == ("Wolf", "vote")


def test_badge_passes_when_the_sheriff_is_voted_out():
    """«Cuando el alguacil muere, pasa la placa» (any death, also by the vote)."""
    game = sheriff_game("Seer")
    vote_all(game, "Seer", Seer="Wolf")
    assert pending(game) == [("Seer", "pass_badge")]
    game.apply("Seer", "pass_badge", "Ted")
    assert game.sheriff_name() == "Ted"
    assert pending(game) == [("Wolf", "kill")]


def test_hunter_sheriff_shoots_then_passes_the_badge():
    """«Un cazador muerto dispara, y un alguacil muerto pasa la placa.»"""
    roles = "Wolf:werewolf Wolf2:werewolf Hunter:hunter Seer:seer Vic:villager Val:villager " \
        "Ted:villager Kat:villager"
    game = new(roles, sheriff=True)
    answer(game, Wolf="Kat", Wolf2="Kat", Seer="Vic")
    vote_all(game, "Hunter")
    vote_all(game, "Hunter", Hunter="Wolf")
    assert pending(game) == [("Hunter", "shoot")]
    refused(game, "Hunter", "pass_badge", "Vic")
    game.apply("Hunter", "shoot", "Wolf")
    assert pending(game) == [("Hunter", "pass_badge")]
    refused(game, "Hunter", "pass_badge", "Wolf")
    game.apply("Hunter", "pass_badge", "Vic")
    assert game.sheriff_name() == "Vic"


def test_sheriff_is_elected_only_on_day_one():
    """«La elección, solo el día 1.» «No se vuelve a elegir a nadie.»"""
    game = sheriff_game("Seer")
    vote_all(game, None)
    answer(game, Wolf="Vic", Seer="Val")
    assert {a for _, a in pending(game)} == {"vote"}
    refused(game, "Val", "elect", "Ted")
    assert len(of_type(game, "sheriff")) == 1


def test_only_the_living_are_elected():
    """«Los muertos quedan fuera» — nobody elects a dead player."""
    game = new(SHER, sheriff=True)
    answer(game, Wolf="Kat", Seer="Vic")
    refused(game, "Vic", "elect", "Kat")
    refused(game, "Kat", "elect", "Vic")


def test_badge_may_be_thrown_away_and_nobody_is_elected_again():
    """«o la tira. No se vuelve a elegir a nadie.»"""
    game = sheriff_game("Seer")
    vote_all(game, None)
    answer(game, Wolf="Seer", Seer="Val")
    game.apply("Seer", "pass_badge", None)
    assert game.sheriff_name() is None
    assert of_type(game, "sheriff")[-1] == {"type": "sheriff", "player": None, "how": "badge"}
    assert {a for _, a in pending(game)} == {"vote"}
    answer(game, Wolf="Vic", Vic="Wolf", Val="Ted", Ted="Val")
    assert of_type(game, "tie")
    assert {p for p, _ in pending(game)} == {TABLE}


def test_badge_only_to_a_living_player_who_can_vote():
    """«pasa la placa a un jugador vivo que aún pueda votar». «Tampoco se le puede dar la
    placa a un tonto ya perdonado.»"""
    roles = "Wolf:werewolf Seer:seer Idiot:idiot Vic:villager Val:villager Ted:villager"
    game = sheriff_game("Seer", roles, victim="Ted")
    vote_all(game, "Idiot", Idiot="Wolf")
    assert of_type(game, "spared")
    answer(game, Wolf="Seer", Seer="Val")
    assert pending(game) == [("Seer", "pass_badge")]
    assert "Idiot" not in game.legal_targets("Seer", "pass_badge")
    refused(game, "Seer", "pass_badge", "Idiot")
    refused(game, "Seer", "pass_badge", "Ted")  # dead
    refused(game, "Seer", "pass_badge", "Seer")
    refused(game, "Seer", "pass_badge", "Nobody")


def test_spared_idiot_sheriff_passes_the_badge():
    """«El tonto del pueblo es el alguacil. Cuando la votación le perdona la vida, pierde su
    voto, así que pasa la placa o la tira.»"""
    roles = "Wolf:werewolf Seer:seer Idiot:idiot Vic:villager Val:villager Ted:villager"
    game = sheriff_game("Idiot", roles, victim="Ted")
    vote_all(game, "Idiot", Idiot="Wolf")
    assert of_type(game, "spared") == [{"type": "spared", "player": "Idiot"}]
    assert pending(game) == [("Idiot", "pass_badge")]
    game.apply("Idiot", "pass_badge", "Val")
    assert game.sheriff_name() == "Val"
    assert pending(game) == [("Wolf", "kill")]


def test_no_sheriff_tie_table_revote_or_spare():
    """«Si hay empate, debatan un poco más y vuelvan a votar, o dejen vivir a todos»."""
    game = new(SHER)
    answer(game, Wolf="Kat", Seer="Vic")
    answer(game, Wolf="Vic", Vic="Wolf", Seer="Wolf", Val="Vic", Ted="Seer")
    assert of_type(game, "tie") == [{"type": "tie", "players": ["Wolf", "Vic"]}]
    assert pending(game) == [(TABLE, "revote"), (TABLE, "spare")]
    refused(game, "Seer", "break_tie", "Wolf")
    refused(game, TABLE, "revote", "Wolf")
    game.apply(TABLE, "revote", None)
    assert of_type(game, "revote") == [{"type": "revote"}]
    assert {a for _, a in pending(game)} == {"vote"}
    answer(game, Wolf="Vic", Vic="Wolf", Seer="Wolf", Val="Vic", Ted="Seer")
    game.apply(TABLE, "spare", None)
    assert of_type(game, "no_elimination") == [{"type": "no_elimination"}]
    assert len(game.alive_names()) == 5
    assert pending(game) == [("Wolf", "kill")]


# --------------------------------------------------------------------------- night order

ORDER = (
    "Witch:witch Doc:doctor Seer:seer Wolf:werewolf Cupid:cupid Vic:villager Wolf2:werewolf "
    "Val:villager"
)


def test_narrated_call_order():
    """«Cupido (solo la primera noche), los hombres lobo, el vidente, el médico y por último
    la bruja.»"""
    game = new(ORDER)
    calls = []
    while not of_type(game, "dawn"):
        calls.append(pending(game))
        d = game.pending()[0]
        target = {
            "link": ["Vic", "Val"], "kill": "Doc", "inspect": "Wolf",
            "protect": "Vic", "witch": NO_POTION,
        }[d.action]
        game.apply(d.player, d.action, target)
    assert calls == [
        [("Cupid", "link")],
        [("Wolf", "kill"), ("Wolf2", "kill")],
        [("Wolf2", "kill")],
        [("Seer", "inspect")],
        [("Doc", "protect")],
        [("Witch", "witch")],
    ]


def test_werewolves_open_their_eyes_at_once():
    """«Los hombres lobo abren los ojos a la vez»: both wolves are asked together."""
    game = new(ORDER)
    game.apply("Cupid", "link", ["Vic", "Val"])
    assert pending(game) == [("Wolf", "kill"), ("Wolf2", "kill")]
    game.apply("Wolf2", "kill", "Seer")
    assert pending(game) == [("Wolf", "kill")]


def test_absent_role_never_called():
    """«Un rol que no está en la partida no se llama nunca.»"""
    game = new(FIVE)
    assert pending(game) == [("Wolf", "kill")]
    game.apply("Wolf", "kill", "Vic")
    assert pending(game) == [("Seer", "inspect")]
    game.apply("Seer", "inspect", "Wolf")
    assert of_type(game, "dawn")
    assert {a for _, a in pending(game)} == {"vote"}


@pytest.mark.parametrize("reveal", [True, False])
def test_dead_role_gets_no_decision(reveal):
    """«Un rol cuyo jugador ha muerto se llama igualmente cuando el rol de los muertos se
    mantiene en secreto» — called for show by the narrator, but no decision is asked."""
    game = new(DOC6, reveal_dead_roles=reveal)
    answer(game, Wolf="Seer", Seer="Wolf", Doc="Vic")
    vote_all(game, None)
    assert pending(game) == [("Wolf", "kill")]
    game.apply("Wolf", "kill", "Val")
    assert pending(game) == [("Doc", "protect")]
    refused(game, "Seer", "inspect", "Wolf")


def test_out_of_turn_refused():
    """«El narrador llama a cada rol por turno, y solo los llamados abren los ojos.»"""
    game = new(ORDER)
    refused(game, "Seer", "inspect", "Wolf")  # cupid first
    refused(game, "Wolf", "kill", "Vic")
    refused(game, "Vic", "vote", "Wolf")  # not day yet
    refused(game, "Witch", "witch", NO_POTION)
    refused(game, "Cupid", "inspect", "Wolf")  # wrong verb for the decision asked
    refused(game, "Cupid", "fly", "Wolf")  # unknown verb


def test_unknown_player_refused():
    """Bad input «gets a clear error and changes nothing» (DESIGN.md)."""
    game = new(FIVE)
    assert "Nobody" in refused(game, "Nobody", "kill", "Vic")
    refused(game, "Wolf", "kill", "Nobody")
    refused(game, 42, "kill", "Vic")
    refused(game, "wolf", "kill", "Vic")  # names are exact


def test_dead_player_acting_refused():
    """«Los muertos quedan fuera y guardan silencio desde ese momento.»"""
    game = new(FIVE)
    answer(game, Wolf="Vic", Seer="Ted")
    refused(game, "Vic", "vote", "Wolf")
    refused(game, "Seer", "vote", "Vic")  # voting for the dead
    vote_all(game, None)
    refused(game, "Vic", "kill", "Seer")
    refused(game, "Wolf", "kill", "Vic")


def test_refusal_in_replay_reports_index_and_keeps_state():
    """A refused action leaves the log as it was: «the log is unchanged» (DESIGN.md)."""
    base = doc(FIVE, actions=[["Wolf", "kill", "Vic"]])
    for bad in (
        ["Seer", "inspect", "Seer"],
        ["Vic", "inspect", "Wolf"],
        ["Wolf", "kill", "Val"],
        ["Seer", "protect", "Val"],
        ["Nobody", "inspect", "Wolf"],
    ):
        assert replay_refuses(base, bad)["reason"]


# --------------------------------------------------------------------------- dawn order

DAWN = (
    "Wolf:werewolf Seer:seer Witch:witch Fox:fox Vic:villager Val:villager Ted:villager "
    "Kat:villager"
)


def test_dawn_order_bite_then_poison_then_seers_look():
    """«La víctima ... Protección y curación ... El mordisco ... El veneno ... La mirada del
    vidente.»"""
    game = new(DAWN)
    answer(game, Wolf="Vic", Seer="Fox", Witch={"heal": False, "poison": "Val"})
    dawn = game.events.index(of_type(game, "dawn")[0])
    assert [e["type"] for e in game.events[:dawn]] == ["night", "pack_victim", "inspection"]
    assert deaths(game) == [("Vic", "werewolves"), ("Val", "poison"), ("Fox", "vanished")]


def test_dawn_order_saving_comes_before_poison():
    """«Protección y curación. Si el médico protegió a la víctima, o la bruja la curó, la
    víctima sobrevive.» (then «El veneno»)."""
    game = new(DAWN + " Doc:doctor")
    answer(game, Wolf="Vic", Seer="Fox", Doc="Vic", Witch={"heal": False, "poison": "Val"})
    after = game.events[game.events.index(of_type(game, "dawn")[0]) + 1:]
    assert [(e["type"], e["player"]) for e in after[:3]] == [
        ("saved", "Vic"), ("death", "Val"), ("death", "Fox"),
    ]


def test_dawn_each_death_drags_the_lover_at_once():
    """«Cada muerte arrastra consigo al enamorado del muerto.»"""
    game = new(DAWN + " Cupid:cupid")
    answer(
        game, Cupid=["Vic", "Kat"], Wolf="Vic", Seer="Fox",
        Witch={"heal": False, "poison": "Val"},
    )
    assert deaths(game) == [
        ("Vic", "werewolves"), ("Kat", "grief"), ("Val", "poison"), ("Fox", "vanished"),
    ]


def test_dawn_hunter_shoots_and_badge_passes_after_the_deaths():
    """«Después se anuncia la mañana. Un cazador muerto dispara, y un alguacil muerto pasa la
    placa.»"""
    roles = "Wolf:werewolf Seer:seer Witch:witch Hunter:hunter Vic:villager Val:villager " \
        "Ted:villager Kat:villager"
    game = new(roles, sheriff=True)
    answer(game, Wolf="Kat", Seer="Vic", Witch=NO_POTION)
    vote_all(game, "Val")
    vote_all(game, None)
    answer(game, Wolf="Hunter", Seer="Ted", Witch={"heal": False, "poison": "Val"})
    assert deaths(game)[-2:] == [("Hunter", "werewolves"), ("Val", "poison")]
    assert pending(game) == [("Hunter", "shoot")]
    game.apply("Hunter", "shoot", "Ted")
    assert pending(game) == [("Val", "pass_badge")]
    game.apply("Val", "pass_badge", "Vic")
    assert of_type(game, "day")[-1] == {"type": "day", "number": 2}


# --------------------------------------------------------------------------- night modes

MODES = (
    "Wolf:werewolf Seer:seer Doc:doctor Witch:witch Hunter:hunter Cupid:cupid Vic:villager "
    "Val:villager"
)


def test_all_at_once_villagers_suspect():
    """«Cada jugador vivo juega un turno secreto en un teléfono, también los aldeanos comunes
    ... Un aldeano elige al jugador del que más sospecha»."""
    game = new(MODES, night_mode="all_at_once")
    assert sorted(pending(game)) == sorted([
        ("Wolf", "kill"), ("Seer", "inspect"), ("Doc", "protect"), ("Hunter", "suspect"),
        ("Cupid", "link"), ("Vic", "suspect"), ("Val", "suspect"),
    ])
    game.apply("Vic", "suspect", "Wolf")
    assert of_type(game, "suspicion") == [
        {"type": "suspicion", "player": "Vic", "target": "Wolf", "night": 1}
    ]


def test_all_at_once_witch_waits_for_the_pack():
    """«(la bruja ve a la víctima de los hombres lobo)» — in Todos a la vez she is asked once
    the pack has fixed its victim."""
    game = new(MODES, night_mode="all_at_once")
    answer(game, Vic="Wolf", Val="Wolf", Hunter="Vic", Cupid=["Vic", "Val"], Seer="Wolf",
           Doc="Doc")
    assert ("Witch", "witch") not in pending(game)
    refused(game, "Witch", "witch", NO_POTION)
    game.apply("Wolf", "kill", "Seer")
    assert pending(game) == [("Witch", "witch")]
    assert game.pack_victim() == "Seer"
    game.apply("Witch", "witch", {"heal": True, "poison": None})
    assert deaths(game) == []


def test_all_at_once_second_night_powerless_roles_suspect():
    """«Cada jugador vivo juega un turno secreto» — Cupid after night 1 and a witch with no
    potions have no power left, so they suspect."""
    game = new(MODES, night_mode="all_at_once")
    answer(game, Vic="Wolf", Val="Wolf", Hunter="Vic", Cupid=["Vic", "Val"], Seer="Wolf",
           Doc="Doc", Wolf="Doc")
    answer(game, Witch={"heal": True, "poison": "Hunter"})
    answer(game, Hunter="Vic")
    vote_all(game, None)
    assert ("Cupid", "suspect") in pending(game)
    assert ("Witch", "suspect") in pending(game)


def test_pass_phones_witch_blind_heal():
    """«ella decide la curación sin ver a la víctima: la poción salva a quien sea que ataquen
    los hombres lobo.»"""
    game = new(MODES, night_mode="pass_phones")
    assert ("Witch", "witch") in pending(game)
    assert ("Wolf", "kill") in pending(game)
    game.apply("Witch", "witch", {"heal": True, "poison": None})
    assert game.pack_victim() is None
    answer(game, Vic="Wolf", Val="Wolf", Hunter="Vic", Cupid=["Vic", "Val"], Seer="Wolf",
           Doc="Doc", Wolf="Seer")
    assert deaths(game) == []
    assert of_type(game, "saved") == [{"type": "saved", "player": "Seer", "by": "witch"}]


def test_pass_phones_everyone_takes_a_turn_at_once():
    """«Cada jugador vivo juega un turno secreto, así que nadie tiene que dirigir la noche.»"""
    game = new(MODES, night_mode="pass_phones")
    players = {p for p, _ in pending(game)}
    assert players == set(game.alive_names())


def test_pass_phones_witch_who_plays_after_the_pack_sees_the_victim():
    """«si los hombres lobo no han jugado todos cuando le toca a la bruja» — when they have,
    the victim is known."""
    game = new(MODES, night_mode="pass_phones")
    game.apply("Wolf", "kill", "Vic")
    assert game.pack_victim() == "Vic"
    assert ("Witch", "witch") in pending(game)
    game.apply("Witch", "witch", {"heal": False, "poison": "Val"})
    answer(game, Vic="Wolf", Val="Wolf", Hunter="Vic", Cupid=["Hunter", "Seer"], Seer="Wolf",
           Doc="Doc")
    assert deaths(game) == [("Vic", "werewolves"), ("Val", "poison")]


def test_nothing_is_accepted_once_the_game_is_over():
    """«Repitan hasta que gane un bando.» After that, the game takes no more actions."""
    game = new(FIVE)
    answer(game, Wolf="Vic", Seer="Wolf")
    vote_all(game, "Wolf", Wolf="Seer")
    assert game.winner == "village"
    assert game.pending() == []
    refused(game, "Seer", "vote", "Val")
    refused(game, "Wolf", "kill", "Val")


def test_unknown_option_or_night_mode_refused():
    """House rules are switches the host sets; anything else is a set-up error."""
    for options in ({"night_mode": "whisper"}, {"doctor_repeat": "yes"}, {"zombies": True}):
        out = replay(dict(doc(FIVE, actions=[]), options=options))
        assert out["error"] is not None
        assert out["error"]["index"] is None

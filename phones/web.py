"""The phone relay on the web: a Flask blueprint of server-rendered pages and a JSON API.

Pages work without JavaScript (plain forms); a little script refreshes the private part of
the page when the table moves on. Everything a page does, the API under /api/ does too.

Safety: link tokens are in the path but never logged (see `RedactTokens`); every response
carries a strict content security policy and no referrer; forms carry CSRF tokens; the API
only takes JSON from the same origin (strict JSON, a few kilobytes at most); wrong room-code
guesses and room creation are counted per client address in the store (`phones.limits`).
"""

from __future__ import annotations

import functools
import io
import json
import logging
import os
import re
import secrets
from pathlib import Path
from typing import Any

import segno
from flask import (
    Blueprint,
    Flask,
    Response,
    abort,
    g,
    jsonify,
    make_response,
    redirect,
    render_template,
    request,
    url_for,
)
from flask.json.provider import DefaultJSONProvider
from flask.sessions import SecureCookieSessionInterface
from flask_wtf.csrf import CSRFError, CSRFProtect
from werkzeug.exceptions import HTTPException, RequestEntityTooLarge

from phones import handover, limits
from phones.i18n import counted, page_text, pick_language, setup_problem
from phones.relay import Relay, RelayError
from phones.setup_form import FormError, form_from_fields, form_from_json
from speech import line

DEVICE_COOKIE = "wv_device"
DEVICE_HEADER = "X-Wolf-Device"
CSP = (
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
    "connect-src 'self'; media-src 'self'; form-action 'self'; base-uri 'none'; "
    "frame-ancestors 'none'"
)

pages = Blueprint("pages", __name__)
api = Blueprint("api", __name__, url_prefix="/api")
csrf = CSRFProtect()
# a device id: what our own cookie holds (token_urlsafe), or what the box, the skill and
# tests send in the header; anything else (an empty cookie) is no device at all
DEVICE_ID = re.compile(r"[A-Za-z0-9_\-.:]{1,128}")


class RedactTokens(logging.Filter):
    """Keeps private links out of every log line (werkzeug logs request paths)."""

    PATTERN = re.compile(r"/(p|h|s|api/p|api/h|api/s)/[A-Za-z0-9_\-]{16,}")

    def filter(self, record: logging.LogRecord) -> bool:
        message = record.getMessage()
        redacted = self.PATTERN.sub(lambda m: f"/{m.group(1)}/<link>", message)
        if redacted != message:
            record.msg, record.args = redacted, ()
        return True


def relay() -> Relay:
    from flask import current_app

    return current_app.extensions["wolfvillage_relay"]


def device_id() -> str:
    """This device's id: the cookie (browsers) or a header (the box, the skill, tests).

    A missing or malformed one (`Cookie: wv_device=`) is no id: this device gets a new one
    and its cookie; never an id nobody holds, which would claim a fresh link for nobody."""
    if "device" not in g:
        given = request.headers.get(DEVICE_HEADER) or request.cookies.get(DEVICE_COOKIE)
        if given is not None and not DEVICE_ID.fullmatch(given):
            given = None
        g.new_device = given is None
        g.device = given or secrets.token_urlsafe(24)
    return g.device


# ---------------------------------------------------------------------- budgets


def client_address() -> str:
    from flask import current_app

    return limits.client_address(request.environ,
                                 current_app.extensions["wolfvillage_trusted_proxies"])


def budget(kind: str) -> limits.Budget:
    from flask import current_app

    return current_app.extensions["wolfvillage_budgets"][kind]


def too_many(kind: str, address: str) -> Response:
    """429, in the route's own form (JSON for the API, the page for a form)."""
    wait = budget(kind).retry_after(relay().store, address)
    reason = "too_many" if kind == "guess" else "too_many_rooms"
    if request.path.startswith("/api/"):
        response = jsonify(error=reason)
        response.status_code = 429
    elif request.path.startswith("/qr/"):
        response = make_response("", 429)
    else:
        lang = pick_language(request.form.get("lang"), request.headers.get("Accept-Language"))
        response = render("index.html", lang, 429, code=request.form.get("code", ""),
                          name=request.form.get("name", ""), reason=reason)
    response.headers["Retry-After"] = str(wait)
    return response


def _wrong_guess(outcome: Response | BaseException) -> bool:
    if isinstance(outcome, RelayError):
        # a room code, or a host hand-over code, that is not one
        return outcome.reason in ("unknown_room", "bad_handover")
    if isinstance(outcome, HTTPException):
        return outcome.code == 404
    return isinstance(outcome, Response) and outcome.status_code == 404


def guess_budget(view: Any) -> Any:
    """For every route that takes a room code: one budget of wrong guesses per address,
    shared by the routes (and by every server process, through the store). A right code
    never spends it; once it is spent every code is refused, right or wrong, until the
    window ends: answering a right code while refusing the wrong ones would tell a
    scanner which code is right at full speed."""

    @functools.wraps(view)
    def guarded(*args: Any, **kwargs: Any) -> Any:
        address, store = client_address(), relay().store
        if budget("guess").spent(store, address):
            return too_many("guess", address)
        try:
            outcome = make_response(view(*args, **kwargs))
        except (RelayError, HTTPException) as problem:
            if _wrong_guess(problem):
                budget("guess").spend(store, address)
            raise
        if _wrong_guess(outcome):
            budget("guess").spend(store, address)
        return outcome

    return guarded


def create_budget(view: Any) -> Any:
    """Rooms created per address: every creation counts (a room holds a code until it is
    finished or idle, and the codes must not run out)."""

    @functools.wraps(view)
    def guarded(*args: Any, **kwargs: Any) -> Any:
        address = client_address()
        if not budget("create").spend(relay().store, address):
            return too_many("create", address)
        return view(*args, **kwargs)

    return guarded


class CachedSerializerSessions(SecureCookieSessionInterface):
    """Flask's cookie sessions, building the signing serializer once per secret instead of
    on every request (the same cookies, the same checks)."""

    def get_signing_serializer(self, app: Flask) -> Any:
        key = (app.secret_key, tuple(app.config.get("SECRET_KEY_FALLBACKS") or ()))
        cached = app.extensions.get("wolfvillage_session_serializer")
        if cached is None or cached[0] != key:
            cached = (key, super().get_signing_serializer(app))
            app.extensions["wolfvillage_session_serializer"] = cached
        return cached[1]


# ---------------------------------------------------------------------- pages


def lang_of_request() -> str:
    return pick_language(request.args.get("lang"), request.headers.get("Accept-Language"))


def render(template: str, lang: str, status: int = 200, **context: Any) -> Response:
    text = page_text(lang)
    body = render_template(template, t=text, lang=lang,
                           counted=lambda key, **params: counted(text, key, **params),
                           say=lambda key, params=None: line(lang, key, params), **context)
    return make_response(body, status)


def error_page(problem: RelayError, lang: str) -> Response:
    return render("error.html", lang, problem.status, reason=problem.reason)


@pages.get("/")
def index() -> Response:
    lang = lang_of_request()
    return render("index.html", lang, code=request.args.get("code", ""))


@pages.get("/j/<code>")
def join_page(code: str) -> Response:
    lang = lang_of_request()
    return render("index.html", lang, code=code.upper())


@pages.post("/join")
@guess_budget
def join_form() -> Response:
    lang = pick_language(request.form.get("lang"), request.headers.get("Accept-Language"))
    try:
        token = relay().join(request.form.get("code"), request.form.get("name"), lang)
    except RelayError as problem:
        return render("index.html", lang, problem.status, code=request.form.get("code", ""),
                      name=request.form.get("name", ""), reason=problem.reason)
    return redirect(url_for("pages.player_page", token=token), 303)


@pages.post("/rooms")
@create_budget
def create_room_form() -> Response:
    lang = pick_language(request.form.get("lang"), request.headers.get("Accept-Language"))
    host_name = (request.form.get("host_name") or "").strip() or None
    try:
        _, token = relay().create_room(lang, host_name)
    except RelayError as problem:
        return error_page(problem, lang)
    return redirect(url_for("pages.host_page", token=token), 303)


@pages.get("/p/<token>")
def player_page(token: str) -> Response:
    try:
        view = relay().player_view(token, device_id())
    except RelayError as problem:
        return error_page(problem, lang_of_request())
    return render("player.html", view["lang"], view=view, token=token)


@pages.get("/p/<token>/part")
def player_part(token: str) -> Response:
    try:
        view = relay().player_view(token, device_id())
    except RelayError as problem:
        return error_page(problem, lang_of_request())
    return render("player_part.html", view["lang"], view=view, token=token)


@pages.post("/p/<token>/choose")
def player_choose(token: str) -> Response:
    verb = request.form.get("verb", "")
    lang = lang_of_request()
    try:
        relay().choose(token, device_id(), verb, target_from_form(verb, request.form))
    except RelayError as problem:
        try:
            view = relay().player_view(token, device_id())
        except RelayError as other:
            return error_page(other, lang)
        return render("player.html", view["lang"], problem.status, view=view, token=token,
                      reason=problem.reason)
    return redirect(url_for("pages.player_page", token=token), 303)


def target_from_form(verb: str, form: Any) -> Any:
    """A choice form's target. A game whose targets are not all names (One Night: a
    centre card 0-2, a pair, true or false) sends each as JSON (`target_json`), or the
    names ticked (`target_list`, with `target_list_sent`: none ticked is an empty list)."""
    if "target_json" in form:
        try:
            return json.loads(form["target_json"])
        except ValueError:
            raise RelayError("bad_request") from None
    if "target_list_sent" in form:
        return form.getlist("target_list")
    if verb == "witch":
        poison = form.get("poison") or None
        return {"heal": form.get("heal") == "on", "poison": poison}
    if verb == "link":
        return form.getlist("target")
    if verb == "verdict" and form.getlist("tie"):
        return {"tie": form.getlist("tie")}
    if verb == "answer":
        # Werewords' token pad: the player who asked, and the token's button
        return {"to": form.get("target"), "token": form.get("token")}
    target = form.get("target")
    return None if target in (None, "", "__nobody__") else target


@pages.get("/h/<token>")
def host_page(token: str) -> Response:
    try:
        view = relay().host_view(token, device_id())
    except RelayError as problem:
        return error_page(problem, lang_of_request())
    return render("host.html", view["lang"], view=view, token=token, join_url=join_url(view),
                  reason=request.args.get("reason"))


@pages.get("/h/<token>/part")
def host_part(token: str) -> Response:
    try:
        view = relay().host_view(token, device_id())
    except RelayError as problem:
        return error_page(problem, lang_of_request())
    return render("host_part.html", view["lang"], view=view, token=token,
                  join_url=join_url(view), reason=request.args.get("reason"))


def join_url(view: dict[str, Any]) -> str | None:
    """Where players join this room; None once the room gave its code back."""
    if not view.get("room"):
        return None
    return url_for("pages.join_page", code=view["room"], _external=True)


@pages.post("/h/<token>/do")
def host_do(token: str) -> Response:
    form = request.form
    kind = form.get("kind", "command")
    data: dict[str, Any]
    if kind == "heard":
        slots = {k[5:]: v for k, v in form.items() if k.startswith("slot_") and v}
        data = {"intent": form.get("intent"), "slots": slots}
    elif kind == "tick":
        try:
            data = {"seconds": float(form.get("seconds", "0") or 0)}
        except ValueError:
            return redirect(url_for("pages.host_page", token=token, reason="bad_request"), 303)
    elif kind == "reissue":
        try:
            new = relay().reissue(token, device_id(), form.get("player", ""))
        except RelayError as problem:
            return redirect(url_for("pages.host_page", token=token, reason=problem.reason), 303)
        url = url_for("pages.player_page", token=new, _external=True)
        view = relay().host_view(token, device_id())
        return render("reissued.html", view["lang"], url=url, player=form.get("player"),
                      token=token, qr=qr_data_uri(url))
    else:
        data = {"command": form.get("command"), "arg": command_arg(form)}
    try:
        relay().host_input(token, device_id(), kind, data)
    except RelayError as problem:
        return redirect(url_for("pages.host_page", token=token, reason=problem.reason), 303)
    return redirect(url_for("pages.host_page", token=token), 303)


@pages.post("/h/<token>/setup")
def host_setup(token: str) -> Response:
    """The whole set-up form at once (see phones/setup_form.py)."""
    try:
        relay().host_setup(token, device_id(), form_from_fields(request.form))
    except FormError as problem:
        return redirect(url_for("pages.host_page", token=token, reason=problem.reason), 303)
    except RelayError as problem:
        return redirect(url_for("pages.host_page", token=token, reason=problem.reason), 303)
    return redirect(url_for("pages.host_page", token=token), 303)


@pages.post("/h/<token>/remove")
def host_remove(token: str) -> Response:
    try:
        relay().remove_player(token, device_id(), request.form.get("player", ""))
    except RelayError as problem:
        return redirect(url_for("pages.host_page", token=token, reason=problem.reason), 303)
    return redirect(url_for("pages.host_page", token=token), 303)


def command_arg(form: Any) -> Any:
    command = form.get("command")
    arg = form.get("arg")
    if command == "option":
        value: Any = arg
        if arg in ("on", "off"):
            value = arg == "on"
        return [form.get("option"), value]
    if command == "clock":
        # isdigit() is also true of "²" and other digits that int() does not read
        return int(arg) if arg and arg.isascii() and arg.isdigit() else -1
    if command == "seats":
        return form.getlist("seat")
    return arg


@pages.post("/h/<token>/handover")
def host_handover(token: str) -> Response:
    """A one-time code that moves hosting to another device (a page of its own: the code
    is shown once, and only here)."""
    try:
        code = handover.offer(relay(), token, device_id())
        lang = relay().host_view(token, device_id())["lang"]
        room = relay().host_view(token, device_id())["room"]
    except RelayError as problem:
        return error_page(problem, lang_of_request())
    url = url_for("pages.takeover_page", room=room, _external=True)
    return render("handover.html", lang, code=code, room=room, url=url, token=token,
                  qr=qr_data_uri(url), minutes=handover.VALID_SECONDS // 60)


@pages.get("/host")
def takeover_page() -> Response:
    lang = lang_of_request()
    return render("takeover.html", lang, room=request.args.get("room", ""))


@pages.post("/host")
@guess_budget
def takeover_form() -> Response:
    lang = pick_language(request.form.get("lang"), request.headers.get("Accept-Language"))
    try:
        token = handover.take_over(relay(), request.form.get("room"), request.form.get("code"),
                                   device_id())
    except RelayError as problem:
        return render("takeover.html", lang, problem.status, room=request.form.get("room", ""),
                      reason=problem.reason)
    return redirect(url_for("pages.host_page", token=token), 303)


# The standard's quiet zone (ISO/IEC 18004: four modules of white round the code). With
# two, phone cameras and OpenCV missed about one code in a hundred once the page scaled it.
QUIET_ZONE = 4


def qr_data_uri(url: str) -> str:
    """A QR code as an inline image: a private link must not become an image's URL (it
    would be fetched and logged as one)."""
    return segno.make(url, error="m").svg_data_uri(scale=5, border=QUIET_ZONE)


def _pass_urls(token: str, shared: bool) -> dict[str, Any]:
    if shared:
        return {"here": url_for("pages.shared_page", token=token),
                "part": url_for("pages.shared_part", token=token),
                "poll": url_for("api.api_shared", token=token), "back": None}
    return {"here": url_for("pages.pass_page", token=token),
            "part": url_for("pages.pass_part", token=token),
            "poll": url_for("api.api_pass", token=token),
            "back": url_for("pages.host_page", token=token)}


def _pass_lang(token: str) -> str:
    return relay().open(token, device_id(), host=True, shared=True).link.lang


def _pass_get(token: str, shared: bool, template: str = "pass.html") -> Response:
    player = request.args.get("player")
    try:
        view = relay().pass_view(token, device_id(), player)
        lang = _pass_lang(token)
    except RelayError as problem:
        return error_page(problem, lang_of_request())
    return render(template, lang, view=view, token=token, **_pass_urls(token, shared))


def _pass_post(token: str, shared: bool) -> Response:
    verb = request.form.get("verb", "")
    urls = _pass_urls(token, shared)
    try:
        done = relay().pass_choose(token, device_id(), request.form.get("player"), verb,
                                   target_from_form(verb, request.form),
                                   call=request.form.get("call"))
        lang = _pass_lang(token)
    except RelayError as problem:
        return error_page(problem, lang_of_request())
    # a page of its own (not a redirect): what the player learnt is shown once, to them
    return render("pass.html", lang, view={}, done=done, token=token, **urls)


@pages.get("/h/<token>/pass")
def pass_page(token: str) -> Response:
    return _pass_get(token, shared=False)


@pages.get("/h/<token>/pass/part")
def pass_part(token: str) -> Response:
    return _pass_get(token, shared=False, template="pass_part.html")


@pages.post("/h/<token>/pass")
def pass_choose(token: str) -> Response:
    return _pass_post(token, shared=False)


@pages.get("/s/<token>")
def shared_page(token: str) -> Response:
    """A shared phone the host added (pass the phones on several devices)."""
    return _pass_get(token, shared=True)


@pages.get("/s/<token>/part")
def shared_part(token: str) -> Response:
    return _pass_get(token, shared=True, template="pass_part.html")


@pages.post("/s/<token>")
def shared_choose(token: str) -> Response:
    return _pass_post(token, shared=True)


@pages.post("/h/<token>/shared")
def host_add_shared(token: str) -> Response:
    """A link for another shared phone, with its QR code, on a page of its own."""
    serves = request.form.getlist("serves") or None
    try:
        new = relay().add_shared_phone(token, device_id(), serves)
        lang = relay().host_view(token, device_id())["lang"]
    except RelayError as problem:
        return redirect(url_for("pages.host_page", token=token, reason=problem.reason), 303)
    url = url_for("pages.shared_page", token=new, _external=True)
    return render("shared_added.html", lang, url=url, qr=qr_data_uri(url), token=token,
                  serves=serves)


@pages.get("/h/<token>/audio/<game>/<int:index>.wav")
def line_audio(token: str, game: str, index: int) -> Response:
    """One told line in the narrator's voice, for the host's page (see phones/audio.py)."""
    try:
        text, lang = relay().told_line(token, device_id(), game, index)
    except RelayError as problem:
        return jsonify(error=problem.reason), problem.status  # type: ignore[return-value]
    try:
        rendered = voices().render(lang, text)
    except OSError:
        # no voice on this server for the language: the page speaks it itself
        return jsonify(error="no_voice"), 503  # type: ignore[return-value]
    response = make_response(rendered.wav)
    response.mimetype = "audio/wav"
    response.headers["X-Wolf-Audio"] = "cached" if rendered.cached else "rendered"
    return response


def voices() -> Any:
    from flask import current_app

    return current_app.extensions["wolfvillage_voices"]


QR_FORMATS = {"svg": ("image/svg+xml", 6), "png": ("image/png", 8)}


@pages.get("/qr/<code>.<kind>")
@guess_budget
def qr_code(code: str, kind: str) -> Response:
    """The join address as a QR code: SVG for the pages, PNG for an Echo Show's screen
    (APL shows no SVG)."""
    if kind not in QR_FORMATS:
        abort(404)
    try:
        relay().game_for_code(code)
    except RelayError:
        abort(404)
    mimetype, scale = QR_FORMATS[kind]
    url = url_for("pages.join_page", code=code.upper(), _external=True)
    out = io.BytesIO()
    segno.make(url, error="m").save(out, kind=kind, scale=scale, border=QUIET_ZONE)
    response = make_response(out.getvalue())
    response.mimetype = mimetype
    return response


# ---------------------------------------------------------------------- API


def json_body() -> dict[str, Any]:
    """The request's JSON object (strict and bounded: `phones.limits`), or a 400."""
    data = request.get_json(silent=True)  # too large: 413 from Flask before this
    if not isinstance(data, dict):
        raise RelayError("bad_request", 400)
    return data


@api.before_request
def same_origin_json() -> Response | None:
    """JSON only, and from our own pages when a browser sends it (CSRF for the API)."""
    if request.method in ("POST", "PUT", "DELETE"):
        if not request.is_json:
            return jsonify(error="json_required"), 415  # type: ignore[return-value]
        origin = request.headers.get("Origin")
        if origin is not None and origin.rstrip("/") != request.host_url.rstrip("/"):
            return jsonify(error="cross_origin"), 403  # type: ignore[return-value]
    return None


@api.errorhandler(RelayError)
def relay_error(problem: RelayError) -> tuple[Response, int]:
    return jsonify(error=problem.reason), problem.status


@api.post("/rooms")
@create_budget
def api_create_room() -> Response:
    data = json_body()
    host_name = data.get("host_name")
    code, token = relay().create_room(str(data.get("lang", "en")),
                                      None if host_name in (None, "") else host_name)
    return jsonify(code=code, host_token=token,
                   host_url=url_for("pages.host_page", token=token, _external=True),
                   join_url=url_for("pages.join_page", code=code, _external=True),
                   qr_url=url_for("pages.qr_code", code=code, kind="svg", _external=True))


@api.post("/rooms/<code>/join")
@guess_budget
def api_join(code: str) -> Response:
    data = json_body()
    token = relay().join(code, data.get("name"), str(data.get("lang", "en")))
    return jsonify(token=token, url=url_for("pages.player_page", token=token, _external=True))


@api.get("/p/<token>")
def api_player(token: str) -> Response:
    view = relay().player_view(token, device_id())
    since = request.args.get("since")
    if since is not None and since == str(view["version"]):
        return Response(status=204)
    return jsonify(view)


@api.post("/p/<token>/choice")
def api_choice(token: str) -> Response:
    data = json_body()
    return jsonify(relay().choose(token, device_id(), data.get("verb"), data.get("target")))


@api.get("/h/<token>")
def api_host(token: str) -> Response:
    view = relay().host_view(token, device_id())
    since = request.args.get("since")
    if since is not None and since == str(view["version"]):
        return Response(status=204)
    return jsonify(view)


@api.post("/h/<token>/<kind>")
def api_host_input(token: str, kind: str) -> Response:
    data = json_body()
    if kind == "reissue":
        new = relay().reissue(token, device_id(), str(data.get("player", "")))
        return jsonify(token=new, url=url_for("pages.player_page", token=new, _external=True))
    if kind == "pass":
        return jsonify(relay().pass_choose(token, device_id(), data.get("player"),
                                           data.get("verb"), data.get("target"),
                                           call=data.get("call")))
    if kind not in ("command", "heard", "tick"):
        raise RelayError("bad_request", 404)
    return jsonify(relay().host_input(token, device_id(), kind, data))


@api.post("/h/<token>/setup")
def api_host_setup(token: str) -> Response:
    try:
        form = form_from_json(json_body())
    except FormError as problem:
        raise RelayError(problem.reason) from None
    return jsonify(relay().host_setup(token, device_id(), form))


@api.post("/h/<token>/remove")
def api_host_remove(token: str) -> Response:
    return jsonify(relay().remove_player(token, device_id(), json_body().get("player")))


@api.post("/h/<token>/handover")
def api_host_handover(token: str) -> Response:
    code = handover.offer(relay(), token, device_id())
    room = relay().host_view(token, device_id())["room"]
    return jsonify(code=code, url=url_for("pages.takeover_page", room=room, _external=True),
                   minutes=handover.VALID_SECONDS // 60)


@api.post("/host")
@guess_budget
def api_takeover() -> Response:
    data = json_body()
    token = handover.take_over(relay(), data.get("room"), data.get("code"), device_id())
    return jsonify(host_token=token,
                   host_url=url_for("pages.host_page", token=token, _external=True))


@api.get("/h/<token>/told")
def api_told(token: str) -> Response:
    """The narrator's lines for the host's page to say: `since` (the first index wanted)
    and `game` (the stored game the page was following)."""
    since = request.args.get("since", "0")
    if not since.isdigit():
        raise RelayError("bad_request")
    return jsonify(relay().told(token, device_id(), int(since), request.args.get("game")))


@api.get("/h/<token>/pass")
def api_pass(token: str) -> Response:
    view = relay().pass_view(token, device_id(), request.args.get("player"))
    since = request.args.get("since")
    if since is not None and since == str(view["version"]):
        return Response(status=204)  # (the host's phone as a shared phone polls too)
    return jsonify(view)


@api.post("/h/<token>/shared")
def api_add_shared(token: str) -> Response:
    serves = json_body().get("serves")
    new = relay().add_shared_phone(token, device_id(), serves)
    return jsonify(token=new, url=url_for("pages.shared_page", token=new, _external=True))


@api.get("/s/<token>")
def api_shared(token: str) -> Response:
    view = relay().pass_view(token, device_id(), request.args.get("player"))
    since = request.args.get("since")
    if since is not None and since == str(view["version"]):
        return Response(status=204)
    return jsonify(view)


@api.post("/s/<token>")
def api_shared_choose(token: str) -> Response:
    data = json_body()
    return jsonify(relay().pass_choose(token, device_id(), data.get("player"),
                                       data.get("verb"), data.get("target"),
                                       call=data.get("call")))


# ---------------------------------------------------------------------- the poll fast path


# on every answer (the Flask hook below and the poll fast path send the same)
SECURITY_HEADERS = (
    ("Content-Security-Policy", CSP),
    ("Referrer-Policy", "no-referrer"),
    ("X-Content-Type-Options", "nosniff"),
    ("X-Frame-Options", "DENY"),
)
# on private pages and the API: what a player may know is never cached
PRIVATE_PAGE_HEADER = ("Cache-Control", "no-store")


class FastPolls:
    """WSGI middleware answering the two requests that make most of the traffic without
    Flask's request dispatch (request context, URL matching, the budgets' look-ups, the
    session, the before- and after-request hooks): a phone's poll `GET /api/p/TOKEN[?since=V]`
    and its choice `POST /api/p/TOKEN/choice`, and the host screen's poll `GET /api/h/TOKEN`.
    The same relay call and the same answer, byte for byte in body and headers, as
    `api_player`, `api_choice` and `api_host`
    (tests/test_serve_workers.py compares them).

    Anything it is not sure of goes to Flask unchanged: another path or method, a token or
    query outside the plain alphabet, a device without an id yet (Flask sets the cookie),
    debug mode, any error other than the relay's own refusals; for a choice, also anything
    Flask's checks would refuse or would have to look at: no Content-Length, a body over the
    limit, not `application/json`, an Origin that is not this host, JSON that is not a
    strict object (Flask is given the body back to answer it).
    """

    PATH = re.compile(r"/api/([ph])/([A-Za-z0-9_\-]+)")
    CHOICE = re.compile(r"/api/p/([A-Za-z0-9_\-]+)/choice")
    QUERY = re.compile(r"(?:since=([A-Za-z0-9_\-]*))?")
    HEADERS = (*SECURITY_HEADERS, PRIVATE_PAGE_HEADER)

    def __init__(self, app: Flask, wsgi_app: Any) -> None:
        self.app = app
        self.wsgi_app = wsgi_app

    def __call__(self, environ: dict[str, Any], start_response: Any) -> Any:
        answer = None
        method = environ.get("REQUEST_METHOD")
        if not environ.get("SCRIPT_NAME") and not self.app.debug:
            if method == "GET":
                answer = self.poll(environ)
            elif method == "POST":
                answer = self.choice(environ)
        if answer is None:
            return self.wsgi_app(environ, start_response)
        status, headers, body = answer
        start_response(status, headers)
        return [body]

    @staticmethod
    def device(environ: dict[str, Any]) -> str | None:
        """As `device_id` reads it; None where Flask must give the device an id."""
        device = environ.get("HTTP_X_WOLF_DEVICE")
        if not device and "HTTP_COOKIE" in environ:
            from werkzeug.http import parse_cookie

            device = parse_cookie(environ).get(DEVICE_COOKIE)
        if not device or not DEVICE_ID.fullmatch(device):
            return None
        return str(device)

    def choice(self, environ: dict[str, Any]) -> tuple[str, list[tuple[str, str]], bytes] | None:
        from werkzeug.http import parse_options_header
        from werkzeug.wsgi import get_host

        path = self.CHOICE.fullmatch(environ.get("PATH_INFO", ""))
        length = str(environ.get("CONTENT_LENGTH") or "")
        limit = self.app.config.get("MAX_CONTENT_LENGTH") or limits.MAX_BODY_BYTES
        if (path is None or environ.get("QUERY_STRING") or not length.isdigit()
                or int(length) > limit or "HTTP_TRANSFER_ENCODING" in environ
                or parse_options_header(environ.get("CONTENT_TYPE", ""))[0]
                != "application/json"):
            return None
        origin = environ.get("HTTP_ORIGIN")
        if origin is not None and origin.rstrip("/") != (
                f"{environ.get('wsgi.url_scheme', 'http')}://{get_host(environ)}"):
            return None  # Flask refuses it (403 cross_origin)
        device = self.device(environ)
        if device is None:
            return None
        body = environ["wsgi.input"].read(int(length))
        try:
            data = limits.strict_loads(body) if len(body) == int(length) else None
        except ValueError:
            data = None
        if not isinstance(data, dict):
            environ["wsgi.input"] = io.BytesIO(body)  # Flask reads it and answers
            environ["CONTENT_LENGTH"] = str(len(body))
            return None
        relay_obj = self.app.extensions["wolfvillage_relay"]
        try:
            view = relay_obj.choose(path.group(1), device, data.get("verb"), data.get("target"))
        except RelayError as problem:
            return self.json(problem.status, {"error": problem.reason})
        except Exception:
            # as Flask would: logged on the app's logger (which keeps the link out), a 500
            self.app.logger.exception("Exception on /api/p/<link>/choice [POST]")
            return self.json(500, {"error": "internal"})
        return self.json(200, view)

    def poll(self, environ: dict[str, Any]) -> tuple[str, list[tuple[str, str]], bytes] | None:
        path = self.PATH.fullmatch(environ.get("PATH_INFO", ""))
        query = self.QUERY.fullmatch(environ.get("QUERY_STRING", ""))
        if path is None or query is None:
            return None
        device = self.device(environ)
        if device is None:
            return None  # Flask gives this device an id (and its cookie)
        relay_obj = self.app.extensions["wolfvillage_relay"]
        try:
            look = relay_obj.player_view if path.group(1) == "p" else relay_obj.host_view
            view = look(path.group(2), device)
        except RelayError as problem:
            return self.json(problem.status, {"error": problem.reason})
        except Exception:
            return None  # Flask answers (and logs) it as it would have
        since = query.group(1)
        if since is not None and since == str(view["version"]):
            return ("204 NO CONTENT", [("Content-Type", "text/html; charset=utf-8"),
                                       *self.HEADERS], b"")
        return self.json(200, view)

    def json(self, status: int, data: Any) -> tuple[str, list[tuple[str, str]], bytes]:
        from http import HTTPStatus

        body = f"{self.app.json.dumps(data, separators=(',', ':'))}\n".encode()
        return (f"{status} {HTTPStatus(status).phrase.upper()}",
                [("Content-Type", "application/json"), ("Content-Length", str(len(body))),
                 *self.HEADERS], body)


# ---------------------------------------------------------------------- the app


def secret_key() -> str:
    """A stable secret for CSRF tokens: the environment's, or one kept in the data folder."""
    given = os.environ.get("WOLFVILLAGE_SECRET")
    if given:
        return given
    from platformdirs import user_data_dir

    path = Path(user_data_dir("wolfvillage")) / "secret.key"
    if not path.exists():
        # several server processes may start at once: each writes its own candidate and
        # links it into place; os.link fails if the file exists, so exactly one secret wins
        # and nobody reads a half-written file
        path.parent.mkdir(parents=True, exist_ok=True)
        candidate = path.with_name(f"secret.key.{os.getpid()}.{secrets.token_hex(4)}")
        candidate.write_text(secrets.token_urlsafe(32))
        candidate.chmod(0o600)
        try:
            os.link(candidate, path)
        except FileExistsError:
            pass
        finally:
            candidate.unlink()
    return path.read_text().strip()


# how often a page asks the server whether the table moved on (app.js, narrator.js): a
# phone sees a change within this time; each ask is one cheap request (204 when nothing
# changed), so a crowded server can be given a longer one
DEFAULT_POLL_SECONDS = 1.5


def poll_ms(seconds: object) -> int:
    """The pages' poll interval in milliseconds, from POLL_SECONDS (app config or
    WOLFVILLAGE_POLL_SECONDS): a clear error at start for a value that is no time."""
    try:
        value = float(str(seconds))
    except ValueError:
        raise ValueError(f"POLL_SECONDS must be a number of seconds, not {seconds!r}") from None
    if not 0.1 <= value <= 60:
        raise ValueError(f"POLL_SECONDS must be between 0.1 and 60 seconds, not {value:g}")
    return round(1000 * value)


def environment_problem(environ: Any = None) -> str | None:
    """What is wrong with the relay's settings in the environment (the variables of
    docs/alexa.md, "Environment variables"), or None: checked by `wolfvillage serve`
    before it starts its workers, so that a bad value is one clear line and exit code 2,
    not a traceback in every worker."""
    environ = os.environ if environ is None else environ
    checks = (("WOLFVILLAGE_POLL_SECONDS", poll_ms),
              ("WOLFVILLAGE_ROOM_GUESS_LIMIT", lambda v: limits.Budget.parse("guess", v)),
              ("WOLFVILLAGE_ROOM_CREATE_LIMIT", lambda v: limits.Budget.parse("create", v)))
    for name, check in checks:
        value = environ.get(name)
        if not value:
            continue
        try:
            check(value)
        except ValueError as problem:
            return f"{name}={value!r}: {problem}"
    return None


def init_app(app: Flask, relay_obj: Relay) -> None:
    """Mount the relay's pages and API on an app (the Alexa endpoint shares the app)."""
    app.extensions["wolfvillage_relay"] = relay_obj
    from phones.audio import LineVoices

    # the host page's voice comes from whoever builds the app (VOICE_FACTORY: `wolfvillage
    # serve` and the box give local_voice's); without one the page speaks with the browser's
    cache = app.config.get("VOICE_CACHE")
    app.extensions["wolfvillage_voices"] = LineVoices(
        Path(cache) if cache else None, app.config.get("VOICE_MODELS"),
        app.config.get("VOICE_FACTORY"))
    # one limit on every body, and strict JSON for every read of one (phones.limits)
    # (Flask's config holds both already, None and 500 kB: setdefault would never set them)
    for key in ("MAX_CONTENT_LENGTH", "MAX_FORM_MEMORY_SIZE"):
        if app.config.get(key) in (None, app.default_config.get(key)):
            app.config[key] = limits.MAX_BODY_BYTES
    app.json = StrictJSON(app)
    # the app's config, else the environment (what `wolfvillage serve` and the Lambda
    # functions read), else the defaults (docs/phones-performance.md, "Limits")
    app.extensions["wolfvillage_budgets"] = {
        kind: limits.Budget.parse(kind, app.config.get(key) or os.environ.get(
            f"WOLFVILLAGE_{key}") or default)
        for kind, key, default in (("guess", "ROOM_GUESS_LIMIT", limits.DEFAULT_GUESS_LIMIT),
                                   ("create", "ROOM_CREATE_LIMIT",
                                    limits.DEFAULT_CREATE_LIMIT))}
    app.extensions["wolfvillage_trusted_proxies"] = limits.trusted_networks(
        app.config.get("TRUSTED_PROXIES", os.environ.get("WOLFVILLAGE_TRUSTED_PROXIES")))
    if not app.config.get("SECRET_KEY"):
        # Flask's own config already holds SECRET_KEY = None, so setdefault would never set it
        app.config["SECRET_KEY"] = secret_key()
    app.config.setdefault("WTF_CSRF_TIME_LIMIT", None)
    app.session_interface = CachedSerializerSessions()
    app.wsgi_app = FastPolls(app, app.wsgi_app)  # type: ignore[method-assign]
    csrf.init_app(app)
    csrf.exempt(api)
    app.register_blueprint(pages)
    app.register_blueprint(api)
    app.jinja_env.filters["fmt"] = lambda text, **params: str(text).format_map(params)
    app.jinja_env.globals["setup_problem"] = setup_problem
    app.jinja_env.globals["poll_ms"] = poll_ms(app.config.get("POLL_SECONDS") or os.environ.get(
        "WOLFVILLAGE_POLL_SECONDS") or DEFAULT_POLL_SECONDS)
    for name in ("werkzeug", "waitress", "flask.app"):
        logging.getLogger(name).addFilter(RedactTokens())
    # Flask logs a failing request ("Exception on /p/<token> [GET]") on the app's own
    # logger, named after the app ("phones.web"), not "flask.app"
    if not any(isinstance(f, RedactTokens) for f in app.logger.filters):
        app.logger.addFilter(RedactTokens())

    @app.errorhandler(CSRFError)
    def csrf_error(problem: CSRFError) -> Response:
        return render("error.html", lang_of_request(), 400, reason="csrf")

    @app.before_request
    def bounded_body() -> None:
        """A body without Content-Length (chunked) is cut at the limit as it is read,
        which leaves a truncated body rather than an error: refuse one that reaches it."""
        if request.content_length is None and "Transfer-Encoding" in request.headers:
            limit = app.config["MAX_CONTENT_LENGTH"]
            if limit is not None and len(request.get_data(cache=True)) >= limit:
                raise RequestEntityTooLarge()

    @app.errorhandler(RequestEntityTooLarge)
    def too_large(problem: RequestEntityTooLarge) -> Response:
        if request.path.startswith(("/api/", "/alexa")):
            response = jsonify(error="too_large")
            response.status_code = 413
            return response
        return render("error.html", lang_of_request(), 413, reason="too_large")

    @app.after_request
    def security_headers(response: Response) -> Response:
        response.headers.update(SECURITY_HEADERS)
        if request.path.startswith(("/p/", "/h/", "/s/", "/api/")):
            response.headers.update([PRIVATE_PAGE_HEADER])
        if g.get("new_device"):
            response.set_cookie(DEVICE_COOKIE, g.device, max_age=60 * 60 * 24 * 365,
                                httponly=True, samesite="Lax", secure=request.is_secure)
        return response


class StrictJSON(DefaultJSONProvider):
    """The app's JSON: what it writes as Flask's default does, what it reads strictly
    (phones.limits.strict_loads)."""

    def loads(self, s: str | bytes, **kwargs: Any) -> Any:
        return limits.strict_loads(s)


def create_app(store: Any, **config: Any) -> Flask:
    app = Flask(__name__, template_folder="templates", static_folder="static")
    app.config.update(config)
    init_app(app, Relay(store, call_pause=config.get("CALL_PAUSE", 12.0)))
    return app

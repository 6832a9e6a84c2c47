"""The request's own settings in an exported body: carried as they came to a target of the same API, and every one
not carried said in a note (docs/targets.md, "What is read from the request").

A setting means what its API says it means: the same member goes to a target of the same API as it came (an
Anthropic ``thinking`` object, a Gemini ``generationConfig``, the Responses API's ``store`` and ``include``). Across
APIs nothing is certain — a thinking budget, an output limit and ``store`` mean different things in each — so
nothing is mapped: each is left out with a note. What names one provider's things (:data:`PROVIDER_BOUND`: its
``model``, a stored response or conversation) is carried only to that provider: ``openai`` to ``openai``,
``anthropic`` to ``anthropic``, never to ``portable`` (another server). Options asked beside the text
(:attr:`~webapp.core.journal.settings.RequestSettings.asked`) win over the text.
"""

from __future__ import annotations

import json
from typing import Any

from webapp.core.export.base import Written
from webapp.core.journal.settings import ENCRYPTED_REASONING, RequestSettings, api_of, thinking_of

#: The settings that name one provider's things: its model, a response or conversation it stored. Carried only when
#: the target is the provider the source was (a ``SOURCES`` value equal to the ``TARGETS`` value).
PROVIDER_BOUND = {
    "model": "model names are provider-specific",
    "previous_response_id": "a response id means something only to the server that stored it",
    "conversation": "a conversation id means something only to the server that stored it",
}

#: The members each target's request requires (the SDK request types: ``MessageCreateParams`` requires ``model``
#: and ``max_tokens``, OpenAI's ``ResponseCreateParams`` and ``CompletionCreateParams`` ``model``). Gemini takes its
#: model in the URL (``models/{model}:generateContent``), not in the body.
REQUIRED = {"openai": ("model",), "anthropic": ("model", "max_tokens"), "chat_completions": ("model",)}
#: The settings a target takes in its URL rather than its body.
IN_URL = {"gemini": ("model",)}


def carry_settings(written: Written, settings: RequestSettings, *, source: str | None, target: str) -> None:
    """Put into ``written.body`` the settings ``target`` takes, before the conversation's members, and note each
    one not carried (``setting_left_out``), each added (``setting_added``) and each the target requires but no
    one gave (``setting_required``). Notes have ``index`` ``None`` and the member's pointer (``/model``).

    :param settings: the conversation's settings (those asked beside the text included).
    :param source: where the conversation came from (a ``SOURCES`` value): whose :data:`PROVIDER_BOUND` settings
        are.
    :param target: one of the gate's ``TARGETS``.
    """
    same_api = settings.source is not None and api_of(settings.source) == api_of(target)
    carried: dict[str, Any] = {}
    for name, value in settings.members.items():
        if name in settings.asked:
            continue  # the option given beside the text wins (below)
        if not same_api:
            written.note(
                "setting_left_out",
                f"{name!r} is a setting of the {api_of(settings.source)} API: the {target} body has no member "
                "that is certain to mean the same, so it is left out",
                None,
                f"/{name}",
            )
        elif name in IN_URL.get(target, ()):
            written.note(
                "setting_left_out",
                f"{name!r} goes in the URL ({name}s/{value}:generateContent), not in the body: left out",
                None,
                f"/{name}",
            )
        elif name in PROVIDER_BOUND and source != target:
            written.note(
                "setting_left_out",
                f"{name} {json.dumps(value, ensure_ascii=False)} is {source or 'the source'}'s, and "
                f"{PROVIDER_BOUND[name]}: left out for {target}",
                None,
                f"/{name}",
            )
        else:
            carried[name] = value
    _asked(written, settings, carried, target, same_api)
    _stateless_reasoning(written, carried, target)
    for name in REQUIRED.get(target, ()):
        if name not in carried:
            written.note(
                "setting_required",
                f"the {target} request requires {name!r}, which no one gave: add it",
                None,
                f"/{name}",
            )
    written.body = {**carried, **{k: v for k, v in written.body.items() if k not in carried}}


def _asked(written: Written, settings: RequestSettings, carried: dict[str, Any], target: str, same_api: bool) -> None:
    """The options asked beside the text, where the target takes them; a note for each it does not."""
    api = api_of(target)
    if "thinking" in settings.asked:
        thinking = settings.asked["thinking"]
        said = settings.members.get("thinking") if same_api else None
        if api == "anthropic" and isinstance(thinking, dict):
            carried["thinking"] = thinking
        elif api == "anthropic" and thinking is False:
            carried["thinking"] = {"type": "disabled"}  # ThinkingConfigDisabledParam: certain
        elif api == "anthropic" and thinking is True and thinking_of(said) is True:
            carried["thinking"] = said  # on, as the request said it
        else:
            how = (
                "add thinking {type: enabled, budget_tokens: N} or {type: adaptive}, as its budget is not known"
                if api == "anthropic"
                else f"the {target} body has no member that is certain to say it"
            )
            state = "on" if settings.thinking else "off"
            written.note("setting_left_out", f"thinking {state} was asked: {how}", None, "/thinking")
    if "store" in settings.asked:
        if api == "responses":
            carried["store"] = settings.asked["store"]
        else:
            written.note(
                "setting_left_out",
                f"store was asked: it is the Responses API's, and the {target} body has no member meaning the same",
                None,
                "/store",
            )


def _stateless_reasoning(written: Written, carried: dict[str, Any], target: str) -> None:
    """docs/targets.md O3: with ``store: false`` the request must ask for ``reasoning.encrypted_content`` when
    reasoning goes back by its ``encrypted_content``; added to ``include`` when it is missing, with a note."""
    if api_of(target) != "responses" or carried.get("store") is not False:
        return
    sealed = any(
        isinstance(item, dict) and item.get("type") == "reasoning" and isinstance(item.get("encrypted_content"), str)
        for item in written.body.get("input") or ()
    )
    include = carried.get("include")
    if not sealed or (isinstance(include, list) and ENCRYPTED_REASONING in include):
        return
    carried["include"] = [*(include if isinstance(include, list) else []), ENCRYPTED_REASONING]
    written.note(
        "setting_added",
        f"store is false and reasoning goes back by its encrypted_content: include {ENCRYPTED_REASONING!r} was "
        "added, so the next response's reasoning can go back too (docs/targets.md O3)",
        None,
        "/include",
    )

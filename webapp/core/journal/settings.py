"""A conversation's request-level settings, read once from the document they came in: :class:`RequestSettings`.

A pasted request holds more than its conversation: the model, the output limit, and the settings the replay rules
depend on (docs/targets.md, "What is read from the request"). Each API's settings are one row of a table
(:data:`APIS`): the members that are the conversation (the writers write those) and, for a response, the members
that echo the request's settings. Everything else at the top of a request is a setting, kept as it came
(:attr:`RequestSettings.members`), so that an export to the same API can send it back.

What the rules read from them:

* ``thinking`` (A2): Anthropic ``thinking.type`` ``enabled`` / ``adaptive`` → on, ``disabled`` → off
  (``ThinkingConfigParam`` in the Anthropic SDK, ``src/anthropic/types/thinking_config_param.py``); Gemini
  ``generationConfig.thinkingConfig``: ``thinkingBudget`` ``0`` → off, any other number or a ``thinkingLevel`` →
  on, ``includeThoughts`` alone says nothing (``ThinkingConfig`` in google-genai, ``google/genai/types.py``).
* ``store`` and ``include`` (O3): the Responses API's ``store`` and ``include`` (``response_create_params.py`` in
  the OpenAI SDK): with ``store: false`` reasoning goes back by its ``encrypted_content``, which a response holds
  only when ``include`` asked for ``reasoning.encrypted_content``.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any

from webapp.core.json import kind_of
from webapp.core.json import pointer as jp

__all__ = [
    "APIS",
    "ENCRYPTED_REASONING",
    "RequestSettings",
    "SETTING_NOTES",
    "SettingError",
    "api_of",
    "read_settings",
    "thinking_option",
    "store_option",
    "thinking_of",
]

#: The note a reading of settings writes -> what it means (a conversion's and a journal's notes).
SETTING_NOTES = {
    "setting_unread": "a setting of the request the rules read has a value they cannot read: not counted (give the "
    "option beside the text instead)",
}

#: The ``include`` value that makes a response's reasoning items carry their ``encrypted_content`` (O3).
ENCRYPTED_REASONING = "reasoning.encrypted_content"

#: Each source (``webapp.core.convert.SOURCES``) and target (``webapp.core.gate.TARGETS``) by the request shape its
#: API takes: settings travel as they came only between two of one API.
_API_OF = {
    "open_responses": "responses",
    "openai": "responses",
    "portable": "responses",
    "anthropic": "anthropic",
    "gemini": "gemini",
    "chat_completions": "chat_completions",
}


@dataclass(frozen=True)
class _Api:
    """One API's request shape.

    :ivar conversation: the members of a request that are the conversation (the writers write them), not settings.
    :ivar response: the members of a response that echo a request setting: ``(name in the response, name in the
        request)``.
    :ivar limit: the members that are the output limit, in the order they are looked for.
    """

    conversation: tuple[str, ...]
    response: tuple[tuple[str, str], ...]
    limit: tuple[str, ...]


#: Each API's request shape (the SDK request types: OpenAI ``ResponseCreateParams`` and ``CompletionCreateParams``,
#: Anthropic ``MessageCreateParams``, google-genai ``GenerateContentConfig`` / the REST ``GenerateContentRequest``).
APIS = {
    "responses": _Api(
        ("input", "tools"),
        tuple(
            (name, name)
            for name in (
                "model",
                "store",
                "max_output_tokens",
                "reasoning",
                "temperature",
                "top_p",
                "truncation",
                "parallel_tool_calls",
                "text",
            )
        ),
        ("max_output_tokens",),
    ),
    "anthropic": _Api(("messages", "system", "tools"), (("model", "model"),), ("max_tokens",)),
    "gemini": _Api(("contents", "systemInstruction", "system_instruction", "tools"), (("modelVersion", "model"),), ()),
    "chat_completions": _Api(("messages", "tools"), (("model", "model"),), ("max_completion_tokens", "max_tokens")),
}


def api_of(name: str | None) -> str | None:
    """The API whose request shape ``name`` (a source or a target) takes: ``responses``, ``anthropic``, ``gemini``,
    ``chat_completions``; ``None`` for an unknown name."""
    return _API_OF.get(name or "")


@dataclass(frozen=True)
class RequestSettings:
    """The settings of the request a conversation came in (or that a response echoes), and those asked for.

    :ivar source: the source they were read from (a ``SOURCES`` value), ``None`` when none was read.
    :ivar members: the request's settings members as they came, in their order (``{"model": …, "thinking": …}``),
        read-only; for a response, the members echoing the request's settings, under the request's names.
    :ivar thinking: thinking on (``True``), off (``False``) or not said (``None``): see the module docstring.
    :ivar store: the Responses API's ``store`` (``None``: not said or not a boolean).
    :ivar include: the Responses API's ``include`` (its strings): ``()`` for a request without one, ``None`` when
        not known (a response does not echo it; another API).
    :ivar asked: the options given beside the text (``{"thinking": True}``, ``{"thinking": {…}, "store": False}``),
        which override what the text says (:meth:`asking`).
    :ivar unread: ``(pointer, message)`` of each setting the rules read whose value they cannot read (a
        ``setting_unread`` note: :data:`SETTING_NOTES`), in document order.
    """

    source: str | None = None
    members: Mapping[str, Any] = field(default_factory=lambda: MappingProxyType({}), hash=False)
    thinking: bool | None = None
    store: bool | None = None
    include: tuple[str, ...] | None = None
    asked: Mapping[str, Any] = field(default_factory=lambda: MappingProxyType({}), hash=False)
    unread: tuple[tuple[str, str], ...] = ()

    @property
    def model(self) -> Any:
        """The ``model`` member, as it came (``None`` when absent)."""
        return self.members.get("model")

    @property
    def max_tokens(self) -> Any:
        """The output limit (``max_tokens``, ``max_output_tokens``, ``max_completion_tokens`` or Gemini's
        ``generationConfig.maxOutputTokens``), as it came (``None`` when absent)."""
        api = APIS.get(api_of(self.source) or "")
        for name in api.limit if api is not None else ():
            if name in self.members:
                return self.members[name]
        config = self.members.get("generationConfig", self.members.get("generation_config"))
        return config.get("maxOutputTokens", config.get("max_output_tokens")) if isinstance(config, dict) else None

    def asking(self, *, thinking: Any = None, store: bool | None = None) -> RequestSettings:
        """These settings with the options given beside the text (``None``: not given), which win over the text.

        :param thinking: ``True`` / ``False``, or Anthropic's ``thinking`` object (its ``type`` says on or off).
        :param store: the Responses API's ``store``.
        """
        asked = dict(self.asked)
        changes: dict[str, Any] = {}
        if thinking is not None:
            asked["thinking"] = thinking
            changes["thinking"] = thinking if isinstance(thinking, bool) else thinking_of(thinking)
        if store is not None:
            asked["store"] = store
            changes["store"] = store
        return dataclasses.replace(self, asked=MappingProxyType(asked), **changes)

    def for_target(self, target: str) -> tuple[bool | None, bool | None]:
        """``(thinking, store)`` of the request a replay to ``target`` sends, for the gate
        (:func:`webapp.core.gate.check_journal`): what was asked, else what the text said when the target takes
        the source's settings as they came (the same API), else ``None`` (not said)."""
        same = api_of(self.source) == api_of(target)
        thinking = self.thinking if same or "thinking" in self.asked else None
        store = self.store if same or "store" in self.asked else None
        return thinking, store


def thinking_of(value: Any) -> bool | None:
    """On or off from an Anthropic ``thinking`` object (``type`` ``enabled`` / ``adaptive`` → ``True``,
    ``disabled`` → ``False``) or a Gemini ``thinkingConfig`` (``thinkingBudget`` ``0`` → ``False``, another
    number or a ``thinkingLevel`` → ``True``); ``None`` when it says neither."""
    if not isinstance(value, dict):
        return None
    kind = value.get("type")
    if kind in ("enabled", "adaptive"):
        return True
    if kind == "disabled":
        return False
    budget = value.get("thinkingBudget", value.get("thinking_budget"))
    if isinstance(budget, int) and not isinstance(budget, bool):
        return budget != 0
    if isinstance(value.get("thinkingLevel", value.get("thinking_level")), str):
        return True
    return None


def read_settings(value: Any, source: str, shape: str) -> RequestSettings:
    """The settings of the document ``value`` of ``source`` (a ``SOURCES`` value) read as ``shape``: a
    ``request``'s members that are not its conversation, or the members a ``response`` echoes; none for any
    other shape (a list of messages or items, one message, one part)."""
    api = APIS.get(api_of(source) or "")
    if api is None or not isinstance(value, dict) or shape not in ("request", "response"):
        return RequestSettings()
    if shape == "response":
        members = {request: value[name] for name, request in api.response if name in value}
    else:
        members = {k: v for k, v in value.items() if k not in api.conversation}
    if not members:
        return RequestSettings()
    unread: list[tuple[str, str]] = []
    thinking = thinking_of(members.get("thinking"))
    if api is APIS["anthropic"] and "thinking" in members and thinking is None:
        unread.append(("/thinking", "thinking is not one of Anthropic's forms (type enabled, disabled or adaptive)"))
    config = members.get("generationConfig", members.get("generation_config"))
    if isinstance(config, dict):
        thinking = thinking_of(config.get("thinkingConfig", config.get("thinking_config")))
    store = members.get("store") if api is APIS["responses"] else None
    if store is not None and not isinstance(store, bool):
        unread.append(("/store", f"store is {kind_of(store)}, not true or false"))
    include = members.get("include", [] if shape == "request" else None) if api is APIS["responses"] else None
    if include is not None and not (isinstance(include, list) and all(isinstance(i, str) for i in include)):
        unread.append(("/include", "include is not an array of strings"))
    return RequestSettings(
        source,
        MappingProxyType(members),
        thinking,
        store if isinstance(store, bool) else None,
        tuple(i for i in include if isinstance(i, str)) if isinstance(include, list) else None,
        unread=tuple((pointer, f"{words}: not counted") for pointer, words in unread),
    )


class SettingError(ValueError):
    """An option asked beside the text that cannot be read. :ivar message: plain words; :ivar pointer: the RFC 6901
    pointer of the bad value (``/thinking/type``)."""

    def __init__(self, message: str, pointer: str) -> None:
        super().__init__(f"{pointer}: {message}")
        self.message, self.pointer = message, pointer


#: Anthropic's ``thinking`` forms and the members each takes (``ThinkingConfigEnabledParam``: ``budget_tokens``,
#: "Must be ≥1024 and less than ``max_tokens``"; ``ThinkingConfigDisabledParam``, ``ThinkingConfigAdaptiveParam``).
THINKING_FORMS = {"enabled": ("type", "budget_tokens"), "disabled": ("type",), "adaptive": ("type",)}
MIN_THINKING_BUDGET = 1024


def thinking_option(value: Any, pointer: str = "/thinking") -> bool | dict | None:
    """The ``thinking`` option: ``true`` / ``false``, or Anthropic's object form (checked as
    :data:`THINKING_FORMS` says), ``None`` (JSON ``null``) when not given.

    :raises SettingError: another value, naming the place (``/thinking/budget_tokens``).
    """
    if value is None or isinstance(value, bool):
        return value
    if not isinstance(value, dict):
        raise SettingError(f"must be true, false or Anthropic's thinking object, not {_kind(value)}", pointer)
    kind = value.get("type")
    if kind not in THINKING_FORMS:
        shown = f'"{kind}"' if isinstance(kind, str) else ("missing" if kind is None else _kind(kind))
        raise SettingError(f"type must be one of {', '.join(THINKING_FORMS)}, not {shown}", f"{pointer}/type")
    for name in value:
        if name not in THINKING_FORMS[kind]:
            raise SettingError(
                f"thinking of type {kind} takes no member {name!r} (its members: {', '.join(THINKING_FORMS[kind])})",
                jp.child(pointer, name),
            )
    budget = value.get("budget_tokens")
    if kind == "enabled" and not (
        isinstance(budget, int) and not isinstance(budget, bool) and budget >= MIN_THINKING_BUDGET
    ):
        raise SettingError(
            f"budget_tokens must be an integer of at least {MIN_THINKING_BUDGET}, not "
            f"{budget if isinstance(budget, int) and not isinstance(budget, bool) else _kind(budget)}",
            f"{pointer}/budget_tokens",
        )
    return value


def store_option(value: Any, pointer: str = "/store") -> bool | None:
    """The ``store`` option: ``true`` / ``false``, ``None`` (JSON ``null``) when not given.

    :raises SettingError: another value, naming the place."""
    if value is None or isinstance(value, bool):
        return value
    raise SettingError(f"must be true or false, not {_kind(value)}", pointer)


def _kind(value: Any) -> str:
    return "missing" if value is None else kind_of(value)

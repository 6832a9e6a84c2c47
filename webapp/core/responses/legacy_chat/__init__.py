"""The legacy Chat Completions layer (``POST /v1/chat/completions``): its own request and response models.

Pure (no Flask, no I/O). Deprecated by design (gateway plan, "Chat Completions deprecation path"): this package
shares no schema types with the Responses models. A chat request is validated here, in Chat Completions terms
(errors name ``messages[2].content[0].image_url.url``), then translated into an Open Responses *wire* body
(plain JSON) and answered by the same embedded test model as ``/v1/responses``
(``webapp.core.responses.testmodel``). Deleting this package and its view (``webapp.web.api.legacy_chat``) removes
the endpoint and nothing else.

Shapes follow OpenAI's Chat Completions API as the official ``openai`` SDK types it (``ChatCompletion``,
``ChatCompletionChunk``); what the test model cannot honour is refused by name rather than ignored
(``n`` > 1, ``logprobs``, audio, the deprecated ``functions``).

Mapping (chat → Responses items): ``system``/``developer`` → messages of that role; ``user`` → a user message
(``text`` → ``input_text``, ``image_url`` → ``input_image``, ``file`` → ``input_file``; inline ``data:`` URLs
only, the server never fetches); ``assistant`` → an assistant message and one ``function_call`` per
``tool_calls`` entry; ``tool`` → ``function_call_output``. Back: a ``function_call`` becomes a ``tool_calls``
entry whose ``id`` is the call's ``call_id``; ``finish_reason`` is ``tool_calls``, ``length`` (cut by
``max_completion_tokens``) or ``stop``.

Its modules: ``request`` (the body validated: messages, pairing, the parameters accepted, refused and ignored),
``tools`` (``tools``, ``tool_choice``, ``response_format``), ``fields`` (the checks and the one error they raise),
``translate`` (a chat request as a Responses body), ``answer`` (the ``chat.completion`` and its chunks). The names
a caller needs are imported from here.
"""

from __future__ import annotations

from webapp.core.responses.legacy_chat.answer import ChatModelError, chunk_json, complete, stream_chunks
from webapp.core.responses.legacy_chat.fields import ChatRequestError
from webapp.core.responses.legacy_chat.request import ChatRequest, parse_chat_request
from webapp.core.responses.legacy_chat.translate import to_responses_body

__all__ = [
    "ChatModelError",
    "ChatRequest",
    "ChatRequestError",
    "chunk_json",
    "complete",
    "parse_chat_request",
    "stream_chunks",
    "to_responses_body",
]

"""The endpoint check's domain: the official compliance suite's 17 cases (:data:`SUITE`) and this app's extra
ones, run against a server through a transport the caller hands in, judged by the suite's checks and by the ones it
skips.

One idea per module:

``transport``  what the cases need from the network, as protocols (:class:`Transport`, :class:`Socket`,
               :class:`Answer`, :class:`TransportError`);
``targets``    which servers may be reached: loopback and ``ALLOWED_TARGETS`` (:func:`judge_target`);
``checks``     what a case found, as data (:class:`CaseResult`, :class:`EndpointReport`), and its checks
               (:class:`CaseRun`);
``cases``      the cases as one table (:data:`CASES`) and :func:`run_case`.

The network side (HTTP, WebSocket, deadlines, the key) is ``webapp/check_endpoint.py``, outside the pure core.
"""

from webapp.core.conformance.cases import CASE_IDS, CASES, EXTRA, OFFICIAL, SUITE, Case, run_case
from webapp.core.conformance.checks import CaseResult, CaseRun, Check, EndpointReport, Exchange
from webapp.core.conformance.targets import Target, TargetRefused, allowed_targets, judge_target, split_target
from webapp.core.conformance.transport import Answer, Socket, Transport, TransportError

__all__ = [
    "CASES",
    "CASE_IDS",
    "EXTRA",
    "OFFICIAL",
    "SUITE",
    "Answer",
    "Case",
    "CaseResult",
    "CaseRun",
    "Check",
    "EndpointReport",
    "Exchange",
    "Socket",
    "Target",
    "TargetRefused",
    "Transport",
    "TransportError",
    "allowed_targets",
    "judge_target",
    "run_case",
    "split_target",
]

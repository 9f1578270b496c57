"""Shared pytest configuration for the library tests.

Hypothesis profiles
-------------------
``default``   a modest number of examples and no deadline (numba compiles on
              first call, which would trip hypothesis' per-example deadline);
              the whole suite stays well under a minute on two cores.
``thorough``  many more examples, for a long run before a release::

                  HYPOTHESIS_PROFILE=thorough .venv/bin/python -m pytest tests

``debug``     few examples and verbose output, to chase one failure.
"""
from __future__ import annotations

import os
import signal

import pytest
from hypothesis import HealthCheck, Verbosity, settings

settings.register_profile(
    "default",
    deadline=None,
    max_examples=60,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
settings.register_profile(
    "thorough",
    deadline=None,
    max_examples=1000,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
settings.register_profile("debug", deadline=None, max_examples=10, verbosity=Verbosity.verbose)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "default"))


@pytest.fixture
def sigint_raises():
    """Python's own SIGINT handler while the test runs (KeyboardInterrupt on SIGINT).

    A shell that starts a job in the background (``make test &``, ``nohup``) starts it
    with SIGINT ignored, and Python keeps it ignored: the interrupt tests would then
    see no interrupt at all. The handler in place before is put back afterwards.
    """
    previous = signal.getsignal(signal.SIGINT)
    signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)

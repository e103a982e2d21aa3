"""Waiting for a background thread's progress without betting on how fast a loaded machine schedules it."""
from __future__ import annotations

import time
from typing import Callable


def wait_until(condition: Callable[[], bool], timeout: float = 20.0, every: float = 0.01) -> bool:
    """Poll `condition` until it holds (True) or `timeout` seconds pass (False)."""
    deadline = time.perf_counter() + timeout
    while not condition():
        if time.perf_counter() > deadline:
            return False
        time.sleep(every)
    return True

"""Suite-wide settings.

Under CI (the CI environment variable, set by .ci/run's runner) hypothesis
draws the same examples every run, so a submission's CI is reproducible and a
new failure is found by a developer's run (random each time, with the
failing example saved in .hypothesis/) rather than by chance in CI.
"""

from __future__ import annotations

import os

from hypothesis import settings

settings.register_profile("ci", derandomize=True, print_blob=True)
if os.environ.get("CI"):
    settings.load_profile("ci")

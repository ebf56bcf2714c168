"""What a store keeps of how it was built, readable on the driver alone
(``reading()``, no SQLAlchemy): the fingerprints' feature columns and the
settings in the ``params`` table -- the fingerprint params, the clustering
method and the admission rule."""

from __future__ import annotations

import json

from lifededup.config import FingerprintParams
from lifededup.store.dialect import Driver
from lifededup.store.similarity import Method, Rule

# The paper's six features (seeds/000 section 2.2 step 5), one column each so
# that each has its own index: candidate lookup is six index seeks.
FEATURE_COLUMNS = ("f1", "f2", "f3", "f4", "f5", "f6")

# the params table's names
FINGERPRINT_PARAMS = "fingerprint"
CLUSTER_METHOD = "cluster_method"
CLUSTER_RULE = "cluster_rule"

StoreSettings = tuple[FingerprintParams | None, Method, Rule]


def read_settings(db: Driver) -> StoreSettings:
    """The fingerprint params the store was built with (None while empty),
    its clustering method and its admission rule (the defaults where none
    was set)."""
    stored = {str(name): json.loads(str(value)) for name, value in db.execute(
        "SELECT name, value FROM params WHERE name IN (:params, :method, :rule)",
        {"params": FINGERPRINT_PARAMS, "method": CLUSTER_METHOD, "rule": CLUSTER_RULE}).fetchall()}
    raw = stored.get(FINGERPRINT_PARAMS)
    params = None if raw is None else FingerprintParams.from_dict(raw["params"])
    method: Method = "transitive" if stored.get(CLUSTER_METHOD) == "transitive" else "conservative"
    rule = stored.get(CLUSTER_RULE)
    return params, method, Rule() if rule is None else Rule(**rule)

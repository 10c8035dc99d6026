"""What the search tests share besides fixtures (`conftest.py` holds those): the synthetic records,
a small space and the specials of a sweep. A module of its own name, imported as `search_shared`,
so that running these tests beside another folder's (whose `conftest` would shadow this one's)
still finds them."""
from __future__ import annotations

from pathlib import Path

from autotune.algorithms.thesis import CRAUSER
from autotune.search import Specials

SYNTHETIC_RECORDS = Path(__file__).parent.parent / "data" / "records" / "synthetic-rmat12.jsonl"

# The landscape's optimum inside this space: CK 4, relax 128 prefer_l1 L4, minimum 256 default,
# update 64 no_l1 (see SyntheticLandscape).
SMALL_SPACE = dict(block_sizes="64,128,256", caches="default,prefer_l1,no_l1", ck="1,2,4", lanes="1,4")


def default_specials() -> Specials:
    return Specials(
        CRAUSER.default_config(),
        baseline_candidates=(CRAUSER.uniform(64), CRAUSER.uniform(128), CRAUSER.uniform(256)),
        prediction=CRAUSER.uniform(128, "prefer_l1", 1, 4).replace(update=CRAUSER.uniform(64, "no_l1").update),
    )

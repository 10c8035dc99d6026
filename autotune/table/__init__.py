"""The tuned tables: the versioned JSON a sweep writes and other programs read.

* `format`: the schema (`autotune.table/N`), reading, checking and writing a table.
* `lookup`: `Table`, a table loaded for a program: the configuration for a graph and K sources.
* `merge`: several tables of one GPU into one.
* `export`: a table as a C/C++ header.
* `top`: which of an entry's configurations it keeps (`x-top`).

`Table` is re-exported here and at `autotune.Table`.
"""
from __future__ import annotations

from autotune.table.lookup import Table

__all__ = ["Table"]

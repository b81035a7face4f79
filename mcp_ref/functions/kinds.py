"""The kinds of Python type hint a handler function may use, and how to tell which one a hint is.

Not a spec section: the table of hints.py (type hints -> JSON Schema) and convert.py (JSON values
-> typed values) has one row per kind; ``kind_of`` says which row a hint belongs to. pydantic is
recognised only when the program has already imported it; this module never imports it.
"""

from __future__ import annotations

import collections.abc
import dataclasses
import datetime as dt
import enum
import inspect
import sys
import types
import typing
import uuid
from pathlib import PurePath
from typing import Annotated, Any, Literal, Union

FORMATS: dict[Any, str] = {dt.datetime: "date-time", dt.date: "date", dt.time: "time", uuid.UUID: "uuid"}
SCALARS: dict[Any, str] = {str: "string", int: "integer", float: "number", bool: "boolean"}
ARRAYS: dict[Any, type] = {list: list, tuple: tuple, set: set, frozenset: frozenset,
                            collections.abc.Sequence: list, collections.abc.MutableSequence: list,
                            collections.abc.Iterable: list, collections.abc.Collection: list,
                            collections.abc.Set: frozenset, collections.abc.MutableSet: set}
MAPPINGS = (dict, collections.abc.Mapping, collections.abc.MutableMapping)


def pydantic_module() -> Any:
    """The pydantic module if this program has imported it; never imports it."""
    return sys.modules.get("pydantic")


def is_class(hint: Any) -> bool:
    return inspect.isclass(hint) and typing.get_origin(hint) is None


def uses_pydantic(hint: Any) -> bool:
    """A pydantic model or dataclass, or Annotated metadata from pydantic (``Field(ge=0)``)."""
    pydantic = pydantic_module()
    if pydantic is None:
        return False
    if typing.get_origin(hint) is Annotated:
        return any(type(m).__module__.split(".")[0] in ("pydantic", "annotated_types") for m in hint.__metadata__)
    if not is_class(hint):
        return False
    return issubclass(hint, pydantic.BaseModel) or pydantic.dataclasses.is_pydantic_dataclass(hint)


def is_typeddict(hint: Any) -> bool:
    return is_class(hint) and issubclass(hint, dict) and hasattr(hint, "__required_keys__")


def kind_of(hint: Any) -> str:
    """Which row of the table in the module docstring ``hint`` belongs to; "unsupported" if none."""
    origin = typing.get_origin(hint)
    try:
        hash(hint)  # the tables below are looked up by hint
    except TypeError:
        return "annotated" if origin is Annotated else "unsupported"
    if hint in (Any, object, inspect.Parameter.empty):
        return "any"
    if hint is None or hint is type(None):
        return "none"
    if uses_pydantic(hint):
        return "pydantic"
    if origin is Annotated:
        return "annotated"
    if callable(hint) and hasattr(hint, "__supertype__"):
        return "newtype"
    if is_class(hint) and issubclass(hint, enum.Enum):
        return "enum"
    if hint in SCALARS:
        return "scalar"
    if hint in FORMATS or (is_class(hint) and issubclass(hint, PurePath)):
        return "formatted"
    if hint is bytes:
        return "bytes"
    if origin is Literal:
        return "literal"
    if origin is Union or origin is types.UnionType:
        return "union"
    if (origin or hint) in ARRAYS:
        return "array"
    if (origin or hint) in MAPPINGS:
        return "mapping"
    if is_class(hint) and dataclasses.is_dataclass(hint):
        return "dataclass"
    if is_typeddict(hint):
        return "typeddict"
    return "unsupported"

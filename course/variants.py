"""Per-learner exercise variants: derived, never stored, so a learner always sees the same one.

An exercise's ``checks.py`` declares its parameters (``FunctionExercise(params={"n": (1, 2,
3)})``); the variant is one value of each, picked by a hash of (course, placement, learner).
``{{n}}`` in the prompt, starter and solution is replaced by the variant's value.
"""

from __future__ import annotations

import hashlib
import itertools
import random
import re
from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from course.model import Checkpoint

Params = Mapping[str, Sequence[Any]]
Variant = dict[str, Any]
_FIELD = re.compile(r"\{\{\s*([A-Za-z_][A-Za-z0-9_]*)\s*\}\}")


def variant_space(params: Params) -> list[Variant]:
    """Every variant, in a stable order (the declared order of names and values)."""
    names = list(params)
    return [dict(zip(names, values, strict=True))
            for values in itertools.product(*(params[n] for n in names))]


def default_variant(params: Params) -> Variant:
    """The variant shown where there is no learner (the static site, notebooks, downloads)."""
    return {name: values[0] for name, values in params.items()}


def variant_for(params: Params, *, course: str, placement: str, learner: str) -> Variant:
    """The learner's variant: stable for (course, placement, learner), spread over the space."""
    space = variant_space(params)
    if len(space) <= 1:
        return space[0] if space else {}
    key = "\x1f".join((course, placement, learner)).encode()
    index = int.from_bytes(hashlib.sha256(key).digest()[:8], "big") % len(space)
    return space[index]


def is_variant(params: Params, variant: Mapping[str, Any]) -> bool:
    """True when ``variant`` is one of the declared ones (a job's variant is checked)."""
    return dict(variant) in variant_space(params)


def render(text: str, variant: Mapping[str, Any]) -> str:
    """Replace ``{{name}}`` by the variant's value; an unknown name is left as written."""
    return _FIELD.sub(lambda m: repr(variant[m[1]]) if isinstance(variant.get(m[1]), str)
                      else str(variant[m[1]]) if m[1] in variant else m[0], text)


def fields(text: str) -> set[str]:
    """The ``{{name}}`` fields a text uses (the loader checks each is a declared parameter)."""
    return set(_FIELD.findall(text))


def shuffled_choices(checkpoint: Checkpoint, *, course: str, placement: str,
                     learner: str) -> Checkpoint:
    """The checkpoint with its choices in this learner's stable order (keys unchanged)."""
    key = "\x1f".join(("choices", course, placement, learner, checkpoint.id)).encode()
    rng = random.Random(int.from_bytes(hashlib.sha256(key).digest()[:8], "big"))
    choices = list(checkpoint.choices)
    rng.shuffle(choices)
    return replace(checkpoint, choices=tuple(choices))

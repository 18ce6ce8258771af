"""Which compiled operator serves which description."""

from __future__ import annotations

from collections import OrderedDict

from .argreduce import CompiledArgReduce
from .desc import ArgMaxDesc, ArgMinDesc, Hardmax1Desc, NonZeroCoordinatesDesc
from .hardmax import CompiledHardmax
from .nonzero import CompiledNonZeroCoordinates
from .topk import CompiledTopK, TopK1Desc

COMPILERS = {ArgMaxDesc: CompiledArgReduce, ArgMinDesc: CompiledArgReduce}
COMPILERS[Hardmax1Desc] = CompiledHardmax
COMPILERS[NonZeroCoordinatesDesc] = CompiledNonZeroCoordinates
COMPILERS[TopK1Desc] = CompiledTopK

# Compiled operators kept per device for the functional API (dg.argmax etc.), which
# compiles on every call: the plan and pipeline lookups are then one dict hit.
CACHE_SIZE = 256


def compile_desc(device, desc, cache: OrderedDict):
    cls = COMPILERS.get(type(desc))
    if cls is None:
        raise TypeError(f"desc: {type(desc).__name__} is not an operator description "
                        f"(allowed: {', '.join(c.__name__ for c in COMPILERS)})")
    with device.lock:
        op = cache.get(desc)
        if op is not None:
            cache.move_to_end(desc)
            return op
    op = cls(device, desc)
    with device.lock:
        cache[desc] = op
        while len(cache) > CACHE_SIZE:
            cache.popitem(last=False)
    return op

"""The runtime beneath the operators: the device and its caching allocator, tensors,
pipeline cache, binding and dispatch, captured graphs. Nothing here imports an operator."""

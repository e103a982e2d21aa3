"""The markers a compiled entry answers with instead of a result, shared by every cache (jit's, the bytecode
runner's): a leaf module, so a capture mode's runner reads them without importing the runtime above it."""
INLINE = object()  # run() could not use the executable: call the Python function instead
EAGER = object()   # cache marker: this signature could not be captured and runs eagerly
UNCHECKED = object()  # _run(unchecked=True): the executable refused the arguments (nothing ran): check them first

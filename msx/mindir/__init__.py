"""MindSpore's MindIR format: `reader` (a `.mindir` file -> an msx Graph with weights) and `writer` (an msx Graph
-> a `.mindir` file MindSpore 2.x loads). `msx.load` and `msx.export(file_format="MINDIR")` call them; the
MindSpore-op <-> msx-primitive table is `msx.mindir.op_readers`. See docs/mindir.md."""

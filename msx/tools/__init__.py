"""Developer tools that ship with msx (`python -m msx.tools.api_coverage`)."""

"""Test-wide settings: CPU only (the verifier re-infers every abstract value after each pass by default)."""
import os

os.environ.setdefault("JAX_PLATFORMS", "cpu")

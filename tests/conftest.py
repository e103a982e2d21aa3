"""Test-wide settings: CPU only, and the verifier re-infers every abstract value after each pass."""
import os

os.environ.setdefault("JAX_PLATFORMS", "cpu")
os.environ.setdefault("MSX_VERIFY_SHAPES", "1")

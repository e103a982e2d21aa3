"""Real MindSpore as the test oracle: case table, shared runner and recorded goldens."""

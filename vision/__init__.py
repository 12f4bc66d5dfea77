"""Vision: frame -> markers -> components -> table plane -> per-game board state."""

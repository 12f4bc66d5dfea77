"""Test and benchmark support, not part of the product: rendered table scenes with known
ground truth (``tests.rendering.render``) and real-table conditions (``tests.rendering.conditions``).

Only ``tests/`` and ``bench/`` import it; it draws components with ``printables`` and places
them with ``vision``'s layouts, so no product room depends on it.
"""

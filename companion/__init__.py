"""The companion: the command line and the Flask app wiring vision, scoring and printables."""

"""Printables: catalog -> print-ready PDF sheets with a QR code and a fiducial tag on every component."""

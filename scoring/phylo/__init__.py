"""PHYLO (phylogame.org): the ecosystem card game on one common grid of species cards."""

from .game import GAME, PhyloGame

__all__ = ["GAME", "PhyloGame"]

"""synthpop's CART synthesis, value for value.

Implements ``synthpop::syn()`` with the ``cart`` method (Nowok, Raab & Dibben), as used by
Hornby & Hu (2021) (paper ``shared/papers/002_*``; spec ``shared/specs/synthpop-cart.md``):

* :class:`CARTSynthesizer`, :func:`syn` (synthpop's function shape), :func:`syn_r` (R's
  ``synds`` shape) -- the synthesizer (``cart_synthesis.py``);
* :class:`RpartTree` -- the rpart-compatible tree (``rpart_tree.py``);
* :class:`RStream` / :func:`make_stream` -- R's Mersenne-Twister and samplers (``rng.py``);
* :func:`bw_sj`, :func:`smooth_density` -- density smoothing as R's ``bw.SJ`` (``smoothing.py``).
"""

from .cart_synthesis import CARTSynthesizer, Synds, syn, syn_r
from .rng import NumpyStream, RStream, make_stream
from .rpart_tree import RpartTree
from .smoothing import bw_sj, smooth_density

__all__ = [
    "CARTSynthesizer",
    "NumpyStream",
    "RStream",
    "RpartTree",
    "Synds",
    "bw_sj",
    "make_stream",
    "smooth_density",
    "syn",
    "syn_r",
]

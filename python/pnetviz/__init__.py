"""pnetviz: ROOT-native evaluation and plotting of HEP event classifiers."""

__version__ = "0.1.0"

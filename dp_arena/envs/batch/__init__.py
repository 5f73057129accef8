"""The batch wing: the rules, cards, encoding and opponents of capped hold'em as NumPy
arrays across many tables at once, the fast twin of the engine that the native vector
environment steps."""

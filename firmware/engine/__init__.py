# The board's own opponent: a small alpha-beta engine over the rules core (core/position.py).

# The companion's Engine.analyse (tools/companion/engine.py), which the engine game asks whether to
# accept a draw offer, against the project's own UCI engine (tools/uci.py): it needs no Stockfish.
import os
import queue
import sys

import chess

from companion.engine import Engine

UCI = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "tools", "uci.py")


def test_analyse_answers_with_a_score_once_the_engine_runs_and_none_before():
    engine = Engine(queue.Queue(), command="%s %s" % (sys.executable, UCI), movetime=0.1)
    assert engine.analyse(chess.Board(), 0.1) is None  # not started: nothing to ask
    engine.start()
    try:
        info = engine.analyse(chess.Board(), 0.2)
    finally:
        engine.stop()
    assert info["score"].white().score() is not None
    assert engine.analyse(chess.Board(), 0.1) is None  # stopped again

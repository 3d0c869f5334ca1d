# Online play (docs/lichess-wifi.md): what to do on each Lichess event (lichess_game.py, shared with
# the PC companion), the Board API over HTTPS (board_api.py), the secrets file (secrets.py).

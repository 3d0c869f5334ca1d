# Online play (docs/lichess-wifi.md): what to do on each Lichess event (lichess_game.py, shared with
# the PC companion), the Board API over HTTPS (board_api.py), the secrets file (secrets.py).

# Where the secrets file lives (online/secrets.py writes it): here, so that `status` on a board
# never set up can tell there is nothing to say without loading the online code.
SECRETS_PATH = "online.secret"

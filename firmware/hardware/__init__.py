# The hardware layer: the only code touching machine/rp2/neopixel objects, received initialised from wiring.py.
#
# pico.py builds them from the settings on a Pico; matrix.py scans the reed switches; ws2812.py and max7219.py drive the LEDs, with the signal
# tables they share (and a text rendering for terminals) in leds.py; fake.py stands in for the
# Pico's objects in the host tests and the simulators.

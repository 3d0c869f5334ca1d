# The pure core: rules, debouncing, move reading and what to light. No machine, no clock: time comes in as an argument, so the same code runs on the Pico, a PC and in a browser.

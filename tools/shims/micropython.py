# CPython stand-in for MicroPython's built-in `micropython` module, so firmware/ runs unchanged on a PC.
# Only the host tools and tests put this folder on sys.path; MicroPython has the real module built in.


def const(value):
    # On MicroPython const() folds the number into the bytecode; on CPython it is just the number.
    return value


def native(function):
    return function


def viper(function):
    return function


def mem_info(*args):
    pass


def opt_level(*args):
    return 0

"""The command lines of hdp-bench's Python modes, read as getopt_long
reads hdp-bench's own: long options, a value after the name or after
'=', and a unique prefix of a name for the name. Each mode keeps its
usage text once, in its module's USAGE.
"""
import re


class UsageError(Exception):
    """What is wrong with a command line; the mode says it and exits 2,
    with its usage when an option itself is wrong (@show_usage)."""

    def __init__(self, message, show_usage=False):
        super().__init__(message)
        self.show_usage = show_usage


def _name_of(arg, names):
    name = arg[2:].partition("=")[0]
    if name in names:
        return name
    matches = [n for n in names if name and n.startswith(name)]
    if len(matches) == 1:
        return matches[0]
    if matches:
        raise UsageError(f"option '{arg}' is ambiguous: " +
                         ", ".join("--" + m for m in matches), True)
    raise UsageError(f"unknown option '{arg}'", True)


def parse(argv, flags, valued, positional=None):
    """{name: True or its value} from @argv; @flags take no value, @valued
    one. -h is --help, when "help" is among @flags. With a list
    @positional, the arguments that are no option nor an option's value
    go there, wherever they stand (hdp-bench gives a mode the options
    written before it, after it); without, each is refused."""
    got = {}
    i = 0
    while i < len(argv):
        arg = argv[i]
        i += 1
        if arg == "-h" and "help" in flags:
            arg = "--help"
        if positional is not None and not arg.startswith("-"):
            positional.append(arg)
            continue
        if not arg.startswith("--") or arg == "--":
            raise UsageError(f"unknown option '{arg}'", True)
        name = _name_of(arg, tuple(flags) + tuple(valued))
        given, value = "=" in arg, arg.partition("=")[2]
        if name in flags:
            if given:
                raise UsageError(f"--{name} takes no value", True)
            got[name] = True
            continue
        if not given:
            if i == len(argv):
                raise UsageError(f"--{name} needs a value", True)
            value = argv[i]
            i += 1
        got[name] = value
    return got


def split_list(text):
    """The items of a comma-separated list; a comma at the end adds none."""
    items = text.split(",")
    return items[:-1] if items and items[-1] == "" else items


def decimal_seconds(text):
    """Is @text a decimal number of seconds as strtod reads one (digits,
    a point, an exponent; no sign, blank, hex, inf or nan), above 0?"""
    return bool(re.fullmatch(r"([0-9]+\.?[0-9]*|\.[0-9]+)([eE][-+]?[0-9]+)?", text)) \
        and 0 < float(text) < 1e9

"""What the lint tests read in C: code with its comments and literals
blanked (offsets and lines kept), and the functions it calls by name."""
import re

_NOISE = r'/\*.*?\*/|//[^\n]*|"(?:\\.|[^"\\\n])*"|\'(?:\\.|[^\'\\\n])*\''
NOT_CALLS = {"if", "while", "for", "switch", "return", "sizeof", "defined"}


def strip(text):
    """Comments, string and character literals blanked, newlines kept."""
    return re.sub(_NOISE, lambda m: re.sub(r"[^\n]", " ", m.group(0)), text, flags=re.S)


def calls(code):
    """The functions @code calls by name (not through a member's pointer:
    ops->stash() and .hold() are another function's pointer)."""
    return set(re.findall(r"(?<![.>\w])\s*\b([A-Za-z_]\w*)\s*\(", code)) - NOT_CALLS

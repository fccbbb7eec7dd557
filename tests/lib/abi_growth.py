"""What abi-layout and abi-grown share: the soname of a library, and the
growth both make, a line at the end of each of hdp's own lists as a later
release adding a key, a counter and a violation kind would write it."""
import re
import subprocess

# (header under the tree, list, line): the last of each of hdp's own lists.
GROWTH = [
    ('hardening/include/hdp/profile.h', 'HDP_SHUFFLE_KEYS',
     'X(SHUFFLE_ABI_PROBE, shuffle_abi_probe, UINT, uint32_t, 1, 1, 2, NULL, '
     '"a key a later release adds")'),
    ('hardening/include/hdp/harden.h', 'HDP_SHUFFLE_COUNTERS',
     'X(SHUFFLE_ABI_PROBE, shuffle_abi_probe, "a counter a later release adds")'),
    ('hardening/include/hdp/violation.h', 'HDP_REDZONE_VIOLATIONS',
     'X(REDZONE_ABI_PROBE, redzone_abi_probe, "a kind a later release adds")'),
]


def soname(path):
    out = subprocess.run(['readelf', '-d', path], capture_output=True, text=True).stdout
    m = re.search(r'\(SONAME\)\s+Library soname: \[([^\]]+)\]', out)
    return m.group(1) if m else '?'


def grow(header_name, text):
    """@text (the header @header_name, e.g. "profile.h") with its GROWTH
    lines added; raises ValueError naming a list it lacks."""
    for header, macro, line in GROWTH:
        if header.rsplit('/', 1)[-1] != header_name:
            continue
        # The definition runs to the first line not ending in '\'.
        m = re.search(r'^#define ' + macro + r'\(X\)(?:.*\\\n)*.*$', text, flags=re.M)
        if not m:
            raise ValueError(f'{header}: no #define {macro}(X) to add a line to')
        text = text[:m.end()] + ' \\\n\t' + line + text[m.end():]
    return text

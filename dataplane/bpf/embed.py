#!/usr/bin/env python3
"""Turn a compiled BPF object into a C source holding its bytes, so the
programs travel inside the binaries that load them."""
import sys

src, out, name = sys.argv[1:4]
data = open(src, "rb").read()
with open(out, "w") as f:
    f.write("/* Generated from %s: do not edit. */\n#include <stddef.h>\n\n" % src.split("/")[-1])
    f.write("const unsigned char %s[] __attribute__((aligned(8))) = {\n" % name)
    for i in range(0, len(data), 12):
        f.write("\t" + " ".join("0x%02x," % b for b in data[i:i + 12]) + "\n")
    f.write("};\nconst size_t %s_len = %d;\n" % (name, len(data)))

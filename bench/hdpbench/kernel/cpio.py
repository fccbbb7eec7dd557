"""The initramfs format: a gzipped cpio archive in the "newc" format
(Documentation/driver-api/early-userspace/buffer-format.rst), written here
so that the lab needs no cpio program and makes every entry exactly as it
wants it (owner root, mode, links), whatever the files on the host say.
"""
import gzip
import os

_MAGIC = b"070701"


def _pad4(n):
    return (4 - n % 4) % 4


class Archive:
    """Entries in the order they are added; a directory before what it holds."""

    def __init__(self):
        self._parts = []
        self._ino = 1
        self._have = set()

    def _entry(self, name, mode, data=b"", nlink=1):
        name = name.lstrip("/")
        if name in self._have:
            return
        self._have.add(name)
        encoded = name.encode() + b"\0"
        fields = (self._ino, mode, 0, 0, nlink, 0, len(data), 0, 0, 0, 0, len(encoded), 0)
        self._ino += 1
        header = _MAGIC + b"".join(b"%08X" % f for f in fields)
        self._parts += [header, encoded, b"\0" * _pad4(len(header) + len(encoded)),
                        data, b"\0" * _pad4(len(data))]

    def directory(self, name, mode=0o755):
        parent = os.path.dirname(name.rstrip("/"))
        if parent not in ("", "/"):
            self.directory(parent)
        self._entry(name, 0o040000 | mode, nlink=2)

    def file(self, name, data, mode=0o644):
        self.directory(os.path.dirname(name))
        self._entry(name, 0o100000 | mode, data)

    def symlink(self, name, target):
        self.directory(os.path.dirname(name))
        self._entry(name, 0o120000 | 0o777, target.encode())

    def copy(self, name, path, mode=None):
        """The host file @path as @name; its mode unless @mode is given."""
        with open(path, "rb") as f:
            data = f.read()
        self.file(name, data, mode if mode is not None else os.stat(path).st_mode & 0o7777)

    def write(self, path):
        """Close the archive (its trailer) and write it gzipped to @path."""
        self._entry("TRAILER!!!", 0)
        with gzip.open(path, "wb", compresslevel=1) as out:
            for part in self._parts:
                out.write(part)

#!/usr/bin/env python3
"""Where hdp-bench's harness writes its results: the --out directory.

It runs as root, and the directory may be another user's (or lie under
one). Such a user must not get root to write through a link they put at
an output's name, or to open a FIFO there and hang after a run of half an
hour. So the directory is reached from "/" without following a link
anyone but root (or this user) could have placed on the way, and held as
a descriptor; every output is a new file made with O_EXCL|O_NOFOLLOW under
a random name in it, then renamed over its name, which replaces whatever
is there without opening or following it; and before the run starts, an
output name that holds anything but a regular file (a link, a FIFO, a
directory) is refused, so that the run is not spent for nothing. gnuplot
writes to its standard output, into such a file; it opens no name.

usage: bench_out.py prepare DIR NAME...   make DIR, refuse it or any NAME (status 2)
       bench_out.py write DIR NAME        standard input into DIR/NAME
"""
import os
import secrets
import stat
import subprocess
import sys

LINKS_MAX = 40


class OutError(Exception):
    """A reason not to write there, for the user."""


def _ours(uid):
    return uid in (0, os.geteuid())


def _trusted_dir(fd, st):
    """Only root or we may change what is in it (sticky: only our entries are safe)."""
    if os.fstatvfs(fd).f_flag & os.ST_RDONLY:
        return True, False
    if not _ours(st.st_uid):
        return False, False
    if not st.st_mode & (stat.S_IWGRP | stat.S_IWOTH):
        return True, False
    sticky = bool(st.st_mode & stat.S_ISVTX)
    return sticky, sticky


def _who(st):
    if not _ours(st.st_uid):
        return f"belongs to uid {st.st_uid}"
    if st.st_mode & stat.S_IWOTH:
        return f"may be written by anyone (mode {stat.S_IMODE(st.st_mode):04o})"
    return f"may be written by gid {st.st_gid} (mode {stat.S_IMODE(st.st_mode):04o})"


def open_dir(path, make=False):
    """DIR as an O_PATH descriptor, walked from "/" one name at a time.

    Directories on the way may be anyone's; a symbolic link is followed
    only where nobody but root or this user could have put it (its
    directory is theirs alone, or sticky and the link theirs). With
    @make, missing directories are made (0755), as mkdir -p would.
    """
    rest = os.path.join(os.getcwd(), path).split("/")
    rest.reverse()
    fd = os.open("/", os.O_PATH | os.O_DIRECTORY | os.O_CLOEXEC)
    done, links = "/", 0
    try:
        while rest:
            name = rest.pop()
            if name in ("", "."):
                continue
            here = os.fstat(fd)
            try:
                nfd = os.open(name, os.O_PATH | os.O_NOFOLLOW | os.O_CLOEXEC, dir_fd=fd)
            except FileNotFoundError:
                if not make:
                    raise OutError(f"{os.path.join(done, name)}: no such directory") from None
                os.mkdir(name, 0o755, dir_fd=fd)
                nfd = os.open(name, os.O_PATH | os.O_NOFOLLOW | os.O_CLOEXEC, dir_fd=fd)
            st = os.fstat(nfd)
            if stat.S_ISLNK(st.st_mode):
                trusted, sticky = _trusted_dir(fd, here)
                if not trusted or (sticky and not _ours(st.st_uid)):
                    os.close(nfd)
                    who = _who(here) if not trusted else f"is sticky, and the link {_who(st)}"
                    raise OutError(f"{os.path.join(done, name)} is a symbolic link in {done}, "
                                   f"which {who}: not followed")
                links += 1
                if links > LINKS_MAX:
                    os.close(nfd)
                    raise OutError(f"{path}: more than {LINKS_MAX} symbolic links on the way")
                target = os.readlink("", dir_fd=nfd)
                os.close(nfd)
                rest.extend(reversed(target.split("/")))
                if target.startswith("/"):
                    os.close(fd)
                    fd = os.open("/", os.O_PATH | os.O_DIRECTORY | os.O_CLOEXEC)
                    done = "/"
                continue
            if not stat.S_ISDIR(st.st_mode):
                os.close(nfd)
                raise OutError(f"{os.path.join(done, name)} is not a directory")
            os.close(fd)
            fd = nfd
            done = os.path.normpath(os.path.join(done, name))
    except OSError as e:
        os.close(fd)
        raise OutError(f"{path}: {e.strerror}") from None
    except OutError:
        os.close(fd)
        raise
    return fd


def check_names(dirfd, names, where):
    """Refuse anything but a regular file (or nothing) at each output name."""
    for name in names:
        try:
            st = os.stat(name, dir_fd=dirfd, follow_symlinks=False)
        except FileNotFoundError:
            continue
        if not stat.S_ISREG(st.st_mode):
            kind = ("a symbolic link" if stat.S_ISLNK(st.st_mode) else
                    "a FIFO" if stat.S_ISFIFO(st.st_mode) else
                    "a directory" if stat.S_ISDIR(st.st_mode) else "not a regular file")
            raise OutError(f"{os.path.join(where, name)} is {kind}: refusing to write "
                           "results there (remove it, or give another --out)")


def _fresh(dirfd, name):
    """A new file beside NAME, made by this call: (fd, its name)."""
    for _ in range(16):
        tmp = f".{name}.{secrets.token_hex(6)}"
        try:
            return os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW |
                           os.O_CLOEXEC, 0o644, dir_fd=dirfd), tmp
        except FileExistsError:
            continue
    raise OutError(f"cannot make a new file beside {name}: every name tried was taken")


def _publish(dirfd, tmp, name):
    try:
        os.rename(tmp, name, src_dir_fd=dirfd, dst_dir_fd=dirfd)
    except OSError:
        os.unlink(tmp, dir_fd=dirfd)
        raise


def write(dirfd, name, data):
    """DATA (str or bytes) as NAME in the directory: a new file, renamed into place."""
    fd, tmp = _fresh(dirfd, name)
    with os.fdopen(fd, "wb") as f:
        f.write(data.encode() if isinstance(data, str) else data)
    _publish(dirfd, tmp, name)


def gnuplot(dirfd, name, script):
    """A PNG drawn by gnuplot from SCRIPT (its data inline) as NAME; False if it fails.

    gnuplot writes to its standard output, a new file of ours: with no
    'set output' and no data file, it opens no name at all.
    """
    fd, tmp = _fresh(dirfd, name)
    try:
        ok = subprocess.run(["gnuplot"], input=script.encode(), stdout=fd).returncode == 0
    except FileNotFoundError:
        ok = False
    os.close(fd)
    if not ok:
        os.unlink(tmp, dir_fd=dirfd)
        return False
    _publish(dirfd, tmp, name)
    return True


def datablock(name, blocks):
    """gnuplot's inline data: '$NAME << EOD', BLOCKS (each text) two blank lines apart, 'EOD'."""
    return f"${name} << EOD\n" + "\n\n".join(b.rstrip("\n") + "\n" for b in blocks) + "EOD\n"


def read(dirfd, relpath):
    """The text of RELPATH under the directory, or None when it is not a
    regular file there: no link on the way is followed, and nothing that
    could block (a FIFO) is waited on."""
    parts = relpath.split("/")
    fd = os.dup(dirfd)
    try:
        for name in parts[:-1]:
            nfd = os.open(name, os.O_PATH | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC,
                          dir_fd=fd)
            os.close(fd)
            fd = nfd
        ffd = os.open(parts[-1], os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC,
                      dir_fd=fd)
    except OSError:
        return None
    finally:
        os.close(fd)
    with os.fdopen(ffd, "rb") as f:
        if not stat.S_ISREG(os.fstat(f.fileno()).st_mode):
            return None
        return f.read().decode()


def prepare(path, names):
    """Make DIR (mkdir -p), refuse what cannot take the results: its descriptor."""
    fd = open_dir(path, make=True)
    check_names(fd, names, path)
    # Written to once now, not after the run: a read-only place is said at once.
    try:
        tfd, tmp = _fresh(fd, "probe")
    except OSError as e:
        os.close(fd)
        raise OutError(f"{path}: cannot write results there: {e.strerror}") from None
    os.close(tfd)
    os.unlink(tmp, dir_fd=fd)
    return fd


def main(argv):
    if len(argv) >= 3 and argv[1] == "prepare":
        os.close(prepare(argv[2], argv[3:]))
        return 0
    if len(argv) == 4 and argv[1] == "write":
        write(open_dir(argv[2]), argv[3], sys.stdin.buffer.read())
        return 0
    sys.stderr.write(__doc__)
    return 2


if __name__ == "__main__":
    try:
        sys.exit(main(sys.argv))
    except OutError as e:
        print(f"hdp-bench: --out: {e}", file=sys.stderr)
        sys.exit(2)
    except OSError as e:
        print(f"hdp-bench: --out {sys.argv[2]}: {e}", file=sys.stderr)
        sys.exit(1)
